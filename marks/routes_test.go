package marks_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/marks"
)

// TestSameNameAndScripted: the fields that share a marked field's name
// are those of its form an agent may change (not hidden, disabled, marked,
// nor a radio of the marked radio's group, which the gate judges
// together); a form whose only submitter is marked is listed with the
// buttons a script could submit it from (inside it or owned with form=,
// unmarked), and no routes.
func TestSameNameAndScripted(t *testing.T) {
	tp, ctx := open(t, "/routes.html")
	s := tp.scan(ctx, t)
	id := func(sel string) int { return tp.id(ctx, t, s, "css:"+sel) }

	shared, err := marks.SameName(ctx, tp.frame)
	if err != nil {
		t.Fatal(err)
	}
	want := []marks.Shared{
		{Field: id("#amount"), Form: id("#donate"), FormName: "donate", Name: "amount", Others: []int{id("#other")}},
		{Field: id("#too"), Form: id("#donate"), FormName: "donate", Name: "amount", Others: []int{id("#other")}},
	}
	if diff := cmp.Diff(want, shared); diff != "" {
		t.Errorf("SameName (-want +got):\n%s", diff)
	}

	escs, err := marks.Escapes(ctx, tp.frame)
	if err != nil {
		t.Fatal(err)
	}
	wantEsc := []marks.Escape{{Form: id("#pay"), Name: "pay", Marked: []int{id("#payb")}, Routes: []marks.Route{},
		Scripted: []int{id("#quick"), id("#outside")}}}
	if diff := cmp.Diff(wantEsc, escs); diff != "" {
		t.Errorf("Escapes (-want +got):\n%s", diff)
	}
}

// TestStepForms: a form whose only marked control is a div role=button is
// a step form too (Enter in its one field submits it); a submitter of
// another form that sends it where the marked Pay sends its own is a way
// out (the page names both actions); links to "#" are scripted; a real
// link is not.
func TestStepForms(t *testing.T) {
	tp, ctx := open(t, "/step-forms.html")
	s := tp.scan(ctx, t)
	id := func(sel string) int { return tp.id(ctx, t, s, "css:"+sel) }
	escs, err := marks.Escapes(ctx, tp.frame)
	if err != nil {
		t.Fatal(err)
	}
	want := []marks.Escape{
		{Form: id("#pay"), Name: "pay", Marked: []int{id("#payb")}, Routes: []marks.Route{{ID: id("#same"), Outside: true, SameTarget: true}},
			Scripted: []int{id("#hash")}},
		{Form: id("#voucher"), Name: "voucher", Marked: []int{id("#redeem")}, Routes: []marks.Route{{ID: id("#code"), Enter: true}},
			Scripted: []int{id("#hash")}},
	}
	if diff := cmp.Diff(want, escs); diff != "" {
		t.Errorf("Escapes (-want +got):\n%s", diff)
	}
}
