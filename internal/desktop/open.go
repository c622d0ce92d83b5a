package desktop

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// helperTimeout bounds xdg-open, open and notify-send.
const helperTimeout = 10 * time.Second

// DefaultURLFile is where the runtime writes the live view's URL (with its
// token, mode 0600) unless told otherwise, and where open-live reads it:
// poppy-browser/live-url in the User's cache directory ($XDG_CACHE_HOME or
// ~/.cache on Linux, ~/Library/Caches on macOS). It is "" when the system
// has no such directory.
func DefaultURLFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "poppy-browser", "live-url")
}

// DefaultOpener is the command that opens a file in the User's default web
// browser on this system, or nil if there is none.
func DefaultOpener() []string {
	switch runtime.GOOS {
	case "darwin":
		return []string{"open"}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler"}
	default:
		return []string{"xdg-open"}
	}
}

// OpenLive reads the live view's URL from urlFile and opens it with opener
// (nil: [DefaultOpener]). The URL never reaches opener's command line: it
// goes into launch.html, a page of mode 0600 beside urlFile that sends the
// web browser on, and opener is given that page's path. It fails, saying
// why and never with the token, when the file is missing or holds no live
// view URL, or when nothing answers at its address (the runtime is not
// running).
func OpenLive(ctx context.Context, urlFile string, opener []string) error {
	if urlFile == "" {
		return errors.New("opening the live view: no live view url file")
	}
	b, err := os.ReadFile(urlFile)
	if err != nil {
		return fmt.Errorf("opening the live view: %w (is the agent's poppy-browser running?)", err)
	}
	u, err := parseLiveURL(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("opening the live view: %s: %w", urlFile, err)
	}
	d := net.Dialer{Timeout: 3 * time.Second}
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return fmt.Errorf("opening the live view: nothing answers at %s (is the agent's poppy-browser running?)", u.Host)
	}
	c.Close()
	page := filepath.Join(filepath.Dir(urlFile), "launch.html")
	if err := writePrivate(page, launchPage(u.String())); err != nil {
		return fmt.Errorf("opening the live view: %w", err)
	}
	if opener == nil {
		opener = DefaultOpener()
	}
	if err := runHelper(ctx, append(opener[1:len(opener):len(opener)], page), opener[0]); err != nil {
		return fmt.Errorf("opening the live view: %w (open %s in a web browser)", err, page)
	}
	return nil
}

// parseLiveURL accepts only a live view URL: http, /live, a token.
func parseLiveURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "/live" || u.Query().Get("token") == "" {
		return nil, errors.New("the file holds no live view url")
	}
	return u, nil
}

// launchPage is an HTML page that goes on to target at once, and leaves
// the page itself out of the browser's history.
func launchPage(target string) []byte {
	t := html.EscapeString(target)
	return []byte(`<!doctype html><meta charset="utf-8"><title>poppy-browser live view</title>` +
		`<meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=` + t + `">` +
		`<p>Opening the live view&hellip; <a href="` + t + `">open it</a>.</p>` + "\n")
}

// writePrivate writes b to path with mode 0600, replacing it atomically,
// creating its directory with mode 0700.
func writePrivate(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".launch-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// runHelper runs a helper program with args, bounded by helperTimeout.
func runHelper(ctx context.Context, args []string, name string) error {
	ctx, cancel := context.WithTimeout(ctx, helperTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		// %v, not %w: the helper's exit status is not ours (main exits
		// with an error's ExitCode, and xdg-open's 3 is not an exit code
		// the README gives).
		if msg != "" {
			return fmt.Errorf("%s: %v: %s", filepath.Base(name), err, msg)
		}
		return fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	return nil
}
