package session

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The development agent: a Personal Agent key kept in the User's config
// directory, so that a join can be tried from outside the tests (the
// testsite trusts it) without a real Personal Agent.
const (
	// DevIssuer is the iss of every development credential.
	DevIssuer = "https://dev-agent.poppy-browser.invalid"
	// DevSubject is the sub of every development credential: the guest
	// the Company's pages greet after the join.
	DevSubject = "dev-guest"
	// devKeyFile is the key's name under the config directory.
	devKeyFile = "poppy-browser/dev-agent-key.pem"
)

// DefaultDevKeyPath is where the development key lives: poppy-browser/
// dev-agent-key.pem in the User's config directory ($XDG_CONFIG_HOME or
// ~/.config on Linux).
func DefaultDevKeyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the development key: %w", err)
	}
	return filepath.Join(dir, devKeyFile), nil
}

// LoadOrCreateDevKey reads the Ed25519 key (PKCS #8 PEM) at path, or makes
// one there (mode 0600, its directory 0700) when there is none yet.
func LoadOrCreateDevKey(path string) (ed25519.PrivateKey, error) {
	key, err := readDevKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	_, key, err = ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making the development key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("making the development key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("making the development key: %w", err)
	}
	// O_EXCL: two first starts at once keep one key, the one written first.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readDevKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("making the development key: %w", err)
	}
	_, werr := f.Write(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("making the development key: %w", werr)
	}
	return key, nil
}

func readDevKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the development key: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("reading the development key %s: not a PEM private key", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("reading the development key %s: %w", path, err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("reading the development key %s: not an Ed25519 key", path)
	}
	return key, nil
}

// DevSigner is the [KeySigner] of the development agent with key: iss
// [DevIssuer], sub [DevSubject], and a session_id derived from the key, so
// that every credential it signs names the same Session.
func DevSigner(key ed25519.PrivateKey) *KeySigner {
	sum := sha256.Sum256(key.Public().(ed25519.PublicKey))
	return &KeySigner{
		Key:       key,
		Issuer:    DevIssuer,
		Subject:   DevSubject,
		SessionID: "ses_dev_" + hex.EncodeToString(sum[:8]),
	}
}

// MarshalPublicKey encodes pub as a PEM public key (PKIX), the form
// [ParsePublicKey] reads.
func MarshalPublicKey(pub ed25519.PublicKey) []byte {
	der, _ := x509.MarshalPKIXPublicKey(pub) // an Ed25519 key always marshals
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// ParsePublicKey reads an Ed25519 key from PEM: a public key, or a private
// key (such as the development key file) whose public half it returns.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("reading an agent key: no PEM block")
	}
	var k any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		k, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "PRIVATE KEY":
		var priv any
		priv, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		if p, ok := priv.(ed25519.PrivateKey); ok {
			k = p.Public()
		}
	default:
		return nil, fmt.Errorf("reading an agent key: a %q PEM block, want PUBLIC KEY", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("reading an agent key: %w", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, errors.New("reading an agent key: not an Ed25519 key")
	}
	return pub, nil
}

// TrustedKeys reads the agent keys in files (PEM public keys), for a
// Company that accepts their credentials; with no files it makes or reads
// the development key and returns its path too, so that a caller can name
// it to dev-credential.
func TrustedKeys(files []string) (keys []ed25519.PublicKey, devKey string, err error) {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, "", fmt.Errorf("--trust-key: %w", err)
		}
		pub, err := ParsePublicKey(b)
		if err != nil {
			return nil, "", fmt.Errorf("--trust-key %s: %w", f, err)
		}
		keys = append(keys, pub)
	}
	if len(keys) > 0 {
		return keys, "", nil
	}
	devKey, err = DefaultDevKeyPath()
	if err != nil {
		return nil, "", err
	}
	key, err := LoadOrCreateDevKey(devKey)
	if err != nil {
		return nil, "", err
	}
	return []ed25519.PublicKey{key.Public().(ed25519.PublicKey)}, devKey, nil
}
