package mcpserver

import (
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestNoticeNamesControlReturns: a return of control is counted as
// control_epoch and said as "return N of control", never as an "epoch"
// a reader could take for the page epoch of refs.
func TestNoticeNamesControlReturns(t *testing.T) {
	for _, kind := range []control.Kind{control.HandedBack, control.Cancelled} {
		n := noticeFor(control.Event{Kind: kind, To: spec.ControllerAgent, Epoch: 3})
		if n.ControlEpoch != 3 || n.Epoch != 3 || !strings.Contains(n.Message, "return 3 of control") || strings.Contains(n.Message, "epoch") {
			t.Errorf("%v: %+v", kind, n)
		}
	}
}
