package presence

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
)

// TestStoreForSubject: a device paired for one subject is that subject's
// alone: another subject's view, and the runtime's own User's, neither
// list it nor offer it to a ceremony; each subject has its own user
// handle; a revoke by id reaches it from any view.
func TestStoreForSubject(t *testing.T) {
	root := NewStore(filepath.Join(t.TempDir(), FileName))
	alice, bob := root.ForSubject("sha256:aa"), root.ForSubject("sha256:bb")
	add := func(s *Store, id string) {
		t.Helper()
		if _, err := s.user("localhost", true); err != nil {
			t.Fatal(err)
		}
		if err := s.add(Device{ID: id, RPID: "localhost", Added: time.Now(), Credential: webauthn.Credential{ID: []byte(id)}}); err != nil {
			t.Fatal(err)
		}
	}
	add(alice, "YQ")
	add(root, "Ug")
	for _, tc := range []struct {
		name string
		s    *Store
		want string
	}{{"alice", alice, "YQ"}, {"bob", bob, ""}, {"the runtime's own User", root, "Ug"}} {
		devs, err := tc.s.List()
		if err != nil {
			t.Fatal(err)
		}
		u, err := tc.s.user("localhost", false)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(devs) == 1 && len(u.creds) == 1 {
			got = devs[0].ID
		} else if len(devs) != 0 || len(u.creds) != 0 {
			got = "several"
		}
		if got != tc.want {
			t.Errorf("%s sees %q (%d listed, %d for a ceremony), want %q", tc.name, got, len(devs), len(u.creds), tc.want)
		}
		if tc.want == "YQ" && (!tc.s.Has("YQ") || tc.s.Has("Ug")) {
			t.Errorf("%s: Has is not the view's", tc.name)
		}
	}
	ua, _ := alice.user("localhost", false)
	ur, _ := root.user("localhost", false)
	if len(ua.id) == 0 || bytes.Equal(ua.id, ur.id) {
		t.Error("a subject shares the runtime's own user handle")
	}
	if err := bob.Revoke("YQ"); err != nil {
		t.Fatal(err)
	}
	if alice.Has("YQ") {
		t.Error("the revoked device is still paired")
	}
}
