package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
)

// TestPairCommand: `poppy-browser pair` prints a one-time pairing link in
// the User's terminal; a device (Chromium's virtual authenticator, user
// verification on) opened on it is paired and saved, mode 0600, and the
// command ends (the link is served no more); `pair --list` lists the device and `pair --revoke ID`
// forgets it.
func TestPairCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	store := filepath.Join(t.TempDir(), "passkeys.json")
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"pair", "--passkeys", store, "--ttl", "1m"}, strings.NewReader(""), pw, io.Discard)
		pw.CloseWithError(err)
		done <- err
	}()
	var out strings.Builder
	link := ""
	sc := bufio.NewScanner(pr)
	for link == "" && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if m := regexp.MustCompile(`http://localhost:\d+/pair/[A-Za-z0-9_-]+`).FindString(sc.Text()); m != "" {
			link = m
		}
	}
	if link == "" {
		t.Fatalf("pair printed no link:\n%s", out.String())
	}
	rest := make(chan struct{})
	go func() { // the rest of its output
		defer close(rest)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
		}
	}()
	page := userChromium(t).NewPage(t)
	dev, err := presencetest.Pair(ctx, page, link)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("pair: %v", err)
	}
	<-rest
	if !strings.Contains(out.String(), "paired "+dev.ID) {
		t.Errorf("pair's output does not name the device %s:\n%s", dev.ID, out.String())
	}
	// Its one link is spent: the command has stopped serving it.
	if _, err := page.Navigate(ctx, link); err == nil && evalText(ctx, t, page, "go") != "" {
		t.Error("the pairing link still offers a pairing after its use")
	}

	var list strings.Builder
	if err := run(ctx, []string{"pair", "--passkeys", store, "--list"}, strings.NewReader(""), &list, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list.String(), dev.ID) || !strings.Contains(list.String(), "localhost") {
		t.Errorf("pair --list:\n%s\nwant %s for localhost", list.String(), dev.ID)
	}
	if fi, err := statMode(store); err != nil || fi != 0o600 {
		t.Errorf("the store's mode = %v (%v), want 0600", fi, err)
	}
	if err := run(ctx, []string{"pair", "--passkeys", store, "--revoke", dev.ID}, strings.NewReader(""), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	list.Reset()
	if err := run(ctx, []string{"pair", "--passkeys", store, "--list"}, strings.NewReader(""), &list, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(list.String(), dev.ID) {
		t.Errorf("pair --list after --revoke still lists %s", dev.ID)
	}
	if err := run(ctx, []string{"pair", "--passkeys", store, "--revoke", dev.ID}, strings.NewReader(""), io.Discard, io.Discard); err == nil {
		t.Error("revoking an unknown device succeeded")
	}
}

func statMode(path string) (os.FileMode, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Perm(), nil
}

// evalText is the text of the element id on p ("" when none).
func evalText(ctx context.Context, t *testing.T, p *browser.Page, id string) string {
	t.Helper()
	var s string
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, `function(id){ const e = document.getElementById(id); return e ? e.textContent : "" }`, &s, id); err != nil {
		t.Fatal(err)
	}
	return s
}
