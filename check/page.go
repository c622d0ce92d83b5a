package check

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// pageRun is one page being checked.
type pageRun struct {
	c   *Checker
	rt  *runtime
	sv  *supervisor.Supervisor
	url string
	co  *session.Company
	p   *browser.Page
	rep *PageReport

	first []frameData // the frames of the first load
	loc   *located    // where the first load's elements are
	// unsettled are the probes whose wait hit probeBound and saw nothing,
	// as a message names them.
	unsettled []string
	// escapes and routes are what formRoutes read from the HTML form
	// model, for the probes that confirm them (confirmRoutes).
	escapes []modelEscape
	routes  []modelRoute
	// stored: the storage state's local storage was put in (storeLocal).
	stored bool
}

// frameData is one frame of the loaded document as the checker read it.
type frameData struct {
	idx     int // index among the frames read of its load
	f       browser.Frame
	company bool
	scan    marks.Scan
	inv     []marks.Marking
	byID    map[int]marks.Element
	owned   map[int]marks.Owned
}

// CheckPage checks one page. It never returns an error: a page that could
// not be checked has Status [StatusFailed] and Error set. It is safe to
// call for several pages at once.
func (c *Checker) CheckPage(ctx context.Context, raw string) PageReport {
	start := time.Now()
	rep := c.checkPage(ctx, raw)
	rep.Seconds = math.Round(time.Since(start).Seconds()*10) / 10
	return rep
}

func (c *Checker) checkPage(ctx context.Context, raw string) PageReport {
	rep := PageReport{URL: raw, Status: StatusChecked, Marks: []MarkRow{}, Findings: []Finding{}, Checked: []string{}, Skipped: []string{}}
	// A page that could not be checked is one error, "could not check":
	// what was found before it failed is left out, as it is incomplete.
	fail := func(err error) PageReport {
		rep.Status, rep.Error = StatusFailed, err.Error()
		rep.Findings = []Finding{}
		return rep
	}
	co, d, err := c.company(ctx, raw)
	if err != nil {
		return fail(err)
	}
	rep.Discovery = d
	rep.Findings = append(rep.Findings, discoveryFindings(d)...)
	if u, err := url.Parse(raw); err == nil && !c.opts.NoDiscovery {
		if why := skipsDiscovery(u.Hostname()); why != "" {
			// Not a warning: a page in development has no poppy.json to
			// check; its deployed domain has.
			rep.Findings = append(rep.Findings, finding("discovery-skipped", Info, CheckDiscovery, "BC-3-poppy-json", why+
				", which has no poppy.json to discover, so discovery was skipped and the page's host taken as the Company's website (as with --no-discovery). This is not a warning because a page in development has nothing to discover: check the deployed page for discovery."))
		}
	}
	rt, err := c.use(ctx, co, raw)
	if err != nil {
		return fail(err)
	}
	r := &pageRun{c: c, rt: rt, sv: rt.sv, url: raw, co: co, rep: &rep}
	// A tab is opened and closed outside any probe as the User: the
	// injector's Set reaches every tab and must not meet one half made.
	err = r.asAgent(func() (err error) {
		if r.p, err = rt.sv.NewPage(ctx); err != nil {
			return err
		}
		return c.opts.StorageState.apply(ctx, r.p)
	})
	if err != nil {
		return fail(err)
	}
	defer r.asAgent(func() error {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return r.p.Close(cctx)
	})
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

// asAgent runs fn while every page of the runtime reads "agent" (shared
// with the other pages of the Company; see gate.Prober.AsAgent).
func (r *pageRun) asAgent(fn func() error) error { return r.rt.probe.AsAgent(fn) }

// asUser runs fn while the User holds control, alone: the prober takes
// control as the User's take does (every tab of the browser then reads
// "user") and hands it back after (gate.Prober.AsUser).
func (r *pageRun) asUser(ctx context.Context, fn func() error) error {
	return r.rt.probe.AsUser(ctx, fn)
}

// give gives one probe's input to the element id of frame fd through the
// gate's probe mode, and reports whether the input was given. refused is
// set when the gate refused it before any input (a mark, an element gone,
// covered or without a box): the page is as it was.
func (r *pageRun) give(ctx context.Context, fd frameData, id int, a gate.Action, asUser bool) (given, refused bool) {
	res := r.rt.probe.Do(ctx, r.p, gate.Probe{Frame: string(fd.f.ID), ID: id, Action: a, AsUser: asUser})
	switch {
	case res.Outcome == spec.OutcomeDone:
		return true, false
	case res.Outcome == spec.OutcomeDenied, res.Reason == spec.ReasonObscured, res.Reason == spec.ReasonNotVisible:
		return false, true
	}
	r.c.log.Debug("probe input failed", "tool", a.Tool(), "reason", res.Reason, "message", res.Message)
	return false, false
}

func (r *pageRun) run(ctx context.Context) error {
	var frames []frameData
	var reads []string
	var agentView View
	err := r.asAgent(func() error {
		if err := r.load(ctx, r.c.opts.Watch, 0); err != nil {
			return err
		}
		r.rep.FinalURL = r.p.URL()
		r.rep.Title = r.p.Title(ctx)
		if frames = r.readFrames(ctx); len(frames) == 0 {
			return errors.New("reading the page: no frame could be read")
		}
		r.first = frames
		r.marksTable(ctx, frames)
		r.webmcpTools(ctx, frames)
		r.lateMarks(ctx, frames)
		r.suggestMarks(frames)
		r.formRoutes(ctx, frames)
		r.fieldRoutes(ctx, frames)
		reads = r.controllerReads(ctx, frames)
		r.rep.Snapshot = r.snapshot(ctx)
		r.locateFirst(ctx, frames)
		var err error
		agentView, err = r.view(ctx, spec.ControllerAgent, frames)
		return err
	})
	if err != nil {
		return err
	}
	r.rep.Views = []View{agentView}
	defer r.place()
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
		if err := r.escapeRoutes(ctx, frames); err != nil {
			return err
		}
		if err := r.confirmRoutes(ctx); err != nil {
			return err
		}
		if err := r.submissions(ctx, frames, reads); err != nil {
			return err
		}
		if err := r.webmcpProbes(ctx); err != nil {
			return err
		}
	}
	if r.c.opts.NoProbe {
		r.untriedScripts()
	}
	r.unsettledFinding()
	return nil
}

// readFrames scans every frame of the page; frames that cannot be read
// (gone, no document) are left out.
func (r *pageRun) readFrames(ctx context.Context) []frameData {
	var out []frameData
	companyFrames := map[string]bool{} // by frame id
	for _, f := range r.p.Frames() {   // parents first
		company := r.co.IsCompanyURL(f.URL)
		if strings.HasPrefix(f.URL, "about:") {
			company = companyFrames[string(f.ParentID)] // about:blank and srcdoc frames have their parent's origin
		}
		companyFrames[string(f.ID)] = company
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
		fd := frameData{idx: len(out), f: f, company: company, scan: sc, inv: inv, byID: map[int]marks.Element{}, owned: map[int]marks.Owned{}}
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

// snapshot is what the agent's browser_snapshot returns for the page, taken
// through the runtime's snapshot gate (reading only).
func (r *pageRun) snapshot(ctx context.Context) string {
	res := r.rt.probe.Snapshot(ctx, r.p)
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
	v.scrollX, v.scrollY = shot.ScrollX, shot.ScrollY
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
