package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// FindChromium returns the path of a Chromium or Chrome binary on PATH, or an
// error that names the command that installs one.
func FindChromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found on PATH; install it with: sudo apt-get install -y chromium")
}

// flags are our own list, not chromedp's defaults: those turn site isolation
// off, and we keep it on.
func flags(opts *Options, userDataDir string) []string {
	args := []string{
		"--remote-debugging-pipe",
		"--user-data-dir=" + userDataDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-extensions",
		"--disable-quic",
		"--disable-features=Translate,MediaRouter,OptimizationHints",
		"--site-per-process",
		"--password-store=basic",
		"--use-mock-keychain",
		"--metrics-recording-only",
		"--mute-audio",
	}
	if !opts.Headful {
		args = append(args, "--headless", "--hide-scrollbars")
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to run its sandbox as root.
		args = append(args, "--no-sandbox")
	}
	if !opts.Headful {
		args = append(args, "--disable-gpu")
	}
	args = append(args, fmt.Sprintf("--window-size=%d,%d", opts.width(), opts.height()))
	args = append(args, opts.Args...)
	return append(args, "about:blank")
}

// process is a Chromium we started.
type process struct {
	cmd     *exec.Cmd
	tmpDir  string
	output  *tailBuffer
	waitErr error
	exited  chan struct{}
}

func startProcess(ctx context.Context, opts *Options) (chromedp.Transport, *process, error) {
	path := opts.ExecPath
	if path == "" {
		var err error
		if path, err = FindChromium(); err != nil {
			return nil, nil, err
		}
	}
	dir := opts.UserDataDir
	tmp := ""
	if dir == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "poppy-browser-"); err != nil {
			return nil, nil, fmt.Errorf("starting chromium: %w", err)
		}
		dir = tmp
	}
	if err := writePreferences(dir); err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, nil, fmt.Errorf("starting chromium: %w", err)
	}
	// The process outlives ctx of the start: it is ended by Close.
	cmd := exec.Command(path, flags(opts, dir)...)
	cmd.Env = chromiumEnv(os.Environ()) // an allowlist: see env.go
	childR, parentW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("starting chromium: %w", err)
	}
	parentR, childW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("starting chromium: %w", err)
	}
	out := &tailBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{childR, childW} // fds 3 and 4
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		childR.Close()
		childW.Close()
		parentR.Close()
		parentW.Close()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, nil, fmt.Errorf("starting chromium %s: %w", path, err)
	}
	childR.Close()
	childW.Close()
	p := &process{cmd: cmd, tmpDir: tmp, output: out, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return chromedp.NewPipeConn(parentR, parentW), p, nil
}

// stop ends the process group (Chromium's helpers too) and removes the
// temporary profile.
func (p *process) stop() error {
	if p == nil {
		return nil
	}
	// The helpers may outlive the main process: end the group either way.
	killProcessGroup(p.cmd)
	<-p.exited
	if p.tmpDir != "" {
		if err := os.RemoveAll(p.tmpDir); err != nil {
			return fmt.Errorf("removing the temporary profile: %w", err)
		}
	}
	return nil
}

// lastLine is the last non-empty line Chromium printed, for start errors.
func (p *process) lastLine() string {
	sc := bufio.NewScanner(strings.NewReader(p.output.String()))
	last := ""
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	return last
}

// redactURL drops a DevTools URL's query and user info (a browser pool's
// token travels there), for errors.
func redactURL(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "the DevTools URL"
	}
	u.RawQuery, u.User, u.Fragment = "", nil, ""
	return u.String()
}

func dial(ctx context.Context, url string) (chromedp.Transport, error) {
	ws := url
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		var err error
		if ws, err = resolveWebSocketURL(ctx, url); err != nil {
			return nil, fmt.Errorf("attaching to %s: %w", redactURL(url), err)
		}
	}
	c, err := remote.DialContext(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("attaching to %s: %w", redactURL(url), err)
	}
	return c, nil
}

// resolveWebSocketURL asks a DevTools HTTP endpoint for its browser websocket.
func resolveWebSocketURL(ctx context.Context, base string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/json/version", nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		var ue *neturl.Error
		if errors.As(err, &ue) {
			return "", ue.Err // its URL may carry the pool's token
		}
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return "", fmt.Errorf("reading /json/version: %w", err)
	}
	if v.WebSocketDebuggerURL == "" {
		return "", errors.New("no webSocketDebuggerUrl in /json/version")
	}
	return v.WebSocketDebuggerURL, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

var _ io.Writer = (*tailBuffer)(nil)

// preferences turn off preloading (speculation-rules prefetch and
// prerender, "Preload pages" in the settings): the browser process makes
// those requests itself, where the interception that adds the
// Poppy-Extensions header does not see them (PROTOCOL.md), so a Company
// request would go without it.
const preferences = `{"net":{"network_prediction_options":2}}`

// writePreferences writes the profile's preferences before its first start,
// leaving a profile that has them alone.
func writePreferences(dir string) error {
	path := filepath.Join(dir, "Default", "Preferences")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(preferences), 0o600)
}
