package main

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestCommandErrorMessages runs the binary on each mistake a user made in
// their first hour: a usage error (unknown flag, bad value, missing
// argument, a task the scripted model has no script for) is one line,
// prefixed once with the command, exit 2; a runtime error is one line with
// its real cause first, exit 1.
func TestCommandErrorMessages(t *testing.T) {
	bin := buildBinary(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	taken := busy.Addr().String()
	cases := []struct {
		args []string
		code int
		want string // the line after "poppy-browser: "
	}{
		{[]string{"check", "--bogus"}, 2, "check: flag provided but not defined: -bogus"},
		{[]string{"check"}, 2, "check: give at least one URL"},
		{[]string{"check", "--watch", "5m", "https://airline.test/"}, 2, "check: --watch 5m0s: give at most 1m0s"},
		{[]string{"check", "--fail-on", "sometimes", "https://airline.test/"}, 2, "check: --fail-on"},
		{[]string{"check", "--login-cmd", "true", "--storage-state", "state.json", "https://airline.test/"}, 2, "check: --login-cmd and --storage-state both give the login: give one"},
		{[]string{"check", "--login-cmd", "echo not-json", "https://airline.test/"}, 2, "check: login command: reading the storage state it printed: not Playwright's storage-state JSON"},
		{[]string{"run", "--company", "airline.test", "--task", "check me in", "--model", "foo"}, 2, `run: --model "foo": give scripted or openai`},
		{[]string{"run", "--company", "airline.test", "--task", "check me in", "--max-steps", "500"}, 2, "run: --max-steps 500: give a number from 1 to 200"},
		{[]string{"demo", "--model", "foo"}, 2, `demo: --model "foo"`},
		{[]string{"run", "--company", "airline.test", "--task", "What is the headline?"}, 2, "run: the scripted model has a script only for checking in at the demo airline"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--headful"}, 1, "mcp: --headful needs a display"},
		{[]string{"check", "--headful", "https://airline.test/"}, 2, "check: --headful needs a display"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--http", taken}, 1, "mcp: --http " + taken + ": the address is in use; choose another with --http"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--http", "127.0.0.1:0", "--instance", "rt.0"}, 2, `mcp: --instance "rt.0": want 1 to 63 letters, digits, '-' or '_'`},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--http", "127.0.0.1:0", "--live-tls-cert", "c.pem", "--live-tls-key", "k.pem"}, 2, "mcp: --live-tls-cert over --http needs --live ADDR"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--http", "0.0.0.0:0"}, 2, "mcp: the live views are on the --http listener"},
		{[]string{"testsite", "--addr", taken}, 1, "testsite: " + taken + " is in use: choose another with --addr"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--downloads-for-agent", "/nonexistent/downloads"}, 2, "mcp: --downloads-for-agent /nonexistent/downloads: not a folder"},
		{[]string{"dev-credential", "extra"}, 2, `dev-credential: unexpected argument "extra"`},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--live-user-header", "X-Auth-User=alice"}, 2, "mcp: --live-user-header is removed: use --live-identity-header NAME"},
		{[]string{"run", "--company", "airline.test", "--task", "check me in", "--live-user-header=X-Auth-User=alice"}, 2, "run: --live-user-header is removed: use --live-identity-header NAME"},
		{[]string{"live-link", "--live-user-header", "X-Auth-User=alice"}, 2, "live-link: --live-user-header is removed: use --live-identity-header NAME"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--live-identity-header", "X-Poppy-Identity", "--live-identity-jwks", "https://idp.example/jwks", "--live-identity-issuer", "https://idp.example", "--live-identity-audience", "poppy"}, 2, "mcp: --live-identity-header needs --user SUB"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--live-identity-header", "X-Poppy-Identity", "--live-identity-jwks", "http://idp.example/jwks", "--live-identity-issuer", "https://idp.example", "--live-identity-audience", "poppy", "--user", "alice"}, 2, `mcp: --live-identity-jwks "http://idp.example/jwks": want an https URL`},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--auth-issuer", "https://idp.example", "--auth-audience", "https://poppy.example/mcp"}, 2, "mcp: --auth-issuer and --auth-audience need --http"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--http", "127.0.0.1:0", "--auth-issuer", "http://idp.example", "--auth-audience", "https://poppy.example/mcp"}, 2, `mcp: --auth-issuer "http://idp.example": want an https URL`},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--http", "127.0.0.1:0", "--auth-issuer", "https://idp.example"}, 2, "mcp: --auth-issuer needs --auth-audience URI"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--http", "127.0.0.1:0", "--auth-issuer", "https://idp.example", "--auth-audience", "https://poppy.example/mcp", "--user", "alice"}, 2, "mcp: --user names one User"},
		{[]string{"mcp", "--company", "airline.test", "--no-join", "--live-identity-header", "X-Poppy-Identity", "--live-identity-jwks", "/nonexistent/jwks.json", "--live-identity-issuer", "https://idp.example", "--live-identity-audience", "poppy", "--user", "alice"}, 1, "mcp: reading --live-identity-jwks: open /nonexistent/jwks.json"},
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()} // no DISPLAY, no WAYLAND_DISPLAY
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, c.args...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code {
			t.Errorf("%v: %v, want exit status %d; stderr:\n%s", c.args, err, c.code, stderr.String())
			continue
		}
		got := strings.TrimSuffix(stderr.String(), "\n")
		if strings.Contains(got, "\n") || !strings.HasPrefix(got, "poppy-browser: "+c.want) {
			t.Errorf("%v: stderr %q, want one line starting %q", c.args, got, "poppy-browser: "+c.want)
		}
		if cmdName := c.args[0] + ": "; strings.Count(got, cmdName) != 1 {
			t.Errorf("%v: %q names the command %d times, want once", c.args, got, strings.Count(got, cmdName))
		}
	}
	out, err := exec.Command(bin, "run", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "script only for") || !strings.Contains(string(out), "openai (any") {
		t.Errorf("run --help does not say what the scripted model can do: %v\n%s", err, out)
	}
}

// TestCommandAutoUserFalseWithoutTerminal: --auto-user=false is honoured
// when stdin is not a terminal: the demo leaves the User's part to a
// person (in the live view) instead of playing it.
func TestCommandAutoUserFalseWithoutTerminal(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), "demo", "--auto-user=false", "--tui=false", "--live-url-file", "")
	var stderr syncBuffer
	sc := bufio.NewScanner(startInGroup(t, cmd, &stderr))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "user: ") {
			t.Fatalf("the demo played the User's part despite --auto-user=false: %q", line)
		}
		if strings.Contains(line, "you are the User") {
			return
		}
	}
	t.Fatalf("the demo ended without leaving the User's part to a person (%v)\nstderr:\n%s", ctx.Err(), stderr.String())
}

// TestOpenLiveOnAHeadlessMachineExitsOne: open-live where no web browser
// can be opened (no display: xdg-open itself exits 3) fails as the README
// says errors do: one line naming the cause, exit 1, not the opener's own
// exit status.
func TestOpenLiveOnAHeadlessMachineExitsOne(t *testing.T) {
	if _, err := exec.LookPath("xdg-open"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs xdg-open on Linux")
	}
	bin := buildBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	urlFile := filepath.Join(t.TempDir(), "live-url")
	if err := os.WriteFile(urlFile, []byte("http://"+l.Addr().String()+"/live?token=tok-never-shown\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "open-live", "--live-url-file", urlFile)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()} // no DISPLAY, no WAYLAND_DISPLAY, no BROWSER
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("open-live without a display: %v, want exit status 1; stderr:\n%s", err, stderr.String())
	}
	got := strings.TrimSuffix(stderr.String(), "\n")
	if strings.Contains(got, "\n") || !strings.HasPrefix(got, "poppy-browser: open-live: opening the live view: xdg-open") || strings.Contains(got, "tok-never-shown") {
		t.Errorf("stderr %q, want one line naming xdg-open and no token", got)
	}
}
