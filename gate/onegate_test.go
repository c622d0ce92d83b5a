package gate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
)

// TestOneGatePerControl: a second gate on a Control that has one (the
// agent's gate or a checker's probe view) is refused, so one keeper holds
// a Control's refs, epoch and input lease; another Control gets its own.
func TestOneGatePerControl(t *testing.T) {
	for _, second := range []string{"gate", "prober"} {
		t.Run(second, func(t *testing.T) {
			ctl := control.New(nil)
			g := gate.New(&gate.Options{Control: ctl})
			t.Cleanup(func() { _ = g.Close(t.Context()) })
			err := refused(func() {
				if second == "gate" {
					gate.New(&gate.Options{Control: ctl})
				} else {
					gate.NewProber(&gate.Options{Control: ctl})
				}
			})
			if err == nil || !strings.Contains(err.Error(), "one per control") {
				t.Errorf("a second %s on one control: %v, want it refused (one per control)", second, err)
			}
			other := gate.New(&gate.Options{Control: control.New(nil)})
			_ = other.Close(t.Context())
		})
	}
}

// refused runs build and returns what it refused with (its panic).
func refused(build func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	build()
	return nil
}
