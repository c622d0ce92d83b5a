package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/supervisor"
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
	u.send(map[string]any{"type": "presence_begin"})
	m := u.await(ctx, "presence_challenge", nil, "presence_refused")
	if m["type"] != "presence_challenge" {
		u.t.Fatalf("the ceremony did not start: %v", m["message"])
	}
	opts, err := json.Marshal(m["options"])
	if err != nil {
		u.t.Fatal(err)
	}
	cred, err := presencetest.Assert(ctx, dev.Page, opts)
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
