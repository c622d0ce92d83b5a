package browsertest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/internal/chromium"
	"github.com/poppy-browser/poppy-browser/internal/childenv"
	"github.com/poppy-browser/poppy-browser/internal/tail"
)

// Chromium is a Chromium a test started on its own, listening for DevTools
// on a loopback port: a browser the runtime attaches to (Options.CDPURL),
// as to a pool's. Make it with [StartChromium].
type Chromium struct {
	// URL is the browser's DevTools websocket URL (ws://127.0.0.1:PORT/...).
	URL string

	cmd    *exec.Cmd
	out    *tail.Buffer
	exited chan struct{}
	once   sync.Once
}

// ChromiumOptions configure [StartChromium]; nil means any free port.
type ChromiumOptions struct {
	Port int      // the DevTools port; 0 picks a free one
	Args []string // more flags, e.g. --host-resolver-rules
}

// StartChromium starts Chromium in its own process group with a fresh
// profile under tb.TempDir() and returns once it says where DevTools
// listens (bounded by ctx). At cleanup, before the profile is removed, the
// whole group is killed and waited for ([Chromium.Kill]): Chromium's
// helpers outlive its main process and keep writing the profile.
func StartChromium(tb testing.TB, ctx context.Context, opts *ChromiumOptions) *Chromium {
	tb.Helper()
	if opts == nil {
		opts = &ChromiumOptions{}
	}
	bin, err := browser.FindChromium()
	if err != nil {
		tb.Fatal(err)
	}
	profile := tb.TempDir() // removed after the Cleanup below has run
	args := []string{"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		fmt.Sprintf("--remote-debugging-port=%d", opts.Port), "--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + profile, "--site-per-process"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium refuses its sandbox as root
	}
	args = append(append(args, opts.Args...), "about:blank")
	c := &Chromium{cmd: exec.Command(bin, args...), out: &tail.Buffer{Max: 16 << 10}, exited: make(chan struct{})}
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	c.cmd.Stdout = c.out
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Kill)
	urls := make(chan string, 1)
	go func() {
		// Ends at EOF, once the last process of the group holding stderr is gone.
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(c.out, line)
			if _, u, ok := strings.Cut(line, "DevTools listening on "); ok {
				urls <- strings.TrimSpace(u)
				break
			}
		}
		_, _ = io.Copy(c.out, stderr)
		_ = c.cmd.Wait()
		close(c.exited)
	}()
	select {
	case c.URL = <-urls:
		return c
	case <-c.exited:
		tb.Fatalf("the separate Chromium exited before DevTools listened; it said: %s", c.out.LastLine())
	case <-ctx.Done():
		tb.Fatalf("waited in vain for the separate Chromium to say where DevTools listens; it said: %s", c.out.LastLine())
	}
	return nil
}

// StartPlain starts a plain Chromium opening url: the runtime's own flags
// and profile preferences (a fresh profile under tb.TempDir()), plus args,
// but no DevTools connection and nothing of the runtime attached, for a
// page to be measured against the same page under poppy-browser. It
// returns once the process started; the page reports to its own server.
// At cleanup the whole process group is killed and waited for.
func StartPlain(tb testing.TB, args []string, url string) *Chromium {
	tb.Helper()
	bin, err := browser.FindChromium()
	if err != nil {
		tb.Fatal(err)
	}
	argv, err := chromium.PlainArgs(chromium.Config{Width: 1280, Height: 800, Args: args}, tb.TempDir(), url)
	if err != nil {
		tb.Fatal(err)
	}
	c := &Chromium{cmd: exec.Command(bin, argv...), out: &tail.Buffer{Max: 16 << 10}, exited: make(chan struct{})}
	c.cmd.Env = childenv.Keep(os.Environ(), childenv.Chromium)
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	if err := c.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Kill)
	go func() {
		_ = c.cmd.Wait()
		close(c.exited)
	}()
	return c
}

// Kill kills the browser's process group (as a pool replacing a browser
// would, or a crash), waits for the main process and for every helper to
// be gone. Safe to call more than once and from cleanup.
func (c *Chromium) Kill() {
	c.once.Do(func() {
		chromium.KillGroup(c.cmd.Process.Pid)
		<-c.exited
		chromium.WaitGroupGone(c.cmd.Process.Pid)
	})
}

// Exited is closed when the main process has exited.
func (c *Chromium) Exited() <-chan struct{} { return c.exited }

// Output is the tail of what the browser printed, for failure messages.
func (c *Chromium) Output() string { return c.out.String() }
