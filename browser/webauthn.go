package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
)

// VirtualAuthenticator is Chromium's virtual WebAuthn authenticator in a
// tab: a stand-in for the User's device (a phone's or laptop's passkey)
// in tests and in the demo's auto-user. It answers the tab's
// navigator.credentials calls by itself, its user-verification result as
// set.
type VirtualAuthenticator struct {
	p  *Page
	id webauthn.AuthenticatorID
}

// VirtualCredential is a credential a virtual authenticator holds, to
// carry it to another tab's authenticator (the same device in another
// view).
type VirtualCredential = webauthn.Credential

// AddVirtualAuthenticator enables WebAuthn's virtual authenticators in
// the tab and adds one: a platform authenticator (CTAP2, resident keys,
// user verification) whose user verification succeeds when verified is
// true and fails otherwise.
func (p *Page) AddVirtualAuthenticator(ctx context.Context, verified bool) (*VirtualAuthenticator, error) {
	if err := p.t.call(ctx, browserSide, webauthn.CommandEnable, webauthn.EnableParams{}, nil); err != nil {
		return nil, fmt.Errorf("enabling virtual authenticators: %w", err)
	}
	res, err := cdp.Call(ctx, guarded{p.t, browserSide}, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true,
			HasUserVerification: true, IsUserVerified: verified, AutomaticPresenceSimulation: true,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("adding a virtual authenticator: %w", err)
	}
	return &VirtualAuthenticator{p: p, id: res.AuthenticatorID}, nil
}

// SetUserVerified makes the authenticator's user verification succeed
// (true) or fail from now on.
func (a *VirtualAuthenticator) SetUserVerified(ctx context.Context, verified bool) error {
	return a.p.t.call(ctx, browserSide, webauthn.CommandSetUserVerified,
		webauthn.SetUserVerifiedParams{AuthenticatorID: a.id, IsUserVerified: verified}, nil)
}

// Credentials are the credentials the authenticator holds.
func (a *VirtualAuthenticator) Credentials(ctx context.Context) ([]*VirtualCredential, error) {
	res, err := cdp.Call(ctx, guarded{a.p.t, browserSide}, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: a.id})
	if err != nil {
		return nil, fmt.Errorf("reading a virtual authenticator's credentials: %w", err)
	}
	return res.Credentials, nil
}

// passkey is what WebAuthn.addCredential needs of a credential: cdproto's
// type always sends the CMTG extension's flag, which an authenticator
// without that extension refuses.
type passkey struct {
	CredentialID         []byte  `json:"credentialId"`
	IsResidentCredential bool    `json:"isResidentCredential"`
	RpID                 string  `json:"rpId"`
	PrivateKey           []byte  `json:"privateKey"`
	UserHandle           []byte  `json:"userHandle,omitempty"`
	SignCount            float64 `json:"signCount"`
	BackupEligibility    bool    `json:"backupEligibility"`
	BackupState          bool    `json:"backupState"`
}

// AddCredential puts c (from another tab's authenticator) in this one.
func (a *VirtualAuthenticator) AddCredential(ctx context.Context, c *VirtualCredential) error {
	params := struct {
		AuthenticatorID webauthn.AuthenticatorID `json:"authenticatorId"`
		Credential      passkey                  `json:"credential"`
	}{a.id, passkey{c.CredentialID, c.IsResidentCredential, c.RpID, c.PrivateKey, c.UserHandle, c.SignCount, c.BackupEligibility, c.BackupState}}
	if err := a.p.t.call(ctx, browserSide, webauthn.CommandAddCredential, params, nil); err != nil {
		return fmt.Errorf("adding a credential to a virtual authenticator: %w", err)
	}
	return nil
}

// Remove takes the authenticator out of its tab.
func (a *VirtualAuthenticator) Remove(ctx context.Context) error {
	return a.p.t.call(ctx, browserSide, webauthn.CommandRemoveVirtualAuthenticator,
		webauthn.RemoveVirtualAuthenticatorParams{AuthenticatorID: a.id}, nil)
}
