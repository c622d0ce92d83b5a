package presence

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
)

func TestRPIDOf(t *testing.T) {
	for _, tc := range []struct{ origin, want string }{
		{"http://localhost:8765", "localhost"},
		{"https://Agent.Example.com", "agent.example.com"},
		{"https://agent.example.com:8443", "agent.example.com"},
		{"http://127.0.0.1:8765", ""}, // an IP cannot be an RP ID
		{"http://[::1]:8765", ""},
		{"not a url", ""},
		{"", ""},
	} {
		if got := RPIDOf(tc.origin); got != tc.want {
			t.Errorf("RPIDOf(%q) = %q, want %q", tc.origin, got, tc.want)
		}
	}
	if _, err := NewParty("http://127.0.0.1:1", NewStore(filepath.Join(t.TempDir(), FileName))); err == nil {
		t.Error("NewParty accepted an IP address for an origin")
	}
}

// TestStore: the store is made mode 0600 in a folder of 0700, keeps one
// user handle, lists, finds and revokes devices; a revoked device's new
// counter is not saved back.
func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "poppy-browser")
	s := NewStore(filepath.Join(dir, FileName))
	if devs, err := s.List(); err != nil || len(devs) != 0 {
		t.Fatalf("a store with no file lists %v, %v", devs, err)
	}
	if _, err := s.user("localhost", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Errorf("a store never paired was written (%v)", err)
	}
	u1, err := s.user("localhost", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b", "a"} {
		if err := s.add(Device{ID: id, RPID: "localhost", Added: time.Date(2026, 12, 4, 12, len(id)+int(id[0]), 0, 0, time.UTC),
			Credential: webauthn.Credential{ID: []byte(id)}}); err != nil {
			t.Fatal(err)
		}
	}
	u2, err := s.user("localhost", false)
	if err != nil {
		t.Fatal(err)
	}
	if string(u1.id) != string(u2.id) || len(u1.id) != 32 || len(u2.creds) != 2 {
		t.Errorf("user handle %x then %x, creds %d: want one stable 32-byte handle and 2 credentials", u1.id, u2.id, len(u2.creds))
	}
	if u, _ := s.user("agent.example.com", false); len(u.creds) != 0 {
		t.Error("another RP ID sees this one's devices")
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, s.Path(): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	if !s.Has("a") || s.Has("c") {
		t.Error("Has is wrong")
	}
	if err := s.Revoke("a"); err != nil {
		t.Fatal(err)
	}
	if s.Has("a") {
		t.Error("a revoked device is still paired")
	}
	if err := s.Revoke("a"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("revoking it again: %v, want ErrNoDevice", err)
	}
	if err := s.used(webauthn.Credential{ID: []byte("a")}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("a revoked device's use: %v, want ErrNoDevice", err)
	}
	if err := os.WriteFile(s.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(); err == nil {
		t.Error("a broken store file read without an error")
	}
}

// TestAssertionRefusals: an answer with no ceremony begun, an answer that
// is not a credential, and a ceremony with no device paired prove nothing.
// (The browser's real ceremonies and their refusals: package ui's
// TestPasskeyTakes and TestPasskeyRefusals.)
func TestAssertionRefusals(t *testing.T) {
	store := NewStore(filepath.Join(t.TempDir(), FileName))
	p, err := NewParty("http://localhost:8765", store)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.BeginAssertion(); !errors.Is(err, ErrNoDevices) {
		t.Errorf("a ceremony with no device paired: %v, want ErrNoDevices", err)
	}
	if proof, err := p.FinishAssertion(nil, []byte(`{}`)); err == nil || proof.Kind != "" {
		t.Errorf("an answer with no ceremony: %+v, %v", proof, err)
	}
	if err := store.add(Device{ID: "YQ", RPID: "localhost", Credential: webauthn.Credential{ID: []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	opts, a, err := p.BeginAssertion()
	if err != nil || len(opts) == 0 {
		t.Fatalf("begin: %v", err)
	}
	for _, answer := range []string{``, `{}`, `null`, `{"id":"YQ","rawId":"YQ","type":"public-key","response":{}}`} {
		if proof, err := p.FinishAssertion(a, []byte(answer)); err == nil || proof.Kind != "" {
			t.Errorf("answer %q: %+v, %v, want refused", answer, proof, err)
		}
	}
}

// FuzzFinishAssertion: whatever a view sends as its answer, it never
// proves anything without a device's signature, and never panics.
func FuzzFinishAssertion(f *testing.F) {
	f.Add([]byte(`{"id":"YQ","rawId":"YQ","type":"public-key","response":{"authenticatorData":"AAAA","clientDataJSON":"e30","signature":"AA"}}`))
	f.Add([]byte(`{}`))
	store := NewStore(filepath.Join(f.TempDir(), FileName))
	if err := store.add(Device{ID: "YQ", RPID: "localhost", Credential: webauthn.Credential{ID: []byte("a")}}); err != nil {
		f.Fatal(err)
	}
	p, err := NewParty("http://localhost:8765", store)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		_, a, err := p.BeginAssertion()
		if err != nil {
			t.Fatal(err)
		}
		if proof, err := p.FinishAssertion(a, answer); err == nil || proof.Kind != "" {
			t.Fatalf("an answer without a signature proved %+v", proof)
		}
	})
}
