package check

import (
	"context"
	"fmt"

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
	// the mark covering its submission, if any.
	Form string        `json:"form,omitempty"`
	Mark spec.MarkKind `json:"mark,omitempty"`
}

// webmcpTools lists the top document's WebMCP tools in the report and
// finds the declarative tools whose toolautosubmit submits a marked form.
// A browser without WebMCP lists none.
func (r *pageRun) webmcpTools(ctx context.Context, frames []frameData) {
	tools, err := r.p.WebMCPTools()
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
	for _, t := range tools {
		row := WebMCPTool{Name: t.Name, Kind: "imperative"}
		if t.Declarative {
			row.Kind, row.Autosubmit = "declarative", t.Autosubmit
		}
		form, ok := forms[t.Name]
		if ok {
			row.Form = top.describe(form.ID)
			if len(form.Marks) > 0 {
				row.Mark = form.Marks[0].Kind
			}
		}
		r.rep.WebMCP = append(r.rep.WebMCP, row)
		if !ok || !row.Autosubmit || row.Mark == "" {
			continue
		}
		f := finding(Warning, CheckWebMCP, "BC-4-fill-not-perform", fmt.Sprintf(
			"The WebMCP tool %q submits %s when an agent fills it (toolautosubmit), but a %s mark leaves that step to the User: an agent's browser that runs the tool performs the step by filling the form in. Remove toolautosubmit (the WebMCP draft's own answer for a step that is the human's: the browser fills the form, the human submits it); poppy-browser fills and never submits, but another agent's browser would.",
			t.Name, row.Form, row.Mark))
		f.Frame, f.Element = top.f.URL, row.Form
		f.at = &elementRef{frame: top.idx, id: form.ID}
		r.rep.Findings = append(r.rep.Findings, f)
	}
	if !contains(r.rep.Checked, "BC-4-fill-not-perform") {
		r.rep.Checked = append(r.rep.Checked, "BC-4-fill-not-perform")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
