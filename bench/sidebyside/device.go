package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
)

// userDevice is the scripted User's passkey: Chromium's virtual
// authenticator (user verification on), in a browser of the User's own,
// paired beforehand with `poppy-browser pair --passkeys FILE`, as a User
// pairs theirs in the terminal. The server runs with the same store, so
// its take rests on a real ceremony, as the User's would.
type userDevice struct {
	b   *browser.Browser
	dev *presencetest.Device
	// on is the live view address the device's tab shows (the ceremony's
	// origin must be the live view's).
	on string
}

var pairLink = regexp.MustCompile(`http://localhost:\d+/pair/[A-Za-z0-9_-]+`)

// pairDevice runs `bin pair --passkeys store` and pairs a virtual
// authenticator through the link it prints.
func pairDevice(ctx context.Context, bin, chromium, store string) (*userDevice, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "pair", "--passkeys", store, "--ttl", "1m")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pair: %w", err)
	}
	defer func() { _ = cmd.Wait() }()
	link := ""
	sc := bufio.NewScanner(out)
	for link == "" && sc.Scan() {
		link = pairLink.FindString(sc.Text())
	}
	if link == "" {
		return nil, fmt.Errorf("pair printed no link")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	b, err := browser.Launch(ctx, &browser.Options{ExecPath: chromium, Width: 390, Height: 844})
	if err != nil {
		return nil, fmt.Errorf("the User's browser: %w", err)
	}
	p, err := b.NewPage(ctx)
	if err == nil {
		var dev *presencetest.Device
		if dev, err = presencetest.Pair(ctx, p, link); err == nil {
			return &userDevice{b: b, dev: dev}, nil
		}
	}
	b.Close()
	return nil, fmt.Errorf("pairing the User's device: %w", err)
}

// proveOn answers the ceremony of the live view at liveURL.
func (d *userDevice) proveOn(liveURL string) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, options json.RawMessage) (json.RawMessage, error) {
		if d.on != liveURL {
			if _, err := d.dev.Page.Navigate(ctx, liveURL); err != nil {
				return nil, err
			}
			d.on = liveURL
		}
		return presencetest.Assert(ctx, d.dev.Page, options)
	}
}

func (d *userDevice) close() { d.b.Close() }
