package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// pairDevice pairs a virtual authenticator in a tab of the User's own
// Chromium, through the pairing link the User's terminal shows: the
// User's device, as the tests' scripted User proves presence with it.
func pairDevice(t *testing.T, ctx context.Context, sv *supervisor.Supervisor) *presencetest.Device {
	t.Helper()
	pairing, err := sv.PairingLink()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := presencetest.Pair(ctx, userChromium(t).NewPage(t), pairing.URL)
	if err != nil {
		t.Fatal(err)
	}
	return dev
}

// prove runs the passkey ceremony in the scripted User's view: it asks
// for a challenge, has dev (a paired device, in a tab on the live view's
// origin) sign it, sends the answer, and waits until the view is proved.
func (u *user) prove(ctx context.Context, dev *presencetest.Device) {
	u.t.Helper()
	u.proveWith(ctx, func(ctx context.Context, options json.RawMessage) (json.RawMessage, error) {
		return presencetest.Assert(ctx, dev.Page, options)
	})
}

// proveWith is prove with the device's answer from prover.
func (u *user) proveWith(ctx context.Context, prover testsite.Prover) {
	u.t.Helper()
	u.send(map[string]any{"type": "presence_begin"})
	m := u.await(ctx, "presence_challenge", nil, "presence_refused")
	if m["type"] != "presence_challenge" {
		u.t.Fatalf("the ceremony did not start: %v", m["message"])
	}
	opts, err := json.Marshal(m["options"])
	if err != nil {
		u.t.Fatal(err)
	}
	cred, err := prover(ctx, opts)
	if err != nil {
		u.t.Fatal(err)
	}
	u.send(map[string]any{"type": "presence", "credential": cred})
	m = u.await(ctx, "state", func(m map[string]any) bool {
		p, _ := m["presence"].(map[string]any)
		return p != nil && p["proved"] == true
	}, "presence_refused")
	if m["type"] != "state" {
		u.t.Fatalf("the passkey was refused: %v", m["message"])
	}
}

// pairByCommand pairs a virtual authenticator, in a tab of the User's own
// Chromium, with `poppy-browser pair --passkeys store`, as the User does
// in their terminal before a run: the device a runtime started later with
// the same store accepts (its RP ID is localhost, whatever the port).
func pairByCommand(t *testing.T, ctx context.Context, store string) *presencetest.Device {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"pair", "--passkeys", store, "--ttl", "1m"}, strings.NewReader(""), pw, io.Discard)
		pw.CloseWithError(err)
		done <- err
	}()
	link := ""
	sc := bufio.NewScanner(pr)
	for link == "" && sc.Scan() {
		link = regexp.MustCompile(`http://localhost:\d+/pair/[A-Za-z0-9_-]+`).FindString(sc.Text())
	}
	if link == "" {
		t.Fatal("pair printed no link")
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	dev, err := presencetest.Pair(ctx, userChromium(t).NewPage(t), link)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("pair: %v", err)
	}
	return dev
}

// proverOn answers a live view's ceremonies with dev, from a tab showing
// the live view at liveURL (the ceremony's origin must be the live
// view's): the User's browser, on the link they were shown.
func proverOn(t *testing.T, dev *presencetest.Device, liveURL string) testsite.Prover {
	t.Helper()
	var opened bool
	return func(ctx context.Context, options json.RawMessage) (json.RawMessage, error) {
		if !opened {
			if _, err := dev.Page.Navigate(ctx, liveURL); err != nil {
				return nil, err
			}
			opened = true
		}
		return presencetest.Assert(ctx, dev.Page, options)
	}
}
