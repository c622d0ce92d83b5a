package gate

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// verdict turns a refusing verdict into a denial, or returns nil.
func (r *run) verdict(ctx context.Context, f Frame, ref string, v marks.Verdict) *Result {
	switch {
	case v.Stale:
		res := r.denied(ctx, spec.ReasonStaleRef, staleMessage(ref))
		return &res
	case len(v.Marks) > 0:
		m := r.markRefs(f, v.Marks[0])
		res := r.denied(ctx, spec.ReasonUserStep, userStepMessage(m))
		res.Mark = m
		return &res
	case v.Obscured:
		res := r.failed(ctx, spec.ReasonObscured, fmt.Sprintf("Another element covers %s where a click would land, so nothing was clicked; close or scroll away what covers it, then take a new snapshot.", ref))
		return &res
	}
	return nil
}

// markRefs maps a verdict's local ids to refs of the current epoch,
// assigning new refs to elements the last snapshot did not list.
func (r *run) markRefs(f Frame, m marks.Mark) *MarkRefs {
	return &MarkRefs{
		Kind:    m.Kind,
		Marked:  r.g.refs.assign(f.ID, m.Marked, f.URL).ref,
		Touches: r.g.refs.assign(f.ID, m.Touches, f.URL).ref,
	}
}

func staleMessage(ref string) string {
	return fmt.Sprintf("Ref %s belongs to an older page epoch (the page changed, or control came back from the User); take a new snapshot with browser_snapshot and use its refs.", ref)
}

func userStepMessage(m *MarkRefs) string {
	what := "changing or activating " + m.Touches
	if m.Kind == spec.Submission {
		what = "submitting form " + m.Marked
	}
	return fmt.Sprintf("The Company leaves this step to the User: %s. %s", what, userStepAdvice(m))
}

func userStepAdvice(m *MarkRefs) string {
	return fmt.Sprintf("Do not try another way; offer them control: browser_request_user_control with ref %s and a short reason.", m.Touches)
}

// caughtByGuard is the refusal of an action whose input the in-page guard
// of frame stopped (caught has a mark).
func (r *run) caughtByGuard(ctx context.Context, frame Frame, caught *marks.Caught) Result {
	m := r.markRefs(frame, caught.Marks[0])
	where := ""
	if r.inOtherTab(frame) {
		where = fmt.Sprintf(" in another tab of the Session (%s)", clipText(frame.URL, 200))
	}
	res := r.denied(ctx, spec.ReasonUserStep, fmt.Sprintf("The in-page guard stopped this action's %s%s before the page saw it, because it reached a step the Company leaves to the User (%s mark on %s); the page changed under the action. %s",
		caught.Event, where, m.Kind, m.Marked, userStepAdvice(m)))
	res.Mark, res.CaughtBy = m, CaughtByGuard
	return res
}
