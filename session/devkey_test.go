package session

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
)

// TestDevKey: the first use makes the key (0600, in a 0700 directory), the
// next reads the same one, and both key files and the public PEM give the
// public key a Company trusts.
func TestDevKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "poppy-browser", "dev-agent-key.pem")
	first, err := LoadOrCreateDevKey(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	if dst, err := os.Stat(filepath.Dir(path)); err != nil || dst.Mode().Perm() != 0o700 {
		t.Errorf("key directory: %v, %v; want mode 0700", dst.Mode(), err)
	}
	again, err := LoadOrCreateDevKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Equal(again) {
		t.Error("a second use made a new key")
	}
	file, _ := os.ReadFile(path)
	for name, pemBytes := range map[string][]byte{"key file": file, "public PEM": MarshalPublicKey(first.Public().(ed25519.PublicKey))} {
		pub, err := ParsePublicKey(pemBytes)
		if err != nil || !pub.Equal(first.Public()) {
			t.Errorf("%s: %v, %v; want the key's public half", name, pub, err)
		}
	}
	if _, err := ParsePublicKey([]byte("not pem")); err == nil {
		t.Error("ParsePublicKey accepted text that is not PEM")
	}
	if DevSigner(first).SessionID != DevSigner(again).SessionID {
		t.Error("two signers of one key name different Sessions")
	}
}

func TestDevKeyRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateDevKey(path); err == nil {
		t.Error("a certificate was read as the development key")
	}
}
