package check

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Probe timing: how long the checker watches for what an action caused.
const (
	probeWindow = 700 * time.Millisecond // after each action
	probeGrace  = 3 * time.Second        // after a submit event, for its request
	probeSettle = 2 * time.Second        // quiet wait of a probe's fresh load
)

// recorder keeps the navigations and non-GET requests of the page's frames
// while a probe runs, and blocks them: nothing reaches the server.
type recorder struct {
	mu     sync.Mutex
	frames map[string]bool
	reqs   []browser.Request
}

func (rec *recorder) requests() []browser.Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.reqs)
}

// record starts a recorder over the page's current frames.
func (r *pageRun) record(ctx context.Context) (*recorder, func(), error) {
	rec := &recorder{frames: map[string]bool{}}
	for _, f := range r.p.Frames() {
		rec.frames[string(f.ID)] = true
	}
	stop, err := r.sv.Browser().ObserveRequests(ctx, func(req browser.Request) bool {
		if !rec.frames[string(req.FrameID)] || (req.Method == "GET" && req.ResourceType != "Document") {
			return false
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, req)
		rec.mu.Unlock()
		return true
	})
	return rec, stop, err
}

// effect is what an action caused in a frame.
type effect struct {
	events []marks.FormEvent // submit and formdata events after the action
	reqs   []browser.Request
}

// submitted reports whether form was submitted (or its data gathered for a
// request that followed).
func (e effect) submitted(form int) bool {
	for _, ev := range e.events {
		if ev.Form == form && (ev.Type == "submit" || len(e.reqs) > 0) {
			return true
		}
	}
	return false
}

// describeRequests names requests for a message, without hosts or queries.
func describeRequests(reqs []browser.Request) string {
	var parts []string
	for _, q := range reqs {
		path := q.URL
		if u, err := url.Parse(q.URL); err == nil {
			path = u.Path
		}
		what := "request"
		if q.ResourceType == "Document" {
			what = "navigation"
		}
		s := fmt.Sprintf("a %s %s to %s", q.Method, what, path)
		if !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// watchEffect waits for what the action just taken in fd caused: events of
// the frame's document after since, and recorded requests after before.
func (r *pageRun) watchEffect(ctx context.Context, fd frameData, since float64, rec *recorder, before int) effect {
	deadline := time.Now().Add(probeWindow)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var e effect
	for {
		if w, err := marks.WatchReport(ctx, fd.f); err == nil {
			e.events = e.events[:0]
			for _, ev := range w.Events {
				if ev.At > since {
					e.events = append(e.events, ev)
				}
			}
		}
		e.reqs = rec.requests()[before:]
		submit := slices.ContainsFunc(e.events, func(ev marks.FormEvent) bool { return ev.Type == "submit" })
		if len(e.reqs) > 0 && time.Now().After(deadline.Add(-probeWindow/2)) {
			return e
		}
		if time.Now().After(deadline) && !(submit && len(e.reqs) == 0 && time.Now().Before(deadline.Add(probeGrace))) {
			return e
		}
		select {
		case <-ctx.Done():
			return e
		case <-tick.C:
		}
	}
}

// reload loads the page afresh for a probe and finds frame i again.
func (r *pageRun) reload(ctx context.Context, controller spec.Controller, want frameData) (frameData, bool, error) {
	if err := r.load(ctx, controller, probeSettle); err != nil {
		return frameData{}, false, err
	}
	for _, fd := range r.readFrames(ctx) {
		if fd.f.URL == want.f.URL && len(fd.inv) == len(want.inv) {
			return fd, true, nil
		}
	}
	return frameData{}, false, nil
}

// now is the frame document's clock.
func now(ctx context.Context, f browser.Frame) float64 {
	w, err := marks.WatchReport(ctx, f)
	if err != nil {
		return 0
	}
	return w.Now
}

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
			fd, ok, err := r.reload(ctx, spec.ControllerAgent, orig)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := r.fillForm(ctx, fd, fd.inv[mi]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *pageRun) fillForm(ctx context.Context, fd frameData, form marks.Marking) error {
	rec, stop, err := r.record(ctx)
	if err != nil {
		return err
	}
	defer stop()
	formName := fd.describe(form.ID)
	for _, o := range form.Controls {
		since, before := now(ctx, fd.f), len(rec.requests())
		acted, err := r.fillControl(ctx, fd, o, false)
		if err != nil || !acted {
			continue
		}
		e := r.watchEffect(ctx, fd, since, rec, before)
		if !e.submitted(form.ID) && len(e.reqs) == 0 {
			continue
		}
		what := "caused " + describeRequests(e.reqs)
		if e.submitted(form.ID) {
			what = "submitted the form"
			if len(e.reqs) > 0 {
				what += " (" + describeRequests(e.reqs) + ", blocked by the checker)"
			}
		}
		el := fd.describe(o.ID)
		f := finding(Error, CheckFill, "BC-4-fill-not-perform", fmt.Sprintf(
			"Filling in %s in the submission %s, as an agent may, %s: filling the form performs the step the mark leaves to the User.", el, formName, what))
		f.Frame, f.Element = fd.f.URL, el
		r.rep.Findings = append(r.rep.Findings, f)
		return nil // the document may be gone; one finding per form
	}
	return nil
}

// fillControl gives a control a plausible value the way the agent's tools
// would: typing into a field, selecting an option, clicking a checkbox or
// radio. asUser skips the marks (the User may change everything); otherwise
// a control a mark covers is left alone, as the gate would refuse it.
func (r *pageRun) fillControl(ctx context.Context, fd frameData, o marks.Owned, asUser bool) (bool, error) {
	kind := marks.ActionType
	switch {
	case o.Tag == "select":
		kind = marks.ActionSelect
	case o.Tag == "input" && (o.Type == "checkbox" || o.Type == "radio"):
		kind = marks.ActionClick
	case o.Tag == "textarea", o.Tag == "input" && !slices.Contains([]string{"submit", "reset", "button", "image", "file", "hidden", "color", "range"}, o.Type):
	default:
		return false, nil
	}
	v, err := marks.Check(ctx, fd.f, marks.Action{Kind: kind, ID: o.ID})
	if err != nil || v.Stale || (!asUser && len(v.Marks) > 0) {
		return false, err
	}
	switch kind {
	case "select":
		var pick []string
		for _, val := range o.Options {
			if val != "" {
				pick = []string{val}
				break
			}
		}
		if pick == nil {
			return false, nil
		}
		_, err = marks.SelectValues(ctx, fd.f, o.ID, pick)
	case "click":
		if v.Point == nil {
			return false, nil
		}
		ox, oy, err := fd.f.Offset(ctx, r.p)
		if err != nil {
			return false, err
		}
		err = r.p.Click(ctx, ox+v.Point.X, oy+v.Point.Y)
	default:
		if err := marks.Focus(ctx, fd.f, o.ID); err != nil {
			return false, nil
		}
		err = r.p.InsertText(ctx, plausible(o))
	}
	return err == nil, err
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

// buttonRoles are what the submit-path probe clicks.
func isButton(e marks.Element) bool {
	if e.Disabled {
		return false
	}
	if e.Tag == "button" || e.Role == "button" {
		return e.Tag != "input" || slices.Contains([]string{"button", "submit", "image", "reset"}, e.Type)
	}
	return false
}

// candidates are the buttons of a frame with a marked form that no mark
// covers: an agent following the extension may click them.
func candidates(fd frameData) []marks.Element {
	hasForm := slices.ContainsFunc(fd.inv, func(m marks.Marking) bool { return m.Form })
	if !fd.company || !hasForm {
		return nil
	}
	var out []marks.Element
	for _, e := range fd.scan.Elements {
		if isButton(e) && e.Marked == nil && e.Form == 0 && (e.Box.Width > 0 || e.Box.Height > 0) {
			out = append(out, e)
		}
	}
	return out
}

// submitPaths clicks each unmarked button of a frame with a marked form on a
// fresh load and reports those whose click submits a marked form.
func (r *pageRun) submitPaths(ctx context.Context, frames []frameData) error {
	probes := 0
	for _, orig := range frames {
		for k, want := range candidates(orig) {
			if probes >= r.c.opts.MaxProbes {
				return nil
			}
			probes++
			fd, ok, err := r.reload(ctx, spec.ControllerAgent, orig)
			if err != nil {
				return err
			}
			cs := candidates(fd)
			if !ok || k >= len(cs) || cs[k].Name != want.Name {
				continue
			}
			if err := r.probeButton(ctx, fd, cs[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *pageRun) probeButton(ctx context.Context, fd frameData, b marks.Element) error {
	v, err := marks.Check(ctx, fd.f, marks.Action{Kind: "click", ID: b.ID})
	if err != nil || v.Stale || len(v.Marks) > 0 || v.Point == nil || v.Obscured {
		return nil
	}
	ox, oy, err := fd.f.Offset(ctx, r.p)
	if err != nil {
		return nil
	}
	rec, stop, err := r.record(ctx)
	if err != nil {
		return err
	}
	defer stop()
	since := now(ctx, fd.f)
	if err := r.p.Click(ctx, ox+v.Point.X, oy+v.Point.Y); err != nil {
		return nil
	}
	e := r.watchEffect(ctx, fd, since, rec, 0)
	for _, m := range fd.inv {
		if !m.Form || !e.submitted(m.ID) {
			continue
		}
		el := fd.describe(b.ID)
		what := ""
		if len(e.reqs) > 0 {
			what = " (" + describeRequests(e.reqs) + ", blocked by the checker)"
		}
		f := finding(Error, CheckSubmitPaths, "BC-4-mark-all", fmt.Sprintf(
			"Clicking %s, which no mark covers, submits the %s %s%s: an agent following the extension may take the step. Mark the button, or make it a control of the form.",
			el, spec.KindOf(m.Value, true), fd.describe(m.ID), what))
		f.Frame, f.Element = fd.f.URL, el
		r.rep.Findings = append(r.rep.Findings, f)
	}
	return nil
}

// controllerChecks reports the page's use of navigator.poppy.controller:
// the reminder of section 8.2, whether the page shows the User something
// else (both views kept), and whether the User's submission carries it.
func (r *pageRun) controllerChecks(ctx context.Context, reads []string, agentView View) error {
	use := &ControllerUse{Reads: true, ReadFrames: reads}
	r.rep.Controller = use
	f := finding(Info, CheckController, "BC-8.2-not-a-guarantee",
		"The page reads navigator.poppy.controller. The value is not signed and anything in the page can change it: it is not a guarantee that the User took the step, so check the action's conditions on the server.")
	f.Frame = reads[0]
	r.rep.Findings = append(r.rep.Findings, f)

	if err := r.load(ctx, spec.ControllerUser, probeSettle); err != nil {
		return err
	}
	frames := r.readFrames(ctx)
	userView, err := r.view(ctx, spec.ControllerUser, frames)
	if err != nil {
		return err
	}
	if !slices.Equal(userView.Text, agentView.Text) {
		use.ChangesView = true
		r.rep.Views = append(r.rep.Views, userView)
		r.rep.Findings = append(r.rep.Findings, finding(Info, CheckController, "BC-6-not-relied-on",
			"The page shows the agent something other than the User (both views are in the report). A page may do this, but must not rely on \"user\" as a guarantee that the User took the step."))
	}
	if !r.c.opts.NoProbe {
		r.userSubmission(ctx, frames, use)
	}
	return r.inj.Set(ctx, spec.ControllerAgent)
}

// userSubmission fills and submits the first marked form with a submit
// button as the User would, with the request blocked, and reports whether
// the request carries the controller.
func (r *pageRun) userSubmission(ctx context.Context, frames []frameData, use *ControllerUse) {
	for _, fd := range frames {
		if !fd.company {
			continue
		}
		for _, m := range fd.inv {
			if !m.Form {
				continue
			}
			submit := slices.IndexFunc(m.Controls, func(o marks.Owned) bool {
				return (o.Tag == "button" && o.Type == "submit") || (o.Tag == "input" && (o.Type == "submit" || o.Type == "image"))
			})
			if submit < 0 {
				continue
			}
			for _, o := range m.Controls {
				_, _ = r.fillControl(ctx, fd, o, true)
			}
			v, err := marks.Check(ctx, fd.f, marks.Action{Kind: "click", ID: m.Controls[submit].ID})
			if err != nil || v.Point == nil {
				continue
			}
			ox, oy, err := fd.f.Offset(ctx, r.p)
			if err != nil {
				continue
			}
			rec, stop, err := r.record(ctx)
			if err != nil {
				continue
			}
			since := now(ctx, fd.f)
			err = r.p.Click(ctx, ox+v.Point.X, oy+v.Point.Y)
			e := r.watchEffect(ctx, fd, since, rec, 0)
			stop()
			if err != nil || len(e.reqs) == 0 {
				continue
			}
			formName := fd.describe(m.ID)
			field := controllerField(e.reqs[0])
			sent := field != ""
			use.Sent, use.SentField = &sent, field
			msg := fmt.Sprintf("When the User submits %s, the request carries the controller in the field %q. Record it if useful, but do not rely on it: it is not a guarantee.", formName, field)
			if !sent {
				msg = fmt.Sprintf("When the User submits %s, the request does not carry the controller. The page MAY send it (form.elements.controller.value = navigator.poppy?.controller), to record who was in control.", formName)
			}
			r.rep.Findings = append(r.rep.Findings, finding(Info, CheckController, "BC-6-not-relied-on", msg))
			return
		}
	}
}

var multipartField = regexp.MustCompile(`name="([^"]+)"\r\n\r\nuser\r\n`)

// controllerField finds the field of a request whose value is "user".
func controllerField(q browser.Request) string {
	var vals []url.Values
	if u, err := url.Parse(q.URL); err == nil {
		vals = append(vals, u.Query())
	}
	if v, err := url.ParseQuery(q.Body); err == nil {
		vals = append(vals, v)
	}
	for _, vs := range vals {
		keys := make([]string, 0, len(vs))
		for k := range vs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if slices.Contains(vs[k], string(spec.ControllerUser)) {
				return k
			}
		}
	}
	if m := multipartField.FindStringSubmatch(q.Body); m != nil {
		return m[1]
	}
	return ""
}
