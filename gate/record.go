package gate

import (
	"net/url"
	"strings"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/spec"
)

// record writes one audit line for a decision. It never holds typed text:
// only tool, ref, reason, mark, epoch and URLs. An action is recorded on
// the page it acted on (before, the URL when the run began), with where
// it led in To; a navigation with where it landed and, in From, the page
// it left; a failed navigation with the URL it tried and its error.
func (g *Gate) record(a Action, ref, before string, res Result) {
	after := withoutQuery(res.Page.URL)
	before = withoutQuery(before)
	if before == "" {
		before = after
	}
	e := audit.Entry{Tool: a.Tool(), Ref: ref, URL: before, Epoch: res.Page.Epoch, By: g.by}
	if c, ok := a.(WebMCPCall); ok {
		e.WebMCPTool = clipName(c.Name)
	}
	nav, isNav := a.(Navigate)
	_, isBack := a.(Back)
	switch res.Outcome {
	case spec.OutcomeDone:
		e.Event = audit.EventAction
		if after != before {
			e.To = after
		}
		if isNav || isBack {
			e.Event, e.URL, e.To = audit.EventNavigate, after, ""
			if before != after {
				e.From = before
			}
		}
	case spec.OutcomeDenied:
		e.Event, e.Reason = audit.EventDenied, string(res.Reason)
	default:
		e.Event, e.Reason = audit.EventError, string(res.Reason)
		if isNav && res.Reason != spec.ReasonBadURL {
			// The browser shows its error page (chrome-error://...): the
			// line names the URL that failed, and why.
			e.URL, e.From = withoutQuery(nav.URL), before
		}
		if isNav || isBack {
			e.Message = navError(res.Message)
		}
	}
	if m := res.Mark; m != nil {
		e.Mark = &audit.Mark{Kind: m.Kind, Marked: m.Marked, Touches: m.Touches}
	}
	if err := g.audit.Record(e); err != nil {
		g.log.Error("audit record failed", "tool", a.Tool(), "err", err)
	}
	// What the action opened: tabs, and a dialog (its type only: the
	// message is the page's text).
	var more []audit.Entry
	for _, t := range res.TabsOpened {
		more = append(more, audit.Entry{Event: audit.EventTab, Tool: a.Tool(), URL: withoutQuery(t.URL), Epoch: res.Page.Epoch})
	}
	if res.Dialog != nil && res.Outcome == spec.OutcomeDone && a.Tool() != spec.ToolHandleDialog {
		more = append(more, audit.Entry{Event: audit.EventDialog, Tool: a.Tool(), URL: e.URL, Message: res.Dialog.Type, Epoch: res.Page.Epoch})
	}
	for _, m := range more {
		if err := g.audit.Record(m); err != nil {
			g.log.Error("audit record failed", "tool", a.Tool(), "err", err)
		}
	}
}

// navError is the cause at the end of a failed navigation's message
// ("net::ERR_NAME_NOT_RESOLVED"), without the URL the message names (its
// query may hold what a form sent).
func navError(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// withoutQuery drops a URL's query and fragment for the audit log: a form
// the User sent with GET puts what they typed there.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}
