package browser_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// TestInitialPageAttached: attached to a Chromium started on its own,
// InitialPage drives the blank tab that browser already has rather than
// opening one; only when there is no blank tab does it open exactly one.
func TestInitialPageAttached(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	path, err := browser.FindChromium()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{testHosts.args[0], "--headless", "--remote-debugging-port=0", "--user-data-dir=" + t.TempDir(), "--no-first-run", "--disable-gpu"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(path, append(args, "about:blank")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	wsURL := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`DevTools listening on (ws://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				wsURL <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-wsURL:
	case <-ctx.Done():
		t.Fatal("the separately started Chromium never said where DevTools listens")
	}
	b, err := browser.Launch(ctx, &browser.Options{CDPURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	first, err := b.InitialPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Pages()); n != 1 {
		t.Errorf("%d tabs after InitialPage, want the browser's own one", n)
	}
	// With no blank tab left, InitialPage opens exactly one.
	if _, err := first.Navigate(ctx, "http://company.test/landing"); err != nil {
		t.Fatal(err)
	}
	second, err := b.InitialPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second.TargetID() == first.TargetID() || len(b.Pages()) != 2 {
		t.Errorf("InitialPage with no blank tab: same tab %v, %d tabs", second.TargetID() == first.TargetID(), len(b.Pages()))
	}
}
