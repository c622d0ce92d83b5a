package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// pageRun is one page being checked.
type pageRun struct {
	c   *Checker
	sv  *supervisor.Supervisor
	url string
	co  *session.Company
	inj *injector.Injector
	p   *browser.Page
	rep *PageReport
}

// frameData is one frame of the loaded document as the checker read it.
type frameData struct {
	f       browser.Frame
	company bool
	scan    marks.Scan
	inv     []marks.Marking
	byID    map[int]marks.Element
	owned   map[int]marks.Owned
}

// CheckPage checks one page. It never returns an error: a page that could
// not be checked has Status [StatusFailed] and Error set.
func (c *Checker) CheckPage(ctx context.Context, raw string) PageReport {
	rep := PageReport{URL: raw, Status: StatusChecked, Marks: []MarkRow{}, Findings: []Finding{}, Checked: []string{}, Skipped: []string{}}
	fail := func(err error) PageReport {
		rep.Status, rep.Error = StatusFailed, err.Error()
		return rep
	}
	co, d, err := c.company(ctx, raw)
	if err != nil {
		return fail(err)
	}
	rep.Discovery = d
	rep.Findings = append(rep.Findings, discoveryFindings(d)...)
	sv, err := c.use(ctx, co)
	if err != nil {
		return fail(err)
	}
	p, err := sv.Browser().NewPage(ctx)
	if err != nil {
		return fail(err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = p.Close(cctx)
	}()
	r := &pageRun{c: c, sv: sv, url: raw, co: co, inj: sv.Injector(), p: p, rep: &rep}
	if err := r.run(ctx); err != nil {
		return fail(err)
	}
	r.requirements(d != nil)
	return rep
}

// requirements fills Checked and Skipped.
func (r *pageRun) requirements(discovered bool) {
	checks := map[string]bool{
		CheckDiscovery: discovered, CheckMarks: true, CheckLateMarks: true,
		CheckFill: r.c.opts.Fill, CheckSubmitPaths: !r.c.opts.NoProbe, CheckController: true,
	}
	for _, name := range []string{CheckDiscovery, CheckMarks, CheckLateMarks, CheckFill, CheckSubmitPaths, CheckController} {
		for _, id := range requirementsOf(name) {
			if checks[name] && !slices.Contains(r.rep.Checked, id) {
				r.rep.Checked = append(r.rep.Checked, id)
			}
		}
	}
	for _, name := range []string{CheckDiscovery, CheckFill, CheckSubmitPaths} {
		for _, id := range requirementsOf(name) {
			if !checks[name] && !slices.Contains(r.rep.Checked, id) && !slices.Contains(r.rep.Skipped, id) {
				r.rep.Skipped = append(r.rep.Skipped, id)
			}
		}
	}
}

func (r *pageRun) run(ctx context.Context) error {
	if err := r.load(ctx, spec.ControllerAgent, r.c.opts.Settle); err != nil {
		return err
	}
	r.rep.FinalURL = r.p.URL()
	r.rep.Title = r.p.Title(ctx)
	frames := r.readFrames(ctx)
	if len(frames) == 0 {
		return errors.New("reading the page: no frame could be read")
	}
	r.marksTable(frames)
	r.lateMarks(ctx, frames)
	reads := r.controllerReads(ctx, frames)
	r.rep.Snapshot = r.snapshot(ctx)
	agentView, err := r.view(ctx, spec.ControllerAgent, frames)
	if err != nil {
		return err
	}
	r.rep.Views = []View{agentView}
	if len(reads) > 0 {
		if err := r.controllerChecks(ctx, reads, agentView); err != nil {
			return err
		}
	}
	if r.c.opts.Fill {
		if err := r.fillChecks(ctx, frames); err != nil {
			return err
		}
	}
	if !r.c.opts.NoProbe {
		if err := r.submitPaths(ctx, frames); err != nil {
			return err
		}
	}
	return nil
}

// load loads the page afresh with controller and waits until it is quiet
// (or settle passed).
func (r *pageRun) load(ctx context.Context, controller spec.Controller, settle time.Duration) error {
	if r.inj.Controller() != controller {
		if err := r.inj.Set(ctx, controller); err != nil {
			return err
		}
	}
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := r.p.Navigate(lctx, r.url)
	if err != nil {
		return fmt.Errorf("loading the page: %w", err)
	}
	if res.Status >= 400 {
		return fmt.Errorf("loading the page: HTTP %d", res.Status)
	}
	r.settle(ctx, settle)
	return nil
}

// settle polls the watchers of every frame until none saw a DOM change for
// the Quiet period, or until max passed.
func (r *pageRun) settle(ctx context.Context, max time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, max)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	quiet := float64(r.c.opts.Quiet.Milliseconds())
	for {
		still := true
		for _, f := range r.p.Frames() {
			fctx, fcancel := context.WithTimeout(ctx, time.Second)
			w, err := marks.WatchReport(fctx, f)
			fcancel()
			if err == nil && w.Now-w.LastChange < quiet {
				still = false
			}
		}
		if still {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// readFrames scans every frame of the page; frames that cannot be read
// (gone, no document) are left out.
func (r *pageRun) readFrames(ctx context.Context) []frameData {
	var out []frameData
	for _, f := range r.p.Frames() {
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		sc, err := marks.ScanFrame(fctx, f)
		var inv []marks.Marking
		if err == nil {
			inv, err = marks.Inventory(fctx, f)
		}
		cancel()
		if err != nil {
			r.c.log.Debug("reading frame", "url", f.URL, "err", err)
			continue
		}
		fd := frameData{f: f, company: r.co.IsCompanyURL(f.URL), scan: sc, inv: inv, byID: map[int]marks.Element{}, owned: map[int]marks.Owned{}}
		for _, e := range sc.Elements {
			fd.byID[e.ID] = e
		}
		for _, m := range inv {
			for _, o := range m.Controls {
				fd.owned[o.ID] = o
			}
		}
		out = append(out, fd)
	}
	return out
}

// describe names an element as role "name".
func (fd frameData) describe(id int) string {
	if e, ok := fd.byID[id]; ok {
		role := e.Role
		if role == "" || role == "generic" {
			role = e.Tag
		}
		name := e.Name
		if name == "" {
			name = e.Text
		}
		if name == "" {
			return role
		}
		return fmt.Sprintf("%s %q", role, clip(name))
	}
	if o, ok := fd.owned[id]; ok {
		if o.Name != "" {
			return fmt.Sprintf("%s name=%q", o.Tag, o.Name)
		}
		return o.Tag
	}
	for _, m := range fd.inv {
		if m.ID == id {
			return m.Tag
		}
	}
	return "element"
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// marksTable lists every mark with its kind and what it covers, and warns
// about values that count as something else (section 4 value rules).
func (r *pageRun) marksTable(frames []frameData) {
	for _, fd := range frames {
		for _, m := range fd.inv {
			kind := spec.KindOf(m.Value, m.Form)
			row := MarkRow{Frame: fd.f.URL, Element: fd.describe(m.ID), Value: m.Value, Kind: kind, Covers: []Covered{}}
			for _, o := range m.Controls {
				row.Covers = append(row.Covers, Covered{Element: fd.describe(o.ID), Outside: o.Outside})
			}
			r.rep.Marks = append(r.rep.Marks, row)
			add := func(sev Severity, id, msg string) {
				f := finding(sev, CheckMarks, id, msg)
				f.Frame, f.Element = fd.f.URL, row.Element
				r.rep.Findings = append(r.rep.Findings, f)
			}
			switch {
			case m.Value == string(spec.Submission) && !m.Form:
				add(Warning, "BC-4-values", fmt.Sprintf(
					"%s is marked submission but is not a form, so the mark counts as interaction: every control in it is the User's to change, not only to submit; mark the form instead.", row.Element))
			case m.Value != string(spec.Submission) && m.Value != string(spec.Interaction):
				add(Warning, "BC-4-values", fmt.Sprintf(
					"%s has the unknown value %q, which counts as interaction; use interaction or submission.", row.Element, m.Value))
			}
			if len(m.Controls) == 0 {
				add(Info, "BC-4-attribute", fmt.Sprintf("%s is marked but covers no control, so the mark leaves nothing to the User.", row.Element))
			}
		}
	}
}

// lateMarks reports controls shown usable before any mark covering them
// appeared (section 4: mark them before they can be used).
func (r *pageRun) lateMarks(ctx context.Context, frames []frameData) {
	for _, fd := range frames {
		w, err := marks.WatchReport(ctx, fd.f)
		if err != nil {
			continue
		}
		markedAt := map[int]float64{}
		for _, m := range w.Marked {
			markedAt[m.ID] = m.At
		}
		for _, s := range w.Shown {
			v, err := marks.Check(ctx, fd.f, marks.Action{Kind: "key", ID: s.ID, Key: " "})
			if err != nil || v.Stale || len(v.Marks) == 0 {
				continue
			}
			first, bearer := -1.0, 0
			for _, m := range v.Marks {
				at, ok := markedAt[m.Marked]
				if ok && (first < 0 || at < first) {
					first, bearer = at, m.Marked
				}
			}
			if first < 0 || s.At >= first {
				continue
			}
			el := fd.describe(s.ID)
			what := "its mark"
			if bearer != s.ID {
				what = "the mark on " + fd.describe(bearer)
			}
			f := finding(Warning, CheckLateMarks, "BC-4-mark-all", fmt.Sprintf(
				"%s was shown usable before %s was added; an agent could use it in between. Put the mark in the HTML, or add it before the control is shown or enabled.", el, what))
			f.Frame, f.Element = fd.f.URL, el
			usable, marked := s.At, first
			f.UsableAtMS, f.MarkedAtMS = &usable, &marked
			r.rep.Findings = append(r.rep.Findings, f)
		}
	}
}

// controllerReads returns the URLs of the Company frames whose scripts read
// navigator.poppy.controller.
func (r *pageRun) controllerReads(ctx context.Context, frames []frameData) []string {
	var out []string
	for _, fd := range frames {
		if !fd.company {
			continue
		}
		n, err := r.inj.Reads(ctx, fd.f)
		if err == nil && n > 0 {
			out = append(out, fd.f.URL)
		}
	}
	return out
}

// snapshot is what the agent's browser_snapshot returns for the page, taken
// through the agent's own gate (reading only).
func (r *pageRun) snapshot(ctx context.Context) string {
	g := gate.New(&gate.Options{
		Page:        func() *browser.Page { return r.p },
		Control:     r.sv.Control(),
		CompanyHost: r.co.IsCompanyHost,
		Logger:      r.c.log,
	})
	res := g.Do(ctx, gate.Snapshot{})
	if res.Outcome != spec.OutcomeDone {
		return "(no snapshot: " + res.Message + ")"
	}
	return res.Text
}

// view takes a screenshot of the page as it is and places a box on each
// element bearing a mark.
func (r *pageRun) view(ctx context.Context, controller spec.Controller, frames []frameData) (View, error) {
	v := View{Controller: controller, Text: visibleText(frames), Boxes: []Box{}}
	shot, err := r.p.Screenshot(ctx)
	if err != nil {
		return v, err
	}
	v.PNG, v.Width, v.Height = shot.PNG, shot.Width, shot.Height
	for _, fd := range frames {
		ox, oy, err := fd.f.Offset(ctx, r.p)
		if err != nil {
			continue
		}
		for _, m := range fd.inv {
			e, ok := fd.byID[m.ID]
			if !ok || e.Box.Width == 0 || e.Box.Height == 0 {
				continue
			}
			kind := spec.KindOf(m.Value, m.Form)
			label := string(kind)
			if m.Value != string(kind) {
				label = fmt.Sprintf("%s (%q)", kind, m.Value)
			}
			v.Boxes = append(v.Boxes, Box{
				X: ox + e.Box.X + shot.ScrollX, Y: oy + e.Box.Y + shot.ScrollY, Width: e.Box.Width, Height: e.Box.Height,
				Kind: kind, Label: label + ": " + fd.describe(m.ID),
			})
		}
	}
	return v, nil
}

// visibleText is what the page shows, one element a line, to compare the
// page as the agent and as the User see it.
func visibleText(frames []frameData) []string {
	out := []string{}
	for _, fd := range frames {
		for _, e := range fd.scan.Elements {
			// A line of text (ID 0) is visible text; it carries no box.
			if e.ID != 0 && e.Box.Width == 0 && e.Box.Height == 0 {
				continue
			}
			line := e.Role
			if t := e.Text; t != "" {
				line += " " + fmt.Sprintf("%q", clip(t))
			} else if e.Name != "" {
				line += " " + fmt.Sprintf("%q", clip(e.Name))
			}
			if e.Disabled {
				line += " disabled"
			}
			out = append(out, line)
		}
	}
	return out
}
