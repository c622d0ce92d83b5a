package gate

import (
	"os"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// readmeMarksExample is the mark markup example of README.md (the html
// block after "<!-- marks-example -->"), "" when it is not there.
func readmeMarksExample() string {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(string(b), "<!-- marks-example -->\n```html\n")
	if !ok {
		return ""
	}
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// TestChromiumREADMEMarksExample: the README's five-line example for
// Company developers does what its words say, in real Chromium: the agent
// may choose the seat, the passport number and Check in are the User's.
func TestChromiumREADMEMarksExample(t *testing.T) {
	if n := strings.Count(strings.TrimSpace(readmeMarksExample()), "\n") + 1; n != 5 {
		t.Fatalf("README's marks example is %d lines, want 5:\n%s", n, readmeMarksExample())
	}
	g, _, ctx := chromiumGate(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/readme-marks"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	seat := refByName(t, snap, "combobox", "Seat")
	passport := refByName(t, snap, "textbox", "Passport number")
	button := refByName(t, snap, "button", "Check in")
	must(t, g.Do(ctx, Select{Ref: seat.Ref, Values: []string{"14C"}}), spec.OutcomeDone, "")
	must(t, g.Do(ctx, Type{Ref: passport.Ref, Text: "P1234567"}), spec.OutcomeDenied, spec.ReasonUserStep)
	must(t, g.Do(ctx, Click{Ref: button.Ref}), spec.OutcomeDenied, spec.ReasonUserStep)
}
