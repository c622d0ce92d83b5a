// Package presencetest stands in for the User's device in tests: it adds
// Chromium's virtual authenticator (WebAuthn, user verification) to a tab
// and pairs it through a pairing link, as the User would with their phone
// or laptop, and it answers a live view's ceremony with that device.
package presencetest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Device is a paired virtual authenticator in a tab.
type Device struct {
	Page          *browser.Page
	Authenticator *browser.VirtualAuthenticator
	// ID is the paired credential's id, as the pairing page showed it (and
	// as the audit log's proof names it).
	ID string
}

// Pair opens pairURL (a pairing link) in p, adds a virtual authenticator
// whose user verification succeeds, presses the page's button with a real
// click, and waits for the page to say the device is paired.
func Pair(ctx context.Context, p *browser.Page, pairURL string) (*Device, error) {
	a, err := p.AddVirtualAuthenticator(ctx, true)
	if err != nil {
		return nil, err
	}
	if _, err := p.Navigate(ctx, pairURL); err != nil {
		return nil, fmt.Errorf("opening the pairing link: %w", err)
	}
	if err := Click(ctx, p, "#go"); err != nil {
		return nil, fmt.Errorf("pressing Pair: %w", err)
	}
	var out struct{ Done, Why, ID string }
	for {
		err := p.MainFrame().Call(ctx, browser.UtilityWorld, `function(){
			const t = (id) => (document.getElementById(id) || {}).textContent || "";
			const m = /passkey id is ([A-Za-z0-9_-]+)/.exec(t("done"));
			return {Done: t("done"), Why: t("why"), ID: m ? m[1] : ""} }`, &out)
		if err == nil && out.ID != "" {
			return &Device{Page: p, Authenticator: a, ID: out.ID}, nil
		}
		if err == nil && out.Why != "" {
			return nil, fmt.Errorf("pairing refused: %s", out.Why)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the pairing: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Carry puts d's passkey in the virtual authenticator of another tab q
// (verified as given): the same device, seen from another view.
func (d *Device) Carry(ctx context.Context, q *browser.Page, verified bool) (*browser.VirtualAuthenticator, error) {
	creds, err := d.Authenticator.Credentials(ctx)
	if err != nil {
		return nil, err
	}
	a, err := q.AddVirtualAuthenticator(ctx, verified)
	if err != nil {
		return nil, err
	}
	for _, c := range creds {
		if err := a.AddCredential(ctx, c); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Click presses the element sel of p with a real mouse click (a user
// activation, as a person's).
func Click(ctx context.Context, p *browser.Page, sel string) error {
	r, err := p.Locate(ctx, sel)
	if err != nil {
		return err
	}
	return p.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2)
}

// Assert answers a ceremony's options (a "presence_challenge" message's
// options) with the authenticator of p, which must show a page of the
// live view's origin: the PublicKeyCredential as JSON, as the live view's
// page sends it. A refusal by the device is an error.
func Assert(ctx context.Context, p *browser.Page, options json.RawMessage) (json.RawMessage, error) {
	var out json.RawMessage
	err := p.MainFrame().Call(ctx, "", `async function(options) {
		const b = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
		const e = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
		const pk = options.publicKey;
		pk.challenge = b(pk.challenge);
		for (const c of pk.allowCredentials || []) c.id = b(c.id);
		const cred = await navigator.credentials.get({ publicKey: pk });
		const r = cred.response;
		return { id: cred.id, rawId: e(cred.rawId), type: cred.type, clientExtensionResults: {},
			response: { authenticatorData: e(r.authenticatorData), clientDataJSON: e(r.clientDataJSON),
				signature: e(r.signature), userHandle: r.userHandle ? e(r.userHandle) : null } };
	}`, &out, options)
	if err != nil {
		return nil, fmt.Errorf("the device's assertion: %w", err)
	}
	return out, nil
}
