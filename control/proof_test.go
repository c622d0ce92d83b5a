package control_test

import (
	"errors"
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
)

// TestTakeNeedsAProof: a take without a proof of the User's presence, or
// with one that lacks what its kind needs, is refused and changes
// nothing; a valid one is on the Taken event.
func TestTakeNeedsAProof(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proof control.Proof
		ok    bool
	}{
		{"none", control.Proof{}, false},
		{"an unknown kind", control.Proof{Kind: "link"}, false},
		{"a passkey without its id", control.Proof{Kind: control.ProofPasskey, UserVerified: true}, false},
		{"a passkey without user verification", control.Proof{Kind: control.ProofPasskey, Credential: "YQ"}, false},
		{"an identity without a subject", control.Proof{Kind: control.ProofIdentity}, false},
		{"a passkey", control.Proof{Kind: control.ProofPasskey, Credential: "YQ", UserVerified: true}, true},
		{"an identity", control.Proof{Kind: control.ProofIdentity, Subject: "h"}, true},
		{"the terminal", control.Proof{Kind: control.ProofTerminal}, true},
		{"an insecure link", control.Proof{Kind: control.ProofInsecureLink}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := control.New(nil)
			events, stop := c.Subscribe()
			defer stop()
			err := c.User().TakeOn(t.Context(), nil, tc.proof)
			if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, control.ErrNoProof)) {
				t.Fatalf("TakeOn = %v, want ok %v", err, tc.ok)
			}
			if !tc.ok {
				if c.Holder() != "agent" {
					t.Error("a refused take changed the holder")
				}
				return
			}
			e := <-events
			if e.Kind != control.Taken || e.Proof == nil || *e.Proof != tc.proof {
				t.Errorf("event %+v, want Taken with proof %+v", e, tc.proof)
			}
		})
	}
}
