package control_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestDeviceFollowsTheUser checks when the pages are shown on the User's
// screen and when the agent's viewport comes back: on a take with a device,
// a resize, and before a return is published; and that the take's audit
// line records the size.
func TestDeviceFollowsTheUser(t *testing.T) {
	phone := control.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}
	landscape := control.Device{Width: 844, Height: 390, Scale: 3, Mobile: true, Touch: true}
	for _, tc := range []struct {
		name    string
		kind    control.Kind // how the User gives control back
		failing bool         // the Device hook fails
		want    string       // the hook's calls
		device  *control.Device
	}{
		{name: "hand back", kind: control.HandedBack, want: "390x844 844x390 agent", device: &phone},
		{name: "cancel", kind: control.Cancelled, want: "390x844 844x390 agent", device: &phone},
		{name: "hook fails", kind: control.HandedBack, failing: true, want: "390x844 agent", device: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := control.TestContext(t)
			var calls []string
			var buf bytes.Buffer
			var c *control.Control
			c = control.New(&control.Options{
				Audit: audit.New(&buf, nil),
				Handover: &control.Hooks{Device: func(_ context.Context, d *control.Device) error {
					if d == nil {
						// The return is not published yet: the agent cannot act.
						if !tc.failing && c.Holder() != spec.ControllerUser {
							t.Error("agent's viewport restored after the return was published")
						}
						calls = append(calls, "agent")
						return nil
					}
					calls = append(calls, fmt.Sprintf("%dx%d", d.Width, d.Height))
					if tc.failing {
						return errors.New("page busy")
					}
					return nil
				}},
			})
			if err := c.User().TakeOn(ctx, &phone, control.Proof{Kind: control.ProofTerminal}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.device, c.Status().Device); diff != "" {
				t.Errorf("device after take (-want +got):\n%s", diff)
			}
			if !tc.failing {
				if err := c.User().Resize(ctx, &landscape); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			if tc.kind == control.Cancelled {
				err = c.User().Cancel(ctx)
			} else {
				err = c.User().HandBack(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(calls, " "); got != tc.want {
				t.Errorf("device hook calls = %q, want %q", got, tc.want)
			}
			if st := c.Status(); st.Device != nil || st.Epoch != 1 || !st.MustReobserve {
				t.Errorf("status after return = %+v, want no device, epoch 1, must reobserve", st)
			}
			if err := c.User().Resize(ctx, &phone); !errors.Is(err, control.ErrNotHeld) {
				t.Errorf("resize while the agent holds control = %v, want ErrNotHeld", err)
			}
			entries, err := audit.Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			var took *audit.Entry
			for i, e := range entries {
				if e.Event == audit.EventControl && e.How == audit.HowTake {
					took = &entries[i]
				}
			}
			if took == nil {
				t.Fatal("no take in the audit log")
			}
			var want *audit.Device
			if d := tc.device; d != nil {
				want = &audit.Device{Width: d.Width, Height: d.Height, Scale: d.Scale, Mobile: d.Mobile, Touch: d.Touch}
			}
			if diff := cmp.Diff(want, took.Device); diff != "" {
				t.Errorf("the take's audit device (-want +got):\n%s", diff)
			}
		})
	}
}
