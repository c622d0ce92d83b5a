package check

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// CheckWebMCP is the check of the page's WebMCP tools (the WebMCP draft's
// document.modelContext): a declarative tool that submits a form a mark
// covers performs the User's step by being filled.
const CheckWebMCP = "webmcp"

// WebMCPTool is one WebMCP tool of the page's top document, as the marks
// table lists it.
type WebMCPTool struct {
	Name string `json:"name"`
	// Kind is "declarative" (a <form toolname>) or "imperative" (a script's
	// registerTool).
	Kind string `json:"kind"`
	// Autosubmit: the declarative tool submits the form it fills
	// (toolautosubmit).
	Autosubmit bool `json:"autosubmit,omitempty"`
	// Form is a declarative tool's form, as role "name"; Mark the kind of
	// the mark covering its submission, or for an imperative tool the mark
	// of the step its call reached (the probe), if any.
	Form string        `json:"form,omitempty"`
	Mark spec.MarkKind `json:"mark,omitempty"`
}

// webmcpTools lists the top document's WebMCP tools in the report and
// finds the declarative tools whose toolautosubmit submits a marked form.
// A browser without WebMCP lists none.
func (r *pageRun) webmcpTools(ctx context.Context, frames []frameData) {
	supported := r.p.WebMCPSupported(ctx)
	if supported == nil || errors.Is(supported, browser.ErrWebMCPUnsupported) {
		ok := supported == nil
		r.rep.WebMCPSupported = &ok
	}
	tools, err := r.p.WebMCPTools()
	if len(frames) > 0 {
		// The declarative forms as written are checked even when the
		// browser registered no tool (a form with no toolname).
		defer r.webmcpDefinitions(ctx, frames[0], tools)
	}
	if err != nil || len(tools) == 0 || len(frames) == 0 {
		return
	}
	top := frames[0]
	var names []string
	for _, t := range tools {
		if t.Declarative {
			names = append(names, t.Name)
		}
	}
	forms, err := marks.ToolForms(ctx, top.f, names)
	if err != nil {
		r.c.log.Debug("reading the WebMCP tools' forms failed", "err", err)
		forms = nil
	}
	// A form whose marked submitter (or button) is the User's step: the
	// tool's autosubmit submits it without that control.
	stepped := map[int]marks.Escape{}
	if escs, err := marks.Escapes(ctx, top.f); err == nil {
		for _, esc := range escs {
			stepped[esc.Form] = esc
		}
	}
	for _, t := range tools {
		row := WebMCPTool{Name: t.Name, Kind: "imperative"}
		if t.Declarative {
			row.Kind, row.Autosubmit = "declarative", t.Autosubmit
		}
		form, ok := forms[t.Name]
		esc, viaMarked := stepped[form.ID]
		if ok {
			row.Form = top.describe(form.ID)
			if row.Form == "element" { // a form no mark is on is not in the scan's lists
				row.Form = fmt.Sprintf("form %q", t.Name)
				if viaMarked && esc.Name != "" {
					row.Form = fmt.Sprintf("form %q", clip(esc.Name))
				}
			}
			switch {
			case len(form.Marks) > 0:
				row.Mark = form.Marks[0].Kind
			case viaMarked:
				row.Mark = spec.Interaction
			}
		}
		r.rep.WebMCP = append(r.rep.WebMCP, row)
		if !ok || !row.Autosubmit || row.Mark == "" {
			continue
		}
		step := fmt.Sprintf("a %s mark leaves that step to the User", row.Mark)
		if len(form.Marks) == 0 && viaMarked {
			step = markedWhat(top, esc) + ", and its mark leaves that step to the User"
			step = strings.Replace(step, "the form that", "the form is the one that", 1)
		}
		// An error: an agent's action (the call) takes the marked step.
		f := finding("webmcp-autosubmit-marked", Error, CheckWebMCP, "BC-4-fill-not-perform", fmt.Sprintf(
			"The WebMCP tool %q submits %s when an agent fills it (toolautosubmit), but %s: an agent's browser that runs the tool performs the step by filling the form in. Remove toolautosubmit (the WebMCP draft's own answer for a step that is the human's: the browser fills the form, the human submits it).",
			t.Name, row.Form, step))
		f.Frame, f.Element = top.f.URL, row.Form
		f.at = &elementRef{frame: top.idx, id: form.ID}
		r.rep.Findings = append(r.rep.Findings, f)
	}
	if !contains(r.rep.Checked, "BC-4-fill-not-perform") {
		r.rep.Checked = append(r.rep.Checked, "BC-4-fill-not-perform")
	}
}

// webmcpProbes calls each imperative tool of the page once, with no
// arguments, on a fresh load, through the gate's probe mode: the in-page
// guard is armed for the tool's run, so a submission, activation or change
// of a marked step its script causes is stopped (never taken for real),
// and every request it sends is answered by the browser (nothing reaches
// the Company). A tool stopped that way is a finding: another agent's
// browser would take the User's step by calling it.
func (r *pageRun) webmcpProbes(ctx context.Context) error {
	for i, t := range r.rep.WebMCP {
		if t.Kind != "imperative" {
			continue
		}
		var res gate.Result
		err := r.asAgent(func() error {
			all, err := r.reload(ctx)
			if err != nil || len(all) == 0 {
				return err
			}
			_, stop, err := r.record(ctx)
			if err != nil {
				return err
			}
			defer stop()
			res = r.rt.probe.Do(ctx, r.p, gate.Probe{Frame: string(all[0].f.ID), Action: gate.WebMCPCall{Name: t.Name}})
			return nil
		})
		if err != nil {
			return err
		}
		if res.Reason != spec.ReasonUserStep || res.CaughtBy != gate.CaughtByGuard || res.Mark == nil {
			continue
		}
		r.rep.WebMCP[i].Mark = res.Mark.Kind
		f := finding("webmcp-tool-takes-step", Warning, CheckWebMCP, "BC-4-mark-all", fmt.Sprintf(
			"Calling the WebMCP tool %q takes a step a %s mark leaves to the User (its script reached it; poppy-browser's guard stopped it, and the probe sent nothing): an agent's browser that runs the tool performs the step. Let the tool fill the form and leave the step to the User, or do not offer it to agents.",
			t.Name, res.Mark.Kind))
		f.Frame = r.rep.FinalURL
		r.rep.Findings = append(r.rep.Findings, f)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
