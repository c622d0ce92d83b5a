package presence

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"

	"github.com/poppy-browser/poppy-browser/control"
)

// softKey is a software authenticator in the test: one ECDSA P-256
// credential (COSE ES256), its own signature counter, and flags it sets as
// told. It answers ceremonies as a device's WebAuthn response would, so
// the party's checks can be tried one by one without a browser.
type softKey struct {
	id      []byte
	key     *ecdsa.PrivateKey
	counter uint32
}

func newSoftKey(t *testing.T) *softKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		t.Fatal(err)
	}
	return &softKey{id: id, key: k}
}

const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagAT = 0x40 // attested credential data included
)

var b64 = base64.RawURLEncoding

// coseKey is the credential's public key as COSE (EC2, ES256, P-256).
func (s *softKey) coseKey(t *testing.T) []byte {
	t.Helper()
	pub, err := s.key.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		t.Fatal(err)
	}
	b, err := webauthncbor.Marshal(webauthncose.EC2PublicKeyData{
		PublicKeyData: webauthncose.PublicKeyData{KeyType: int64(webauthncose.EllipticKey), Algorithm: int64(webauthncose.AlgES256)},
		Curve:         int64(webauthncose.P256),
		XCoord:        pub[1:33],
		YCoord:        pub[33:],
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// authData is authenticator data for rpID with flags and counter.
func authData(rpID string, flags byte, counter uint32) []byte {
	h := sha256.Sum256([]byte(rpID))
	b := append(h[:], flags)
	return binary.BigEndian.AppendUint32(b, counter)
}

// challengeOf reads the challenge out of a ceremony's options JSON.
func challengeOf(t *testing.T, options []byte) string {
	t.Helper()
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(options, &o); err != nil || o.PublicKey.Challenge == "" {
		t.Fatalf("options without a challenge: %s (%v)", options, err)
	}
	return o.PublicKey.Challenge
}

func clientData(typ, challenge, origin string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": origin, "crossOrigin": false})
	return b
}

// register answers a pairing's options: a "none" attestation of a new
// credential, with flags as given.
func (s *softKey) register(t *testing.T, options []byte, rpID, origin string, flags byte) []byte {
	t.Helper()
	ad := authData(rpID, flags|flagAT, s.counter)
	ad = append(ad, make([]byte, 16)...) // AAGUID: none
	ad = binary.BigEndian.AppendUint16(ad, uint16(len(s.id)))
	ad = append(ad, s.id...)
	ad = append(ad, s.coseKey(t)...)
	att, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": ad})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{
		"id": b64.EncodeToString(s.id), "rawId": b64.EncodeToString(s.id), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response": map[string]string{
			"attestationObject": b64.EncodeToString(att),
			"clientDataJSON":    b64.EncodeToString(clientData("webauthn.create", challengeOf(t, options), origin)),
		},
	})
	return b
}

// assertion is how the soft key answers one assertion: what it signs.
type assertion struct {
	rpID, origin, challenge string
	flags                   byte
	counter                 uint32
}

// assert signs an assertion as told (it does not advance its own
// counter: the test says which counter to claim).
func (s *softKey) assert(t *testing.T, a assertion) []byte {
	t.Helper()
	ad := authData(a.rpID, a.flags, a.counter)
	cd := clientData("webauthn.get", a.challenge, a.origin)
	cdHash := sha256.Sum256(cd)
	digest := sha256.Sum256(append(bytes.Clone(ad), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, s.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{
		"id": b64.EncodeToString(s.id), "rawId": b64.EncodeToString(s.id), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response": map[string]string{
			"authenticatorData": b64.EncodeToString(ad),
			"clientDataJSON":    b64.EncodeToString(cd),
			"signature":         b64.EncodeToString(sig),
		},
	})
	return b
}

const testOrigin = "http://localhost:8765"

// pairedSoftKey is a party on testOrigin and a soft key paired with it
// through a real registration ceremony (user verified).
func pairedSoftKey(t *testing.T) (*Party, *softKey) {
	t.Helper()
	p, err := NewParty(testOrigin, NewStore(filepath.Join(t.TempDir(), FileName)))
	if err != nil {
		t.Fatal(err)
	}
	k := newSoftKey(t)
	opts, pr, err := p.BeginPairing()
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.FinishPairing(pr, k.register(t, opts, "localhost", testOrigin, flagUP|flagUV), "soft key")
	if err != nil {
		t.Fatalf("pairing the soft key: %v", err)
	}
	if d.ID != b64.EncodeToString(k.id) || p.Paired() != 1 {
		t.Fatalf("paired %+v (%d devices), want the soft key's id", d, p.Paired())
	}
	return p, k
}

// TestSoftAuthenticatorPairing: a device that did not verify the User is
// not paired; one that did is.
func TestSoftAuthenticatorPairing(t *testing.T) {
	p, err := NewParty(testOrigin, NewStore(filepath.Join(t.TempDir(), FileName)))
	if err != nil {
		t.Fatal(err)
	}
	k := newSoftKey(t)
	opts, pr, err := p.BeginPairing()
	if err != nil {
		t.Fatal(err)
	}
	if d, err := p.FinishPairing(pr, k.register(t, opts, "localhost", testOrigin, flagUP), "no uv"); err == nil {
		t.Fatalf("a device without user verification was paired: %+v", d)
	}
	if p.Paired() != 0 {
		t.Fatalf("%d devices paired after a refused pairing", p.Paired())
	}
	pairedSoftKey(t)
}

// TestSoftAuthenticatorAssertions tries the party's checks one at a time
// with a software authenticator: only an assertion with the ceremony's
// challenge, the live view's origin, its RP ID, user verification and a
// counter that advanced proves presence; each refusal says why in one
// line, and a refusal does not move the counter the store keeps.
func TestSoftAuthenticatorAssertions(t *testing.T) {
	p, k := pairedSoftKey(t)
	otherChallenge := b64.EncodeToString(bytes.Repeat([]byte{7}, 32))
	for _, tc := range []struct {
		name string
		// change alters the good assertion for the ceremony's challenge.
		change func(a *assertion)
		want   string // in the error
	}{
		{"no UV flag", func(a *assertion) { a.flags = flagUP }, "did not verify the user"},
		{"no UP flag, UV only", func(a *assertion) { a.flags = flagUV }, "present"},
		{"counter not advanced", func(a *assertion) { a.counter = 10 }, "counter"},
		{"counter regression", func(a *assertion) { a.counter = 3 }, "counter"},
		{"wrong origin", func(a *assertion) { a.origin = "http://localhost:9999" }, "origin"},
		{"another site's origin", func(a *assertion) { a.origin = "https://attacker.example" }, "origin"},
		{"wrong RP ID", func(a *assertion) { a.rpID = "attacker.example" }, "rp id"},
		{"wrong challenge", func(a *assertion) { a.challenge = otherChallenge }, "challenge"},
		{"a webauthn.create client data", nil, "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setCounter(t, p, k, 10)
			opts, a, err := p.BeginAssertion()
			if err != nil {
				t.Fatal(err)
			}
			as := assertion{rpID: "localhost", origin: testOrigin, challenge: challengeOf(t, opts), flags: flagUP | flagUV, counter: 11}
			var answer []byte
			if tc.change != nil {
				tc.change(&as)
				answer = k.assert(t, as)
			} else {
				answer = swapClientDataType(t, k, as)
			}
			proof, err := p.FinishAssertion(a, answer)
			if err == nil || proof.Kind != "" {
				t.Fatalf("proved %+v, want refused", proof)
			}
			if msg := strings.ToLower(err.Error()); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("refused with %q, want one line naming %q", err, tc.want)
			}
			if got := storedCounter(t, p, k); got != 10 {
				t.Errorf("the store's counter is %d after a refusal, want 10", got)
			}
		})
	}
}

// TestSoftAuthenticatorReplay: a good assertion proves presence once;
// sent again to the same ceremony, or to a new ceremony, it proves
// nothing; the next real assertion, with a counter that advanced, does.
func TestSoftAuthenticatorReplay(t *testing.T) {
	p, k := pairedSoftKey(t)
	opts, a, err := p.BeginAssertion()
	if err != nil {
		t.Fatal(err)
	}
	good := k.assert(t, assertion{rpID: "localhost", origin: testOrigin, challenge: challengeOf(t, opts), flags: flagUP | flagUV, counter: 1})
	proof, err := p.FinishAssertion(a, good)
	if err != nil {
		t.Fatalf("a good assertion: %v", err)
	}
	want := control.Proof{Kind: control.ProofPasskey, Credential: b64.EncodeToString(k.id), UserVerified: true}
	if proof != want {
		t.Fatalf("proof %+v, want %+v", proof, want)
	}
	if proof, err := p.FinishAssertion(a, good); err == nil {
		t.Errorf("the same assertion again, same ceremony: proved %+v", proof)
	}
	_, a2, err := p.BeginAssertion()
	if err != nil {
		t.Fatal(err)
	}
	if proof, err := p.FinishAssertion(a2, good); err == nil {
		t.Errorf("the same assertion in a new ceremony: proved %+v", proof)
	}
	opts3, a3, err := p.BeginAssertion()
	if err != nil {
		t.Fatal(err)
	}
	next := k.assert(t, assertion{rpID: "localhost", origin: testOrigin, challenge: challengeOf(t, opts3), flags: flagUP | flagUV, counter: 2})
	if _, err := p.FinishAssertion(a3, next); err != nil {
		t.Errorf("the device's next assertion after the replays: %v", err)
	}
}

// TestSoftAuthenticatorRevoked: a device revoked between the ceremony's
// start and its answer proves nothing.
func TestSoftAuthenticatorRevoked(t *testing.T) {
	p, k := pairedSoftKey(t)
	opts, a, err := p.BeginAssertion()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.store.Revoke(b64.EncodeToString(k.id)); err != nil {
		t.Fatal(err)
	}
	answer := k.assert(t, assertion{rpID: "localhost", origin: testOrigin, challenge: challengeOf(t, opts), flags: flagUP | flagUV, counter: 1})
	if proof, err := p.FinishAssertion(a, answer); err == nil {
		t.Fatalf("a revoked device proved %+v", proof)
	}
}

// swapClientDataType is a signed assertion whose client data says
// webauthn.create: a registration's client data replayed as a login.
func swapClientDataType(t *testing.T, k *softKey, as assertion) []byte {
	t.Helper()
	ad := authData(as.rpID, as.flags, as.counter)
	cd := clientData("webauthn.create", as.challenge, as.origin)
	cdHash := sha256.Sum256(cd)
	digest := sha256.Sum256(append(bytes.Clone(ad), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{
		"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"response": map[string]string{
			"authenticatorData": b64.EncodeToString(ad),
			"clientDataJSON":    b64.EncodeToString(cd),
			"signature":         b64.EncodeToString(sig),
		},
	})
	return b
}

// setCounter sets the counter the store keeps for k.
func setCounter(t *testing.T, p *Party, k *softKey, n uint32) {
	t.Helper()
	u, err := p.store.user(p.rpID, false)
	if err != nil || len(u.creds) != 1 {
		t.Fatalf("the soft key's credential: %v (%d)", err, len(u.creds))
	}
	c := u.creds[0]
	c.Authenticator.SignCount = n
	if err := p.store.used(c); err != nil {
		t.Fatal(err)
	}
}

// storedCounter is the counter the store keeps for k.
func storedCounter(t *testing.T, p *Party, k *softKey) uint32 {
	t.Helper()
	u, err := p.store.user(p.rpID, false)
	if err != nil || len(u.creds) != 1 || !bytes.Equal(u.creds[0].ID, k.id) {
		t.Fatalf("the soft key's credential: %v", err)
	}
	return u.creds[0].Authenticator.SignCount
}

// FuzzFinishPairing: whatever a pairing page sends as its new credential,
// no device is paired without a registration that verifies, and nothing
// panics. The seeds are a good registration's shape with no ceremony's
// challenge in it.
func FuzzFinishPairing(f *testing.F) {
	f.Add([]byte(`{"id":"YQ","rawId":"YQ","type":"public-key","response":{"attestationObject":"oA","clientDataJSON":"e30"}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"id":"YQ","rawId":"YQ","type":"public-key","response":{"attestationObject":"o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YUA","clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0"}}`))
	p, err := NewParty(testOrigin, NewStore(filepath.Join(f.TempDir(), FileName)))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		_, pr, err := p.BeginPairing()
		if err != nil {
			t.Fatal(err)
		}
		if d, err := p.FinishPairing(pr, answer, "fuzz"); err == nil {
			t.Fatalf("an answer to no challenge paired %+v", d)
		}
		if p.Paired() != 0 {
			t.Fatal("a device was paired")
		}
	})
}
