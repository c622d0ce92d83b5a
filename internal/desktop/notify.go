package desktop

import (
	"context"
	"os/exec"
	"runtime"
	"strconv"
)

// Notify shows a desktop notification with title and body where the
// system has a way (notify-send on Linux and BSD, osascript on macOS) and
// reports whether it did. It is best effort: it returns within
// helperTimeout, and a missing or failing helper is only false. Never put
// a token in title or body: notification daemons log them.
func Notify(ctx context.Context, title, body string) bool {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "osascript"
		args = []string{"-e", "display notification " + strconv.Quote(body) + " with title " + strconv.Quote(title)}
	case "windows":
		return false
	default:
		name = "notify-send"
		args = []string{"--app-name=poppy-browser", "--", title, body}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return false
	}
	return runHelper(ctx, args, path) == nil
}
