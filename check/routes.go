package check

import (
	"context"
	"fmt"
	"strings"

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
	for _, fd := range frames {
		if !fd.company {
			continue
		}
		escs, err := marks.Escapes(ctx, fd.f)
		if err != nil {
			r.c.log.Debug("reading escape routes", "url", fd.f.URL, "err", err)
			continue
		}
		for _, esc := range escs {
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
				f := finding(Error, CheckSubmitPaths, "BC-4-mark-all", msg).on(fd.idx, rt.ID)
				f.Frame, f.Element, f.Route = fd.f.URL, el, route
				r.rep.Findings = append(r.rep.Findings, f)
			}
		}
	}
}
