package gate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Wait waits for Seconds (at most [MaxWait]; 0 means 1 s, or [MaxWait] when
// Text is set), or until Text appears on the page.
type Wait struct {
	Seconds float64
	Text    string
}

// MaxWait bounds a [Wait].
const MaxWait = 30 * time.Second

// WaitInput is browser_wait's input.
type WaitInput struct {
	Seconds float64 `json:"seconds,omitempty"`
	Text    string  `json:"text,omitempty"`
}

var waitDecl = Decl[WaitInput]{
	Tool:        "browser_wait",
	Title:       "Wait",
	Description: "Wait up to 30 s, or until a text appears.",
	Loop:        Loop{Name: "wait", Brief: "Wait up to 30 seconds, or until a text appears on the page."},
	User:        UserWords{Did: "waited", Refused: "wait"},
	Notes:       "at most 30 s",
	ReadOnly:    true,
	Schema: func(s *jsonschema.Schema) {
		s.Properties["seconds"].Minimum = ptr(0.0)
		s.Properties["seconds"].Maximum = ptr(MaxWait.Seconds())
	},
	Build: func(in WaitInput) Action { return Wait{Seconds: in.Seconds, Text: in.Text} },
}

func (Wait) Tool() string { return spec.ToolWait }

func (a Wait) plan() plan {
	var d time.Duration
	switch {
	case !(a.Seconds >= 0): // NaN too
		return plan{bad: fail(spec.ReasonBadArgument, "seconds must be 0 or more.")}
	case a.Seconds == 0 && a.Text != "":
		d = MaxWait
	case a.Seconds == 0:
		d = time.Second
	case a.Seconds >= MaxWait.Seconds():
		d = MaxWait
	default:
		d = time.Duration(a.Seconds * float64(time.Second))
	}
	return plan{
		dispatch: func(ctx context.Context, st *step) error { return st.wait(ctx, d, a.Text) },
		done:     func(ctx context.Context, st *step) Result { return st.done(ctx, st.note) },
	}
}

// wait polls the page for text until d has passed (Gate.Do stops it when
// the User takes control).
func (st *step) wait(ctx context.Context, d time.Duration, text string) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if text != "" && st.r.pageHasText(wctx, text) {
			st.note = fmt.Sprintf("The text %q is on the page.", text)
			return nil
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return fail(spec.ReasonTimeout, "The wait was cut short.")
			}
			if text != "" {
				return fail(spec.ReasonTimeout, fmt.Sprintf("The text %q did not appear within %s.", text, d))
			}
			st.note = fmt.Sprintf("Waited %s.", d)
			return nil
		case <-tick.C:
		}
	}
}

// pageHasText reports whether any frame shows text (case-insensitive). A
// wait polls across page loads, so each poll reads the frame list anew.
func (r *run) pageHasText(ctx context.Context, text string) bool {
	want := strings.ToLower(text)
	for _, f := range r.refreshFrames() {
		sc, err := r.marks.Scan(ctx, f, 0)
		if err != nil {
			continue
		}
		if strings.Contains(strings.ToLower(sc.Title), want) {
			return true
		}
		for _, e := range sc.Elements {
			if e.UserField {
				continue
			}
			if strings.Contains(strings.ToLower(e.Text), want) || strings.Contains(strings.ToLower(e.Name), want) {
				return true
			}
		}
	}
	return false
}
