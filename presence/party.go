package presence

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/poppy-browser/poppy-browser/control"
)

// CeremonyTimeout is how long the User has to answer one ceremony (the
// browser's own prompt); an answer after it is refused.
const CeremonyTimeout = 2 * time.Minute

// Party is one relying party: the RP ID (a host name, never an IP: on
// loopback "localhost") and the one origin its ceremonies run on, with the
// store its credentials are in.
type Party struct {
	rpID   string
	origin string
	store  *Store
	wa     *webauthn.WebAuthn
	now    func() time.Time
}

// RPIDOf is the RP ID of a page served at origin: its host, where it can
// be one ("" for an IP address, which WebAuthn does not allow).
func RPIDOf(origin string) string {
	u, err := url.Parse(origin)
	if err != nil || u.Hostname() == "" || net.ParseIP(u.Hostname()) != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// NewParty is the relying party of pages served at origin
// (http://localhost:PORT, or an https origin), with credentials in store.
// An origin whose host is an IP address cannot have one.
func NewParty(origin string, store *Store) (*Party, error) {
	rpID := RPIDOf(origin)
	if rpID == "" {
		return nil, fmt.Errorf("passkeys for %s: an IP address cannot be a WebAuthn RP ID (serve it as localhost or a host name)", origin)
	}
	if store == nil {
		return nil, errors.New("passkeys: no store")
	}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          rpID,
		RPDisplayName: "poppy-browser",
		RPOrigins:     []string{origin},
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			UserVerification: protocol.VerificationRequired,
			ResidentKey:      protocol.ResidentKeyRequirementPreferred,
		},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: CeremonyTimeout, TimeoutUVD: CeremonyTimeout},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: CeremonyTimeout, TimeoutUVD: CeremonyTimeout},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("passkeys for %s: %w", origin, err)
	}
	return &Party{rpID: rpID, origin: origin, store: store, wa: wa, now: time.Now}, nil
}

// RPID is the party's RP ID.
func (p *Party) RPID() string { return p.rpID }

// Paired reports how many devices are paired for this party.
func (p *Party) Paired() int {
	devs, err := p.store.List()
	if err != nil {
		return 0
	}
	n := 0
	for _, d := range devs {
		if d.RPID == p.rpID {
			n++
		}
	}
	return n
}

// Assertion is one assertion ceremony begun: finish it once.
type Assertion struct {
	session webauthn.SessionData
}

// ErrNoDevices is returned by [Party.BeginAssertion] when no device is
// paired for the party.
var ErrNoDevices = errors.New("no device is paired with this runtime: pair one with `poppy-browser pair` or the terminal UI")

// BeginAssertion starts an assertion with user verification required,
// allowing the paired devices. options is the JSON the page passes to
// navigator.credentials.get (after decoding its base64url fields).
func (p *Party) BeginAssertion() (options []byte, a *Assertion, err error) {
	u, err := p.store.user(p.rpID, false)
	if err != nil {
		return nil, nil, err
	}
	if len(u.creds) == 0 {
		return nil, nil, ErrNoDevices
	}
	opts, session, err := p.wa.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, nil, fmt.Errorf("beginning a passkey assertion: %w", err)
	}
	b, err := json.Marshal(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("beginning a passkey assertion: %w", err)
	}
	return b, &Assertion{session: *session}, nil
}

// FinishAssertion verifies response (the page's PublicKeyCredential as
// JSON) against a: the challenge, origin and RP ID, the signature of a
// paired device, user verification, and a signature counter that
// advanced. It returns the proof it makes, and saves the new counter.
func (p *Party) FinishAssertion(a *Assertion, response []byte) (control.Proof, error) {
	if a == nil {
		return control.Proof{}, errors.New("passkey assertion: no ceremony begun")
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(response)
	if err != nil {
		return control.Proof{}, fmt.Errorf("passkey assertion: %s", describe(err))
	}
	// Read the store again: a device revoked since the ceremony began is
	// not paired any more.
	u, err := p.store.user(p.rpID, false)
	if err != nil {
		return control.Proof{}, err
	}
	cred, err := p.wa.ValidateLogin(u, a.session, parsed)
	if err != nil {
		return control.Proof{}, fmt.Errorf("passkey assertion: %s", describe(err))
	}
	if !parsed.Response.AuthenticatorData.Flags.HasUserVerified() {
		return control.Proof{}, errors.New("passkey assertion: the device did not verify the User")
	}
	if cred.Authenticator.CloneWarning {
		return control.Proof{}, errors.New("passkey assertion: the device's signature counter did not advance (a copy of the credential, or a replay)")
	}
	if err := p.store.used(*cred); err != nil {
		return control.Proof{}, fmt.Errorf("passkey assertion: %w", err)
	}
	return control.Proof{Kind: control.ProofPasskey, Credential: credentialID(cred.ID), UserVerified: true}, nil
}

// Pairing is one registration ceremony begun: finish it once.
type Pairing struct {
	session webauthn.SessionData
}

// BeginPairing starts registering a new device, with user verification
// required and the devices already paired excluded. options is the JSON
// the page passes to navigator.credentials.create.
func (p *Party) BeginPairing() (options []byte, pr *Pairing, err error) {
	u, err := p.store.user(p.rpID, true)
	if err != nil {
		return nil, nil, err
	}
	opts, session, err := p.wa.BeginRegistration(u,
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			UserVerification: protocol.VerificationRequired,
			ResidentKey:      protocol.ResidentKeyRequirementPreferred,
		}),
		webauthn.WithExclusions(webauthn.Credentials(u.creds).CredentialDescriptors()))
	if err != nil {
		return nil, nil, fmt.Errorf("beginning a pairing: %w", err)
	}
	b, err := json.Marshal(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("beginning a pairing: %w", err)
	}
	return b, &Pairing{session: *session}, nil
}

// FinishPairing verifies response (the page's new PublicKeyCredential as
// JSON) against pr and saves the device as name. A device that did not
// verify the User is refused.
func (p *Party) FinishPairing(pr *Pairing, response []byte, name string) (Device, error) {
	if pr == nil {
		return Device{}, errors.New("pairing: no ceremony begun")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return Device{}, fmt.Errorf("pairing: %s", describe(err))
	}
	u, err := p.store.user(p.rpID, true)
	if err != nil {
		return Device{}, err
	}
	cred, err := p.wa.CreateCredential(u, pr.session, parsed)
	if err != nil {
		return Device{}, fmt.Errorf("pairing: %s", describe(err))
	}
	if !cred.Flags.UserVerified {
		return Device{}, errors.New("pairing: the device did not verify the User")
	}
	d := Device{ID: credentialID(cred.ID), Name: cleanName(name), RPID: p.rpID, Added: p.now().UTC(), Credential: *cred}
	if err := p.store.add(d); err != nil {
		return Device{}, err
	}
	return d, nil
}

// authenticatorRefusals names, in our words, the checks of the
// authenticator data that go-webauthn reports only in its developer info
// under one generic detail ("error validating the authenticator
// response"), so a refusal says which check failed.
var authenticatorRefusals = []struct{ info, words string }{
	{"RP Hash mismatch", "the device answered for another RP ID"},
	{"User presence required", "the device did not report the User present"},
	{"User verification required", "the device did not verify the User"},
}

// describe is a library error in one line: its details where it has them.
func describe(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		for _, r := range authenticatorRefusals {
			if strings.HasPrefix(pe.DevInfo, r.info) {
				return r.words
			}
		}
		return strings.ToLower(pe.Details[:1]) + pe.Details[1:]
	}
	return err.Error()
}

// cleanName keeps a device's name short and printable.
func cleanName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= ' ' && r != 0x7f && b.Len() < 60 {
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}
