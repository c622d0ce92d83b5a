package gate

import (
	"context"
	"sync/atomic"

	"github.com/poppy-browser/poppy-browser/marks"
)

// NewProbe is a throwaway action for package gate_test: it names a ref,
// says it would click it, and counts its dispatches in n. Gate.Do must run
// the whole sequence for it as for any built-in action.
func NewProbe(ref string, n *atomic.Int32) Action { return probe{ref: ref, dispatched: n} }

// probe is NewProbe's action.
type probe struct {
	ref        string
	dispatched *atomic.Int32
}

func (probe) Tool() string { return "browser_probe" }

func (p probe) plan() plan {
	return plan{
		ref:   p.ref,
		touch: &marks.Action{Kind: marks.ActionClick},
		lease: inputLease,
		dispatch: func(context.Context, *step) error {
			p.dispatched.Add(1)
			return nil
		},
		done: func(ctx context.Context, st *step) Result { return st.done(ctx, "Probed "+st.target.ref+".") },
	}
}
