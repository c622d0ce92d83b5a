package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
)

// formRoutes reports, from the HTML form model the gate judges input by
// (marks.Escapes), every other way to submit a form that a marked
// submitter is meant to leave to the User while the form bears no
// submission mark: a click on another submitter no mark covers (the
// form's default button above all, or one outside it with form=), and
// Enter in a text field, which submits through the default button (HTML
// 4.10.21.2). The gate allows each, as the form itself is not marked, so
// the step the marked submitter performs can be taken another way
// (BC-4-mark-all). It reads the model and gives no input: a route is
// reported whether or not a probe could drive it, and nothing is
// submitted.
func (r *pageRun) formRoutes(ctx context.Context, frames []frameData) {
	eachCompanyFrame(ctx, r, frames, "reading escape routes", marks.Escapes, func(fd frameData, escs []marks.Escape) {
		for ei, esc := range escs {
			r.escapes = append(r.escapes, modelEscape{frame: fd.idx, index: ei, esc: esc})
			form := "form"
			if esc.Name != "" {
				form = fmt.Sprintf("form %q", clip(esc.Name))
			}
			var marked []string
			for _, id := range esc.Marked {
				marked = append(marked, fd.describe(id))
			}
			verb := "submits"
			if len(marked) > 1 {
				verb = "submit"
			}
			what := fmt.Sprintf("the form that the marked %s %s", strings.Join(marked, " and "), verb)
			for _, rt := range esc.Routes {
				el := fd.describe(rt.ID)
				var msg, route string
				switch {
				case rt.Enter && rt.Via != 0:
					via := fd.describe(rt.Via)
					msg = fmt.Sprintf("Pressing Enter in %s, which no mark covers, submits %s, %s, through %s, its default button (HTML implicit submission): an agent following the extension may take that step this way. Mark the form submission, or mark %s.",
						noun(el), form, what, via, via)
					route = "Enter"
				case rt.Enter:
					msg = fmt.Sprintf("Pressing Enter in %s, which no mark covers, submits %s, %s (HTML implicit submission): an agent following the extension may take that step this way. Mark the form submission, or mark the field.",
						noun(el), form, what)
					route = "Enter"
				case rt.SameTarget:
					msg = fmt.Sprintf("Clicking %s, which no mark covers, sends its own form where the marked %s sends %s (the same action and method): an agent following the extension may make the step's request this way. Mark %s, or send its form elsewhere.",
						noun(el), strings.Join(marked, " and "), form, el)
					route = "click"
				default:
					why := ""
					switch {
					case rt.IsDefault && rt.Outside:
						why = " (it is the form's default button, outside the form with form=)"
					case rt.IsDefault:
						why = " (it is the form's default button)"
					case rt.Outside:
						why = " (it is outside the form, with form=)"
					}
					msg = fmt.Sprintf("Clicking %s, which no mark covers, submits %s, %s%s: an agent following the extension may take that step this way. Mark the form submission, or mark %s.",
						noun(el), form, what, why, el)
					route = "click"
				}
				f := finding("submit-route", Error, CheckSubmitPaths, "BC-4-mark-all", msg).on(fd.idx, rt.ID)
				f.Frame, f.Element, f.Route = fd.f.URL, el, route
				r.routes = append(r.routes, modelRoute{frame: fd.idx, escape: ei, id: rt.ID, enter: rt.Enter, sameTarget: rt.SameTarget, finding: len(r.rep.Findings)})
				r.rep.Findings = append(r.rep.Findings, f)
			}
		}
	})
}

// fieldRoutes reports, from the same model, every field that shares its
// name with a field an interaction mark covers in the same form, while no
// mark covers it (marks.SameName): the form's data carries both values
// under that name, so the value the mark leaves to the User can be given
// through a control an agent may change. A warning, not an error: whether
// the other value counts is the server's reading of the form's data,
// which the checker cannot see.
func (r *pageRun) fieldRoutes(ctx context.Context, frames []frameData) {
	eachCompanyFrame(ctx, r, frames, "reading fields that share a name", marks.SameName, func(fd frameData, shared []marks.Shared) {
		for _, sh := range shared {
			form := "its form"
			if sh.FormName != "" {
				form = fmt.Sprintf("form %q", clip(sh.FormName))
			}
			marked := fd.describe(sh.Field)
			for _, id := range sh.Others {
				el := fd.describe(id)
				msg := fmt.Sprintf("%s, which no mark covers, has the name %q of the marked %s in %s: the form sends both values under that name, so a server that reads this one takes the value the mark leaves to the User from a control an agent may change. Mark it too, or give it another name.",
					sentence(el), clip(sh.Name), marked, form)
				f := finding("field-shares-marked-name", Warning, CheckSubmitPaths, "BC-4-mark-all", msg).on(fd.idx, id)
				f.Frame, f.Element = fd.f.URL, el
				r.rep.Findings = append(r.rep.Findings, f)
			}
		}
	})
}

// eachCompanyFrame gives each what read finds in every Company frame; a
// frame it could not read is logged and left out, as a route the model
// does not show cannot be reported.
func eachCompanyFrame[T any](ctx context.Context, r *pageRun, frames []frameData, what string,
	read func(context.Context, browser.Frame) ([]T, error), each func(frameData, []T)) {
	for _, fd := range frames {
		if !fd.company {
			continue
		}
		found, err := read(ctx, fd.f)
		if err != nil {
			r.c.log.Debug(what, "url", fd.f.URL, "err", err)
			continue
		}
		each(fd, found)
	}
}

// modelEscape is one marks.Escape of the first load, in its frame (the
// index among the frames read) at its index in the frame's list.
type modelEscape struct {
	frame, index int
	esc          marks.Escape
}

// modelRoute is a route formRoutes reported: its escape, its control (a
// local id of the first load), its input and its finding's index.
type modelRoute struct {
	frame, escape, id int
	enter, sameTarget bool
	finding           int
}

// driven is what a probe of a route saw.
type driven int

const (
	drivenSubmitted driven = iota // the form was submitted (the request blocked)
	drivenNothing                 // the input was given; the form was not submitted
	drivenRefused                 // the gate refused the input
	drivenLost                    // the control or the form was not found again on a fresh load
	drivenUntried                 // over Options.MaxProbes
)

// confirmRoutes drives, on a fresh load each, every route the model found
// and every scripted button of a form with a marked submitter, as the
// agent, through the gate's probe mode: the route's click or Enter, with
// every navigation and non-GET request blocked, so nothing is submitted for
// real. A model route is reported either way; its finding says what the
// probe saw. A scripted button that submitted the form is an error; one
// the probe could not drive is a warning (a script may submit the form
// from it); one that was driven and submitted nothing is no finding.
func (r *pageRun) confirmRoutes(ctx context.Context) error {
	budget := r.c.opts.MaxProbes
	for _, rt := range r.routes {
		out, e := drivenUntried, effect{}
		if budget > 0 {
			budget--
			var err error
			if out, e, err = r.drive(ctx, rt.frame, rt.escape, rt.id, rt.enter, rt.sameTarget); err != nil {
				return err
			}
		}
		f := &r.rep.Findings[rt.finding]
		switch out {
		case drivenSubmitted:
			f.Message += " The checker confirmed it: that input, given as an agent, submitted the form" + blockedNote(e) + "." + e.boundNote()
		case drivenNothing:
			f.Message += " The checker gave that input as an agent and saw no submission (a script may have stopped it); the route is reported from the HTML form model." + e.boundNote()
		case drivenRefused:
			f.Message += " The checker's probe was refused that input (hidden, covered or moved on a fresh load); the route is reported from the HTML form model."
		case drivenLost:
			f.Message += " The checker could not find the control again on a fresh load to try it; the route is reported from the HTML form model."
		case drivenUntried:
			f.Message += fmt.Sprintf(" The checker did not try it (more than %d probes on the page); the route is reported from the HTML form model.", r.c.opts.MaxProbes)
		}
	}
	for _, me := range r.escapes {
		fd := r.first[me.frame]
		for _, id := range me.esc.Scripted {
			out, e := drivenUntried, effect{}
			if budget > 0 {
				budget--
				var err error
				if out, e, err = r.drive(ctx, me.frame, me.index, id, false, false); err != nil {
					return err
				}
			}
			switch out {
			case drivenSubmitted:
				r.scriptFinding(fd, me, id, Error, fmt.Sprintf("Clicking %s, which no mark covers, submits %s, %s, by a script%s: an agent following the extension may take that step this way. Mark the form submission, or mark %s.%s",
					noun(fd.describe(id)), escapeForm(me.esc), markedWhat(fd, me.esc), blockedNote(e), fd.describe(id), e.boundNote()))
			case drivenNothing:
				r.unsettledAfter(e, "clicking "+noun(fd.describe(id)))
			default:
				why := map[driven]string{drivenRefused: "its probe was refused the click", drivenLost: "it was not found again on a fresh load",
					drivenUntried: fmt.Sprintf("more than %d probes on the page", r.c.opts.MaxProbes)}[out]
				r.scriptFinding(fd, me, id, Warning, scriptedMessage(fd, me, id, why))
			}
		}
	}
	return nil
}

// untriedScripts reports, without probes (--no-probe), each scripted
// button of a form with a marked submitter: only a script path suggests
// that it submits the form, which the checker did not try.
func (r *pageRun) untriedScripts() {
	for _, me := range r.escapes {
		fd := r.first[me.frame]
		for _, id := range me.esc.Scripted {
			r.scriptFinding(fd, me, id, Warning, scriptedMessage(fd, me, id, "--no-probe"))
		}
	}
}

// scriptedMessage is the warning for a scripted button the checker did
// not drive, why saying why.
func scriptedMessage(fd frameData, me modelEscape, id int, why string) string {
	return fmt.Sprintf("%s, which no mark covers, belongs to %s, %s, and has no action of its own: a script may submit the form from it, which the checker did not try (%s). A warning, not an error: only a script path suggests it. Mark it, or mark the form submission.",
		sentence(fd.describe(id)), escapeForm(me.esc), markedWhat(fd, me.esc), why)
}

func (r *pageRun) scriptFinding(fd frameData, me modelEscape, id int, sev Severity, msg string) {
	kind := "submit-route-script"
	if sev != Error {
		kind = "submit-route-script-untried"
	}
	f := finding(kind, sev, CheckSubmitPaths, "BC-4-mark-all", msg).on(fd.idx, id)
	f.Frame, f.Element, f.Route = fd.f.URL, fd.describe(id), "click"
	r.rep.Findings = append(r.rep.Findings, f)
}

// escapeForm names an escape's form.
func escapeForm(esc marks.Escape) string {
	if esc.Name != "" {
		return fmt.Sprintf("form %q", clip(esc.Name))
	}
	return "the form"
}

// markedWhat says which marked submitters submit an escape's form.
func markedWhat(fd frameData, esc marks.Escape) string {
	var marked []string
	for _, id := range esc.Marked {
		marked = append(marked, fd.describe(id))
	}
	verb := "submits"
	if len(marked) > 1 {
		verb = "submit"
	}
	return fmt.Sprintf("the form that the marked %s %s", strings.Join(marked, " and "), verb)
}

// blockedNote names the requests a probe blocked.
func blockedNote(e effect) string {
	if len(e.reqs) == 0 {
		return ""
	}
	return " (" + describeRequests(e.reqs) + ", blocked by the checker)"
}

// drive loads the page afresh as the agent and gives control id (a local
// id of the first load's frame) of escape index of that frame a click, or
// Enter, through the gate's probe mode, with requests blocked; it reports
// whether that escape's form was submitted (with sameTarget, whether a
// form was submitted with a request: the control's own form, sent where
// the escape's marked submitter sends its form).
func (r *pageRun) drive(ctx context.Context, frame, index, id int, enter, sameTarget bool) (out driven, e effect, err error) {
	want := r.first[frame]
	el, ok := want.byID[id]
	if !ok {
		return drivenLost, e, nil
	}
	err = r.asAgent(func() error {
		frames, err := r.reload(ctx)
		if err != nil {
			return err
		}
		fd, ok := sameFrame(frames, want)
		if !ok {
			out = drivenLost
			return nil
		}
		escs, err := marks.Escapes(ctx, fd.f)
		if err != nil || index >= len(escs) || escs[index].Name != r.escapeAt(frame, index).Name {
			out = drivenLost
			return nil
		}
		target, ok := findAgain(fd, want, el)
		if !ok {
			out = drivenLost
			return nil
		}
		var a gate.Action = gate.Click{}
		if enter {
			a = gate.PressKey{Key: "Enter"}
		}
		rec, stop, err := r.record(ctx)
		if err != nil {
			return err
		}
		defer stop()
		since := r.clocks(ctx, frames)
		given, refused := r.give(ctx, fd, target.ID, a, false)
		switch {
		case refused:
			out = drivenRefused
			return nil
		case !given:
			out = drivenLost
			return nil
		}
		e = r.watchEffect(ctx, frames, since, rec, 0)
		out = drivenNothing
		if e.submitted(fd.f, escs[index].Form) || (sameTarget && len(e.reqs) > 0 && len(e.events[string(fd.f.ID)]) > 0) {
			out = drivenSubmitted
		}
		return nil
	})
	return out, e, err
}

// escapeAt is escape index of the first load's frame.
func (r *pageRun) escapeAt(frame, index int) marks.Escape {
	for _, me := range r.escapes {
		if me.frame == frame && me.index == index {
			return me.esc
		}
	}
	return marks.Escape{}
}
