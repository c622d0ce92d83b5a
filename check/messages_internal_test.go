package check

import (
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
)

func TestUserStep(t *testing.T) {
	for _, tc := range []struct {
		name string
		el   marks.Element
		want string
	}{
		{"password", marks.Element{Tag: "input", Type: "password", Role: "textbox", Name: "PIN"}, "a password"},
		{"passport", marks.Element{Tag: "input", Type: "text", Role: "textbox", Name: "Passport number"}, "a passport or identity document"},
		{"card number", marks.Element{Tag: "input", Role: "textbox", Name: "Card number"}, "a payment card"},
		{"security code", marks.Element{Tag: "input", Role: "textbox", Name: "Security code (CVC)"}, "a payment card"},
		{"consent", marks.Element{Tag: "input", Type: "checkbox", Role: "checkbox", Name: "I agree to the terms and conditions"}, "the User's consent"},
		{"name", marks.Element{Tag: "input", Role: "textbox", Name: "Full name"}, ""},
		{"newsletter", marks.Element{Tag: "input", Type: "checkbox", Role: "checkbox", Name: "Send me offers"}, ""},
		{"passport link", marks.Element{Tag: "a", Role: "link", Name: "Passport rules"}, ""},
		{"disabled", marks.Element{Tag: "input", Type: "password", Disabled: true}, ""},
		{"card as a button", marks.Element{Tag: "button", Role: "button", Name: "Card number help"}, ""},
		{"pay button", marks.Element{Tag: "button", Role: "button", Name: "Pay now"}, "a payment or a purchase"},
		{"place order", marks.Element{Tag: "input", Type: "submit", Role: "button", Name: "Place order"}, "a payment or a purchase"},
		{"payment options", marks.Element{Tag: "button", Role: "button", Name: "Payment options"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := userStep(tc.el); got != tc.want {
				t.Errorf("userStep(%+v) = %q, want %q", tc.el, got, tc.want)
			}
		})
	}
}

func TestNoun(t *testing.T) {
	for _, tc := range []struct{ desc, noun, sentence string }{
		{"form", "the form", "The form"},
		{`form "check-in"`, `form "check-in"`, `form "check-in"`},
		{`input name="passport"`, `input name="passport"`, `input name="passport"`},
	} {
		if got := noun(tc.desc); got != tc.noun {
			t.Errorf("noun(%q) = %q, want %q", tc.desc, got, tc.noun)
		}
		if got := sentence(tc.desc); got != tc.sentence {
			t.Errorf("sentence(%q) = %q, want %q", tc.desc, got, tc.sentence)
		}
	}
	// An unnamed form in the submission message reads as English.
	if got, want := fmt.Sprintf("When the User submits %s, ...", noun("form")), "When the User submits the form, ..."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHints(t *testing.T) {
	up := func() bool { return true }
	down := func() bool { return false }
	notFound := fmt.Errorf("fetching poppy.json: %w", &net.DNSError{Err: "no such host", Name: "example.com", IsNotFound: true})
	refused := fmt.Errorf("fetching poppy.json: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: network is unreachable")})
	for _, tc := range []struct {
		name  string
		hint  func(error, func() bool) string
		err   error
		dnsUp func() bool
		want  string
	}{
		{"discovery: name not in DNS", flagHint, notFound, up, hintResolve},
		{"discovery: offline", flagHint, notFound, down, hintUnreachable},
		{"discovery: network unreachable", flagHint, refused, up, hintUnreachable},
		{"load: name not in DNS", loadHint, errors.New("page load error net::ERR_NAME_NOT_RESOLVED"), up, hintResolve},
		{"load: offline", loadHint, errors.New("page load error net::ERR_NAME_NOT_RESOLVED"), down, hintUnreachable},
		{"load: disconnected", loadHint, errors.New("page load error net::ERR_INTERNET_DISCONNECTED"), up, hintUnreachable},
		{"load: private CA", loadHint, errors.New("page load error net::ERR_CERT_AUTHORITY_INVALID"), up, hintCAFile},
		{"load: refused", loadHint, errors.New("page load error net::ERR_CONNECTION_REFUSED"), up, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.hint(tc.err, tc.dnsUp); got != tc.want {
				t.Errorf("hint for %v = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

// TestCouldNotCheckCounts: a page that could not be checked is one error,
// whatever it found before it failed, in the counts and in every output.
func TestCouldNotCheckCounts(t *testing.T) {
	r := &Report{Pages: []PageReport{
		{URL: "https://a.example/", Status: StatusFailed, Error: "loading the page: HTTP 404", Findings: []Finding{}},
		{URL: "https://b.example/", Status: StatusChecked, Findings: []Finding{finding("mark-unknown-value", Warning, CheckMarks, "BC-4-values", "w")}},
	}}
	r.tally()
	if want := (Counts{Error: 1, Warning: 1}); r.Counts != want || r.Failed != 1 {
		t.Errorf("counts %+v failed %d, want %+v and 1", r.Counts, r.Failed, want)
	}
	if got := r.ExitCode(Error); got != ExitCouldNotCheck {
		t.Errorf("exit code %d, want %d", got, ExitCouldNotCheck)
	}
}
