package demoscript

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/presence"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// userDevice is the auto-user's stand-in for the User's phone: Chromium's
// virtual authenticator (user verification on), in a browser of its own
// (the User's, not the agent's), paired with the runtime through the live
// view's pairing link as a User pairs theirs from the terminal UI.
type userDevice struct {
	b   *browser.Browser
	dev *presencetest.Device
	dir string
}

// Its words in the story.
const deviceWords = "Chromium's virtual authenticator stands in for the User's phone"

// demoPasskeys is a passkey store of the demo's own, in a fresh folder:
// the auto-user's device is paired there, never in the User's config.
func demoPasskeys() (*presence.Store, string, error) {
	dir, err := os.MkdirTemp("", "poppy-demo-passkeys-")
	if err != nil {
		return nil, "", fmt.Errorf("demo: a passkey store: %w", err)
	}
	return presence.NewStore(filepath.Join(dir, presence.FileName)), dir, nil
}

// pairUserDevice starts the User's browser and pairs its authenticator
// with sv's live view.
func pairUserDevice(ctx context.Context, sv *supervisor.Supervisor, chromium string) (*userDevice, error) {
	b, err := browser.Launch(ctx, &browser.Options{ExecPath: chromium, Width: 390, Height: 844})
	if err != nil {
		return nil, fmt.Errorf("demo: the User's browser: %w", err)
	}
	p, err := b.NewPage(ctx)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("demo: the User's browser: %w", err)
	}
	link, err := sv.PairingLink()
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("demo: a pairing link: %w", err)
	}
	dev, err := presencetest.Pair(ctx, p, link.URL)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("demo: pairing the User's device: %w", err)
	}
	return &userDevice{b: b, dev: dev}, nil
}

// prove answers the live view's ceremony with the paired device.
func (d *userDevice) prove(ctx context.Context, options json.RawMessage) (json.RawMessage, error) {
	return presencetest.Assert(ctx, d.dev.Page, options)
}

func (d *userDevice) close() { d.b.Close() }

// giveDevice pairs the User's device and hands it to the auto-user.
func giveDevice(ctx context.Context, sv *supervisor.Supervisor, chromium string, u *testsite.AutoUser, say func(string, ...any)) (func(), error) {
	d, err := pairUserDevice(ctx, sv, chromium)
	if err != nil {
		return nil, err
	}
	say("user: pairs a passkey through the terminal's pairing link (%s)", deviceWords)
	u.ProveWith(d.prove, deviceWords)
	return d.close, nil
}
