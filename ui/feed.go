package ui

import (
	"strconv"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
)

// feedFromEvent is the feed's line for one of control's events, read from
// its typed fields: who acted, and what it means to the User in the same
// words as the audit log's line for it shows (feedFromAudit), with no
// offer id or return count, which mean nothing to the User.
func feedFromEvent(e control.Event) feedLine {
	l := feedLine{at: e.Time, who: audit.ByUser, kind: "control"}
	reason := ""
	if e.Offer != nil {
		reason = e.Offer.Reason
	}
	switch e.Kind {
	case control.Offered:
		l.who, l.kind = audit.ByAgent, "offer"
	case control.Declined:
		l.kind = "offer"
	}
	l.what = controlWords(e.Kind, reason)
	return l
}

// controlWords says what one of control's events means to the User; reason
// is the agent's reason for an offer (the model's words, quoted as one
// line).
func controlWords(k control.Kind, reason string) string {
	switch k {
	case control.Offered:
		if reason == "" {
			return "asked you to take control"
		}
		return "asked you to take control: " + strconv.Quote(pagetext.Line(reason))
	case control.Declined:
		return "declined the offer of control"
	case control.Taken:
		return "took control; the browser is the User's"
	case control.HandedBack:
		return "handed control back to the agent; the agent must look again"
	case control.Cancelled:
		return "cancelled; control is back with the agent"
	}
	return k.String()
}
