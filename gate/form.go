package gate

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// A form's action of its own: selecting options of a native <select>,
// declared once (a [Decl]) beside its plan.

// Select selects Values (option values or labels) of a native <select>.
type Select struct {
	Ref    string
	Values []string
}

// SelectInput is browser_select's input.
type SelectInput struct {
	Ref    string   `json:"ref" jsonschema:"the select's ref"`
	Values []string `json:"values" jsonschema:"option values or labels"`
}

var selectDecl = Decl[SelectInput]{
	Tool:        "browser_select",
	Title:       "Select",
	Description: "Select options of a select element.",
	Loop:        Loop{Name: "select", Brief: "Select options of a native select element by its ref."},
	User:        UserWords{Did: "chose an option", Refused: "choice of an option"},
	Notes:       "native `<select>`; the result's `selected` has the values now selected",
	Schema:      func(s *jsonschema.Schema) { s.Properties["values"].MinItems = ptr(1) },
	Build:       func(in SelectInput) Action { return Select{Ref: in.Ref, Values: in.Values} },
}

func (Select) Tool() string                { return spec.ToolSelect }
func (a Select) withRef(ref string) Action { a.Ref = ref; return a }

func (a Select) plan() plan {
	p := plan{
		ref:     a.Ref,
		touch:   &marks.Action{Kind: marks.ActionSelect},
		lease:   inputLease,
		changes: true,
		dispatch: func(ctx context.Context, st *step) error {
			var err error
			st.selected, err = st.r.input.SelectValues(ctx, st.frame, st.target.id, a.Values)
			return err
		},
		done: func(ctx context.Context, st *step) Result {
			res := st.done(ctx, fmt.Sprintf("Selected %s in %s.", quoteList(st.selected), st.target.ref))
			res.Selected = st.selected
			return res
		},
	}
	if len(a.Values) == 0 {
		p.bad = fail(spec.ReasonBadArgument, "Give at least one value to select.")
	}
	return p
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
