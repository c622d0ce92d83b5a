package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// fillChecks fills every submission form as the agent would (controls no
// interaction mark covers) and reports a submit, navigation or non-GET
// request that filling caused (section 4: SHOULD NOT).
func (r *pageRun) fillChecks(ctx context.Context, frames []frameData) error {
	for _, orig := range frames {
		if !orig.company {
			continue
		}
		for mi, m := range orig.inv {
			if spec.KindOf(m.Value, m.Form) != spec.Submission {
				continue
			}
			err := r.asAgent(func() error {
				all, err := r.reload(ctx)
				if err != nil {
					return err
				}
				if fd, ok := sameFrame(all, orig); ok {
					return r.fillForm(ctx, all, fd, fd.inv[mi], orig, m)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// fillForm fills form of fd (this load); orig and origForm are the frame
// and form of the first load, which findings point at.
func (r *pageRun) fillForm(ctx context.Context, all []frameData, fd frameData, form marks.Marking, orig frameData, origForm marks.Marking) error {
	rec, stop, err := r.record(ctx)
	if err != nil {
		return err
	}
	defer stop()
	formName := fd.describe(form.ID)
	for k, o := range form.Controls {
		since, before := r.clocks(ctx, all), len(rec.requests())
		if !r.fillControl(ctx, fd, o, false) {
			continue
		}
		e := r.watchEffect(ctx, all, since, rec, before)
		if !e.submitted(fd.f, form.ID) && len(e.reqs) == 0 {
			r.unsettledAfter(e, "filling in "+noun(fd.describe(o.ID)))
			continue
		}
		what := "caused " + describeRequests(e.reqs)
		if e.submitted(fd.f, form.ID) {
			what = "submitted the form"
			if len(e.reqs) > 0 {
				what += " (" + describeRequests(e.reqs) + ", blocked by the checker)"
			}
		}
		el := fd.describe(o.ID)
		f := finding("fill-submits", Error, CheckFill, "BC-4-fill-not-perform", fmt.Sprintf(
			"Filling in %s in the submission %s, as an agent may, %s: filling the form performs the step the mark leaves to the User.%s", noun(el), formName, what, e.boundNote()))
		f.Frame, f.Element = fd.f.URL, el
		if k < len(origForm.Controls) {
			f = f.on(orig.idx, origForm.Controls[k].ID)
		}
		r.rep.Findings = append(r.rep.Findings, f)
		return nil // the document may be gone; one finding per form
	}
	return nil
}

// fillControl gives a control a plausible value the way the agent's tools
// would, through the gate's probe mode, and commits it as a User would:
// typing into a field and leaving it (Tab, so its change event fires
// now, blamed on it, not on the next field), choosing another option than
// the one shown, clicking a checkbox or radio. asUser gives the User's
// input (the User may change everything); otherwise a control the gate
// refuses (a mark covers it) is left alone.
func (r *pageRun) fillControl(ctx context.Context, fd frameData, o marks.Owned, asUser bool) bool {
	var a gate.Action
	leave := false
	switch {
	case o.Tag == "select":
		pick := ""
		if e, ok := fd.byID[o.ID]; ok {
			pick, _ = otherOption(e) // another option than the one shown
		}
		if pick == "" {
			for _, val := range o.Options {
				if val != "" {
					pick = val
					break
				}
			}
		}
		if pick == "" {
			return false
		}
		a = gate.Select{Values: []string{pick}}
	case o.Tag == "input" && (o.Type == "checkbox" || o.Type == "radio"):
		a = gate.Click{}
	case o.Tag == "textarea", o.Tag == "input" && !slices.Contains([]string{"submit", "reset", "button", "image", "file", "hidden", "color", "range"}, o.Type):
		a, leave = gate.Type{Text: plausible(o)}, !asUser
	default:
		return false
	}
	given, _ := r.give(ctx, fd, o.ID, a, asUser)
	if given && leave {
		r.give(ctx, fd, o.ID, gate.PressKey{Key: "Tab"}, asUser)
	}
	return given
}

// plausible is a value for a text field, from its type and name.
func plausible(o marks.Owned) string {
	hint := strings.ToLower(o.Type + " " + o.Name + " " + o.Autocomplete)
	switch {
	case strings.Contains(hint, "email"):
		return "alex.rivera@example.com"
	case strings.Contains(hint, "tel") || strings.Contains(hint, "phone"):
		return "+351 912 345 678"
	case o.Type == "number":
		if o.Min != "" {
			return o.Min
		}
		return "1"
	case o.Type == "date":
		return "2030-01-15"
	case o.Type == "time":
		return "09:40"
	case o.Type == "url":
		return "https://example.com/"
	case strings.Contains(hint, "passport"):
		return "X1234567"
	case strings.Contains(hint, "card") || strings.Contains(hint, "cc-number"):
		return "4242 4242 4242 4242"
	case strings.Contains(hint, "zip") || strings.Contains(hint, "postal"):
		return "1000-001"
	}
	v := "Alex Rivera"
	if o.MaxLength > 0 && len(v) > o.MaxLength {
		v = v[:o.MaxLength]
	}
	return v
}
