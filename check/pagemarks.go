package check

import (
	"context"
	"fmt"
	"math"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// marksTable lists every mark with its kind and what it covers, and warns
// about values that count as something else (section 4 value rules).
// A mark added after the document was parsed is late: its row says when.
func (r *pageRun) marksTable(ctx context.Context, frames []frameData) {
	for _, fd := range frames {
		markedAt, parsed := map[int]float64{}, 0.0
		if w, err := marks.WatchReport(ctx, fd.f); err == nil {
			parsed = w.Parsed
			for _, t := range w.Marked {
				if !t.Closed {
					markedAt[t.ID] = t.At
				}
			}
		}
		for _, m := range fd.inv {
			kind := spec.KindOf(m.Value, m.Form)
			row := MarkRow{Frame: fd.f.URL, Element: fd.describe(m.ID), Value: m.Value, Kind: kind, Covers: []Covered{}}
			if at, ok := markedAt[m.ID]; ok && parsed > 0 && at > parsed {
				at = math.Round(at)
				row.MarkedAtMS = &at
			}
			for _, o := range m.Controls {
				row.Covers = append(row.Covers, Covered{Element: fd.describe(o.ID), Outside: o.Outside, Form: o.FormAttr})
			}
			r.rep.Marks = append(r.rep.Marks, row)
			add := func(kind string, sev Severity, id, msg string) {
				f := finding(kind, sev, CheckMarks, id, msg).on(fd.idx, m.ID)
				f.Frame, f.Element = fd.f.URL, row.Element
				r.rep.Findings = append(r.rep.Findings, f)
			}
			switch {
			case m.Value == string(spec.Submission) && !m.Form:
				add("mark-submission-not-form", Warning, "BC-4-values", fmt.Sprintf(
					"%s is marked submission but is not a form, so the mark counts as interaction: every control in it is the User's to change, not only to submit; mark the form instead.", sentence(row.Element)))
			case m.Value != string(spec.Submission) && m.Value != string(spec.Interaction):
				add("mark-unknown-value", Warning, "BC-4-values", fmt.Sprintf(
					"%s has the unknown value %q, which counts as interaction; use interaction or submission.", sentence(row.Element), m.Value))
			}
			if len(m.Controls) == 0 {
				add("mark-covers-nothing", Warning, "BC-4-attribute", noControl(ctx, fd, m.ID, row.Element))
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
			covering, err := r.rt.probe.Covering(ctx, fd.f, s.ID)
			if err != nil || len(covering) == 0 {
				continue
			}
			first, bearer := -1.0, 0
			for _, m := range covering {
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
				what = "the mark on " + noun(fd.describe(bearer))
			}
			f := finding("mark-late", Warning, CheckLateMarks, "BC-4-mark-all", fmt.Sprintf(
				"%s was shown usable before %s was added; an agent could use it in between. Put the mark in the HTML, or add it before the control is shown or enabled.", sentence(el), what)).on(fd.idx, s.ID)
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
		n, err := r.sv.ControllerReads(ctx, fd.f)
		if err == nil && n > 0 {
			out = append(out, fd.f.URL)
		}
	}
	return out
}

// noControl is the message of a mark that covers no control: it leaves
// nothing to the User, and the control it was likely meant for (the one
// its label or aria-labelledby names) is the agent's.
func noControl(ctx context.Context, fd frameData, id int, el string) string {
	msg := fmt.Sprintf("%s is marked but covers no control, so the mark leaves nothing to the User.", sentence(el))
	if c, err := marks.Labelled(ctx, fd.f, id); err == nil && c != 0 {
		ctl := fd.describe(c)
		msg += fmt.Sprintf(" It labels %s, which it does not cover, so the agent may still change it: mark %s itself, or an element around it.", ctl, ctl)
	} else {
		msg += " Mark the control, or an element around it, instead."
	}
	return msg
}
