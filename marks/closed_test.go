package marks_test

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestClosedRootsOfAnyHost (issue 20): closed shadow roots on ordinary
// elements (a div, a span inside another closed root) and in a child
// frame are scanned, and an action in them is judged by their marks.
func TestClosedRootsOfAnyHost(t *testing.T) {
	tp, ctx := open(t, "/closed.html")
	s := tp.scan(ctx, t)
	field := tp.id(ctx, t, s, "textbox Div closed field")
	tp.id(ctx, t, s, "form Div closed form")
	v, err := marks.Check(ctx, tp.frame, marks.Action{Kind: marks.ActionKey, ID: field, Key: "Enter"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Marks) != 1 || v.Marks[0].Kind != spec.Submission {
		t.Errorf("Enter in a field of a div's closed root: marks %+v, want the form's submission mark", v.Marks)
	}
	nested := tp.id(ctx, t, s, "button Nested closed button")
	v, err = marks.Check(ctx, tp.frame, marks.Action{Kind: marks.ActionClick, ID: nested})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Marks) != 1 || v.Marks[0].Kind != spec.Interaction || v.Marks[0].Marked != nested {
		t.Errorf("click in a closed root inside a closed root: marks %+v, want its own interaction mark", v.Marks)
	}

	// A closed root attached after the scan, with the focus in it: a key
	// press without a target is judged inside it.
	tp.eval(ctx, t, `const d = document.body.appendChild(document.createElement("div"));
		const r = d.attachShadow({mode: "closed"});
		r.innerHTML = '<form data-poppy-user-step="submission"><input id="late"></form>';
		r.getElementById("late").focus();`)
	v, err = marks.Check(ctx, tp.frame, marks.Action{Kind: marks.ActionKey, Key: "Enter"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Marks) != 1 || v.Marks[0].Kind != spec.Submission {
		t.Errorf("Enter in a focused field of a closed root attached after the scan: marks %+v, want the form's submission mark", v.Marks)
	}

	// The child frame's closed root, read in that frame.
	child := childFrame(ctx, t, tp.p)
	cs, err := marks.ScanFrame(ctx, child)
	if err != nil {
		t.Fatal(err)
	}
	inFrame := &testPage{p: tp.p, frame: child}
	cf := inFrame.id(ctx, t, cs, "textbox Frame closed field")
	v, err = marks.Check(ctx, child, marks.Action{Kind: marks.ActionType, ID: cf, Key: "Enter"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Marks) != 1 || v.Marks[0].Kind != spec.Submission || v.Marks[0].Marked != inFrame.id(ctx, t, cs, "form Frame closed form") {
		t.Errorf("Enter in a field of a closed root in a frame: marks %+v, want the form's submission mark", v.Marks)
	}
}

// childFrame waits for the page's one child frame to show a document.
func childFrame(ctx context.Context, t *testing.T, p *browser.Page) browser.Frame {
	t.Helper()
	for {
		for _, f := range p.Frames() {
			if f.ParentID != "" && f.URL != "" {
				return f
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the page's child frame never appeared: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
