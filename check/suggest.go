package check

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/poppy-browser/poppy-browser/marks"
)

// A page without marks may still have steps that are the User's. The
// checker suggests a mark for the few controls that almost always are,
// judged by their type and accessible name (the label a person reads):
//
//   - a password field: the User's secret;
//   - a passport or identity document number;
//   - a payment card's number, security code or expiry;
//   - a consent checkbox: agreeing to terms, conditions or a declaration;
//   - a button that pays or buys: "Pay", "Pay now", "Place order", "Buy
//     now", "Purchase", "Confirm payment", "Complete purchase".
//
// They are info findings: the Company decides what its steps are.
var (
	passportName = regexp.MustCompile(`(?i)\b(passport|identity (card|document)|id (card|document|number))\b`)
	cardName     = regexp.MustCompile(`(?i)\b(card ?number|credit card|debit card|payment card|cvc|cvv|security code|expiry|expiration)\b`)
	consentName  = regexp.MustCompile(`(?i)\b(i agree|agree to|accept|consent|terms|conditions|declare|authori[sz]e)\b`)
	payName      = regexp.MustCompile(`(?i)^\s*(pay|pay now|place (my )?order|buy now|purchase|confirm payment|complete (the )?purchase)\b`)
)

// userStep says what kind of User's step a control looks like, or "".
func userStep(e marks.Element) string {
	if e.Disabled {
		return ""
	}
	field := e.Tag == "input" || e.Tag == "textarea" || e.Role == "textbox"
	switch {
	case e.Tag == "input" && e.Type == "password":
		return "a password"
	case field && passportName.MatchString(e.Name):
		return "a passport or identity document"
	case field && cardName.MatchString(e.Name):
		return "a payment card"
	case (e.Type == "checkbox" || e.Role == "checkbox" || e.Role == "switch") && consentName.MatchString(e.Name):
		return "the User's consent"
	case e.Role == "button" && payName.MatchString(e.Name):
		return "a payment or a purchase"
	}
	return ""
}

// maxSuggestions bounds the suggestions on one page.
const maxSuggestions = 5

// suggestMarks suggests marks for controls that look like a User's step
// on a page whose Company frames have no mark at all.
func (r *pageRun) suggestMarks(frames []frameData) {
	for _, fd := range frames {
		if fd.company && len(fd.inv) > 0 {
			return
		}
	}
	n := 0
	for _, fd := range frames {
		if !fd.company {
			continue
		}
		for _, e := range fd.scan.Elements {
			what := userStep(e)
			if what == "" || n == maxSuggestions {
				continue
			}
			n++
			el := fd.describe(e.ID)
			f := finding("mark-suggested", Info, CheckMarks, "BC-4-mark-all", fmt.Sprintf(
				"The page has no marks, but %s looks like %s. If a step is the User's, mark its form or its control with data-poppy-user-step, or an agent may take it. The checker cannot tell whether the step is the User's, so this is no warning.", noun(el), what)).on(fd.idx, e.ID)
			f.Frame, f.Element = fd.f.URL, el
			r.rep.Findings = append(r.rep.Findings, f)
		}
	}
}

// noun is an element's description inside a sentence: one without a name
// ("form") gets an article ("the form").
func noun(desc string) string {
	if !strings.ContainsAny(desc, " \"") {
		return "the " + desc
	}
	return desc
}

// sentence is noun at the start of a sentence.
func sentence(desc string) string {
	if n := noun(desc); n != desc {
		return "The" + strings.TrimPrefix(n, "the")
	}
	return desc
}
