package desktop

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeOpener writes a script that records its arguments and a copy of the
// file it is given, as xdg-open would open it.
func fakeOpener(t *testing.T) (opener []string, argsFile, copyFile string) {
	dir := t.TempDir()
	argsFile, copyFile = filepath.Join(dir, "args"), filepath.Join(dir, "copy")
	script := filepath.Join(dir, "opener")
	body := "#!/bin/sh\necho \"$@\" > " + argsFile + "\ncat \"$1\" > " + copyFile + "\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return []string{script}, argsFile, copyFile
}

func TestOpenLiveKeepsTheTokenOffTheCommandLine(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const token = "s3cr3t-token-value"
	urlFile := filepath.Join(t.TempDir(), "cache", "live-url")
	if err := writePrivate(urlFile, []byte("http://"+l.Addr().String()+"/live?token="+token+"\n")); err != nil {
		t.Fatal(err)
	}
	opener, argsFile, copyFile := fakeOpener(t)
	if err := OpenLive(t.Context(), urlFile, opener); err != nil {
		t.Fatalf("OpenLive: %v", err)
	}
	args, _ := os.ReadFile(argsFile)
	if strings.Contains(string(args), token) || !strings.HasSuffix(strings.TrimSpace(string(args)), "launch.html") {
		t.Errorf("the opener was given %q, want the launch page's path and no token", args)
	}
	page, _ := os.ReadFile(copyFile)
	if !strings.Contains(string(page), "url=http://"+l.Addr().String()+"/live?token="+token) {
		t.Errorf("the launch page does not send the browser to the live view: %s", page)
	}
	fi, err := os.Stat(filepath.Join(filepath.Dir(urlFile), "launch.html"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("launch page: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
}

func TestOpenLiveFailuresSayWhy(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close() // nothing answers there now
	const token = "tok-never-shown"
	cases := map[string]struct{ content, want string }{
		"missing":     {"", "no such file"},
		"not a url":   {"hello " + token, "holds no live view url"},
		"not live":    {"http://127.0.0.1:1/other?token=" + token, "holds no live view url"},
		"not running": {"http://" + gone + "/live?token=" + token, "nothing answers at " + gone},
	}
	for name, c := range cases {
		f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if c.content != "" {
			os.WriteFile(f, []byte(c.content), 0o600)
		}
		opener, argsFile, _ := fakeOpener(t)
		err := OpenLive(t.Context(), f, opener)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line with %q and no token", name, err, c.want)
		}
		if _, err := os.Stat(argsFile); err == nil {
			t.Errorf("%s: the opener ran", name)
		}
	}
}

func TestNotifyIsBestEffort(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no notify-send, no osascript
	if Notify(t.Context(), "title", "body") {
		t.Error("Notify reported a notification without a helper")
	}
}
