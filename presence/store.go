package presence

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
)

// FileName is the store's file in poppy-browser's config directory.
const FileName = "passkeys.json"

// Device is one paired passkey.
type Device struct {
	// ID is the credential's id, base64url without padding: what the
	// audit log's proof names, and what `pair --revoke` takes.
	ID string `json:"id"`
	// Name is what the User called it when pairing ("" for none).
	Name string `json:"name,omitempty"`
	// RPID is the relying party (host) it was registered for.
	RPID string `json:"rp_id"`
	// Subject is the hash of the User it was paired for over --http with
	// OAuth (sha256: of the token's sub), "" for the runtime's own User.
	// It proves presence for sessions of that subject only.
	Subject string    `json:"subject,omitempty"`
	Added   time.Time `json:"added"`
	// Credential is the public key and its counter, as go-webauthn keeps it.
	Credential webauthn.Credential `json:"credential"`
}

// storeFile is the file's shape.
type storeFile struct {
	// User is this runtime's WebAuthn user handle (random, made once).
	User []byte `json:"user"`
	// Users are the handles of the subjects' users, by subject hash.
	Users   map[string][]byte `json:"users,omitempty"`
	Devices []Device          `json:"devices"`
}

// Store is the paired devices, kept in one file (mode 0600; its folder
// 0700). The zero Store is not usable: make it with [NewStore]. It is safe
// for concurrent use within one process; each call reads the file afresh.
type Store struct {
	path    string
	subject string // the view's subject hash ("" for the runtime's own User)
	mu      *sync.Mutex
}

// NewStore is the store in file path (which need not exist yet): the
// devices of the runtime's own User.
func NewStore(path string) *Store { return &Store{path: path, mu: &sync.Mutex{}} }

// ForSubject is the view of s that holds the devices paired for one
// subject (its hash, as ui.SubjectHash gives it): the User of the
// sessions an OAuth token of that sub began. Its devices prove nothing
// for another subject's session, nor for the runtime's own User; the
// runtime's own User's prove nothing for it. "" is s's own User.
func (s *Store) ForSubject(subjectHash string) *Store {
	if s == nil {
		return nil
	}
	return &Store{path: s.path, subject: subjectHash, mu: s.mu}
}

// Subject is the view's subject hash, "" for the runtime's own User.
func (s *Store) Subject() string { return s.subject }

// DefaultPath is the store's file in the User's config directory
// (os.UserConfigDir()/poppy-browser/passkeys.json, as `config-path`).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the passkey store: %w", err)
	}
	return filepath.Join(dir, "poppy-browser", FileName), nil
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// RegisterFlag adds --passkeys to fs, the store of the User's paired
// devices, its default [DefaultPath] (empty when there is no config
// directory).
func RegisterFlag(fs *flag.FlagSet, path *string) {
	def, err := DefaultPath()
	if err != nil {
		def = ""
	}
	fs.StringVar(path, "passkeys", def, "the file of the User's paired passkeys (mode 0600; see poppy-browser pair); empty for none")
}

// ErrNoDevice is returned by [Store.Revoke] for an id no device has.
var ErrNoDevice = errors.New("no paired device has that id")

// List returns the devices paired for the view's User, oldest first.
func (s *Store) List() ([]Device, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	var out []Device
	for _, d := range f.Devices {
		if d.Subject == s.subject {
			out = append(out, d)
		}
	}
	return out, nil
}

// Revoke forgets the device with id, whoever it was paired for: it
// proves nothing from then on.
func (s *Store) Revoke(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	for i, d := range f.Devices {
		if d.ID == id {
			f.Devices = append(f.Devices[:i], f.Devices[i+1:]...)
			return s.write(f)
		}
	}
	return fmt.Errorf("revoking %q: %w", id, ErrNoDevice)
}

// Has reports whether the device id is paired (for rpID).
func (s *Store) Has(id string) bool {
	devs, err := s.List()
	if err != nil {
		return false
	}
	for _, d := range devs {
		if d.ID == id {
			return true
		}
	}
	return false
}

// user is the store's WebAuthn user for rpID. Its handle is made and
// saved on the first pairing (create); a store never paired is not
// written.
func (s *Store) user(rpID string, create bool) (*user, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	handle := f.User
	if s.subject != "" {
		handle = f.Users[s.subject]
	}
	if len(handle) == 0 && create {
		handle = make([]byte, 32)
		if _, err := rand.Read(handle); err != nil {
			return nil, fmt.Errorf("making a user handle: %w", err)
		}
		if s.subject == "" {
			f.User = handle
		} else {
			if f.Users == nil {
				f.Users = map[string][]byte{}
			}
			f.Users[s.subject] = handle
		}
		if err := s.write(f); err != nil {
			return nil, err
		}
	}
	u := &user{id: handle}
	for _, d := range f.Devices {
		if d.RPID == rpID && d.Subject == s.subject {
			u.creds = append(u.creds, d.Credential)
		}
	}
	return u, nil
}

// add saves a newly paired device.
func (s *Store) add(d Device) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	d.Subject = s.subject
	f.Devices = append(f.Devices, d)
	return s.write(f)
}

// used records a device's new counter after an assertion. A device
// revoked meanwhile stays revoked (ErrNoDevice).
func (s *Store) used(c webauthn.Credential) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	id := credentialID(c.ID)
	for i := range f.Devices {
		if f.Devices[i].ID == id && f.Devices[i].Subject == s.subject {
			f.Devices[i].Credential.Authenticator.SignCount = c.Authenticator.SignCount
			f.Devices[i].Credential.Flags = c.Flags
			return s.write(f)
		}
	}
	return ErrNoDevice
}

func (s *Store) read() (storeFile, error) {
	var f storeFile
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the passkey store: %w", err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("reading the passkey store %s: %w", s.path, err)
	}
	sort.SliceStable(f.Devices, func(i, j int) bool { return f.Devices[i].Added.Before(f.Devices[j].Added) })
	return f, nil
}

// write replaces the file atomically, mode 0600.
func (s *Store) write(f storeFile) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing the passkey store: %w", err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the passkey store: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".passkeys-*")
	if err != nil {
		return fmt.Errorf("writing the passkey store: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o600)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the passkey store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the passkey store: %w", err)
	}
	return nil
}

func credentialID(raw []byte) string { return base64.RawURLEncoding.EncodeToString(raw) }

// user is the runtime's one WebAuthn user: the User of this runtime.
type user struct {
	id    []byte
	creds []webauthn.Credential
}

func (u *user) WebAuthnID() []byte                         { return u.id }
func (u *user) WebAuthnName() string                       { return "poppy-browser user" }
func (u *user) WebAuthnDisplayName() string                { return "The User of poppy-browser" }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.creds }
