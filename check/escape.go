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

// An escape route is an input an agent following the extension may give,
// on a control no mark covers, that submits a marked form anyway: a click
// on a script-bound button, Enter in a field whose key handler calls
// requestSubmit(), Space or Enter on a button. The gate stops such a
// submission only through its in-page guard; the Company should mark the
// control (BC-4-mark-all).

// route is one input the escape probe gives a control.
type route struct {
	key   string // "" for a click, else the key pressed with the control focused
	label string // how a message names it
}

var (
	routeClick = route{"", "Clicking"}
	routeEnter = route{"Enter", "Pressing Enter on"}
	routeSpace = route{" ", "Pressing Space on"}
	routeField = route{"Enter", "Pressing Enter in"}
	// routeChange chooses another option of a select, or checks a box: a
	// change an agent may make, whose change handler may submit the form.
	routeChange = route{"change", "Changing"}
)

// probe is one control and one route.
type probe struct {
	frame int // index in the frames slice
	el    marks.Element
	route route
}

// isButton says whether the escape probe presses e as a button.
func isButton(e marks.Element) bool {
	if e.Disabled {
		return false
	}
	if e.Tag == "button" || e.Role == "button" {
		return e.Tag != "input" || slices.Contains([]string{"button", "submit", "image", "reset"}, e.Type)
	}
	return false
}

// isTextField says whether Enter in e is worth a probe: a single-line
// field, whose Enter key submits forms.
func isTextField(e marks.Element) bool {
	if e.Disabled || e.Tag != "input" {
		return false
	}
	return slices.Contains([]string{"", "text", "search", "email", "tel", "url", "number", "password"}, e.Type)
}

// isChoice says whether e is a choice an agent may change: a select with
// another option to choose, or a checkbox or radio.
func isChoice(e marks.Element) bool {
	if e.Disabled {
		return false
	}
	switch {
	case e.Tag == "select":
		_, ok := otherOption(e)
		return ok
	case e.Tag == "input" && (e.Type == "checkbox" || e.Type == "radio"):
		return true
	}
	return false
}

// otherOption is the label of the first option of select e that is not
// selected and has a label: what an agent would choose to change it.
func otherOption(e marks.Element) (string, bool) {
	for i, o := range e.Options {
		if o != "" && !slices.Contains(e.Selected, i) {
			return o, true
		}
	}
	return "", false
}

// escapeProbes lists the routes to try: every control of a Company frame
// that no mark covers and that no marked form owns (the gate refuses
// those), when a Company frame of the page has a step form (a marked form,
// or one with a marked submitter: stepForms). Buttons and links that go
// nowhere get a click, Enter and Space; text fields get Enter; selects,
// checkboxes and radios get a change.
func escapeProbes(frames []frameData, steps bool) []probe {
	hasForm := steps || slices.ContainsFunc(frames, func(fd frameData) bool {
		return fd.company && slices.ContainsFunc(fd.inv, func(m marks.Marking) bool { return m.Form })
	})
	if !hasForm {
		return nil
	}
	var out []probe
	for i, fd := range frames {
		if !fd.company {
			continue
		}
		for _, e := range fd.scan.Elements {
			if e.Marked != nil || e.Form != 0 || (e.Box.Width == 0 && e.Box.Height == 0) {
				continue
			}
			switch {
			case isButton(e):
				out = append(out, probe{i, e, routeClick}, probe{i, e, routeEnter}, probe{i, e, routeSpace})
			case isTextField(e):
				out = append(out, probe{i, e, routeField})
			case isChoice(e):
				out = append(out, probe{i, e, routeChange})
			}
		}
	}
	return out
}

// escapeRoutes tries each route (at most MaxProbes) and reports those that
// submit a marked form. A button whose click escapes is not pressed with
// keys too: a native button's Enter and Space are its click, and the fix is
// the same. The page is loaded afresh before the first probe
// and after any probe that changed something.
func (r *pageRun) escapeRoutes(ctx context.Context, first []frameData) error {
	// The controls the HTML form model already names (confirmRoutes drives
	// them) are not tried again here.
	modelled := map[[2]int]bool{}
	for _, me := range r.escapes {
		for _, id := range me.esc.Scripted {
			modelled[[2]int{me.frame, id}] = true
		}
		for _, rt := range me.esc.Routes {
			modelled[[2]int{me.frame, rt.ID}] = true
		}
	}
	probes := slices.DeleteFunc(escapeProbes(first, len(r.escapes) > 0), func(pr probe) bool { return modelled[[2]int{pr.frame, pr.el.ID}] })
	if len(probes) > r.c.opts.MaxProbes {
		probes = probes[:r.c.opts.MaxProbes]
	}
	var frames []frameData
	dirty := true
	escaped := map[int]bool{} // controls a route already escaped by (scanner id of the first load)
	for _, pr := range probes {
		if escaped[pr.el.ID] {
			continue // a key on a button that a click already escapes by: one finding is enough
		}
		err := r.asAgent(func() error {
			if dirty {
				var err error
				if frames, err = r.reload(ctx); err != nil {
					return err
				}
			}
			var err error
			n := len(r.rep.Findings)
			dirty, err = r.tryRoute(ctx, frames, first[pr.frame], pr)
			escaped[pr.el.ID] = len(r.rep.Findings) > n
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// tryRoute gives one probe's input and reports a marked form it submitted.
// It returns whether the page changed.
func (r *pageRun) tryRoute(ctx context.Context, frames []frameData, want frameData, pr probe) (bool, error) {
	fd, ok := sameFrame(frames, want)
	if !ok {
		return true, nil
	}
	// Find the control again on this load: same kind, same name, same place
	// among its kind.
	target, ok := findAgain(fd, want, pr.el)
	if !ok {
		return true, nil
	}
	var a gate.Action = gate.Click{}
	switch {
	case pr.route == routeChange && target.Tag == "select":
		label, ok := otherOption(target)
		if !ok {
			return false, nil
		}
		a = gate.Select{Values: []string{label}}
	case pr.route == routeChange:
	case pr.route.key != "":
		a = gate.PressKey{Key: pr.route.key}
	}
	steps := r.stepForms(ctx, frames)
	rec, stop, err := r.record(ctx)
	if err != nil {
		return true, err
	}
	defer stop()
	since := r.clocks(ctx, frames)
	given, refused := r.give(ctx, fd, target.ID, a, false)
	if refused {
		return false, nil // the gate refused it, or there is nothing to click
	}
	if !given {
		return true, nil
	}
	e := r.watchEffect(ctx, frames, since, rec, 0)
	n := len(r.rep.Findings)
	defer func() {
		if len(r.rep.Findings) == n {
			r.unsettledAfter(e, strings.ToLower(pr.route.label[:1])+pr.route.label[1:]+" "+noun(fd.describe(target.ID)))
		}
	}()
	for _, other := range frames {
		for _, sf := range steps[string(other.f.ID)] {
			if e.submitted(other.f, sf.form) {
				r.escapeFinding(fd, target, pr, other, sf, e)
				break // one finding per input
			}
		}
	}
	return e.dirty, nil
}

// stepForm is a form whose submission is a marked step: a form a
// submission mark is on, or one with a submitter (or a button) an
// interaction mark covers (marks.Escapes), by its local id in this load.
type stepForm struct {
	form int
	name string // as a message names it: the marked form, or what its mark is on
}

// stepForms are the step forms of each Company frame of this load, by
// frame id, marked forms first.
func (r *pageRun) stepForms(ctx context.Context, frames []frameData) map[string][]stepForm {
	out := map[string][]stepForm{}
	for _, fd := range frames {
		if !fd.company {
			continue
		}
		id := string(fd.f.ID)
		for _, m := range fd.inv {
			if m.Form {
				out[id] = append(out[id], stepForm{m.ID, fmt.Sprintf("the %s %s", spec.KindOf(m.Value, true), fd.describe(m.ID))})
			}
		}
		if len(r.escapes) == 0 {
			continue
		}
		escs, err := marks.Escapes(ctx, fd.f)
		if err != nil {
			continue
		}
		for _, esc := range escs {
			out[id] = append(out[id], stepForm{esc.Form, fmt.Sprintf("%s, %s", escapeForm(esc), markedWhat(fd, esc))})
		}
	}
	return out
}

// findAgain finds el of the first load's frame want in fd.
func findAgain(fd, want frameData, el marks.Element) (marks.Element, bool) {
	same := func(a, b marks.Element) bool { return a.Tag == b.Tag && a.Role == b.Role && a.Name == b.Name }
	nth := 0
	for _, e := range want.scan.Elements {
		if e.ID == el.ID {
			break
		}
		if same(e, el) {
			nth++
		}
	}
	for _, e := range fd.scan.Elements {
		if same(e, el) {
			if nth == 0 {
				return e, e.Marked == nil && e.Form == 0
			}
			nth--
		}
	}
	return marks.Element{}, false
}

// escapeFinding reports route pr, given to target of fd (this load), which
// submitted step form sf of formFrame; the finding points at pr's control
// in the first load.
func (r *pageRun) escapeFinding(fd frameData, target marks.Element, pr probe, formFrame frameData, sf stepForm, e effect) {
	rt := pr.route
	el := fd.describe(target.ID)
	what := ""
	if len(e.reqs) > 0 {
		what = " (" + describeRequests(e.reqs) + ", blocked by the checker)"
	}
	fix := "Mark the button, or make it a control of the form."
	switch rt {
	case routeField:
		fix = "Mark the field, or keep its key handler from submitting the marked form."
	case routeChange:
		fix = "Mark the control, or keep its change handler from submitting the marked form."
	}
	f := finding("submit-route-probed", Error, CheckSubmitPaths, "BC-4-mark-all", fmt.Sprintf(
		"%s %s, which no mark covers, submits %s%s: an agent following the extension may take the step. %s%s",
		rt.label, noun(el), sf.name, what, fix, e.boundNote())).on(pr.frame, pr.el.ID)
	f.Frame, f.Element = fd.f.URL, el
	f.Route = routeName(rt)
	r.rep.Findings = append(r.rep.Findings, f)
}

// routeName is a route as Finding.Route says it: "click", "Enter", "Space".
func routeName(rt route) string {
	switch rt.key {
	case "":
		return "click"
	case " ":
		return "Space"
	case "change":
		return "change"
	}
	return rt.key
}
