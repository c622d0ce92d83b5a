package gate

//go:generate go run ./internal/gencatalogue

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Entry is one action of the catalogue as its readers see it: what both
// the MCP server and the built-in loop offer a model for it, and how its
// input becomes the action value that passes [Gate.Do]. Each entry is
// declared once, as a [Decl] next to the action's plan.
type Entry struct {
	// Tool is the MCP tool (spec.Tool*).
	Tool string
	// Title is the tool's human-readable name.
	Title string
	// Description tells an MCP client's model what the tool does.
	Description string
	// Loop is how the built-in loop offers the action; its zero value
	// when the loop does not (it takes its own snapshots).
	Loop Loop
	// User tells the User the action in their own terminal's feed.
	User UserWords
	// Notes is what docs/reference.md's table of tools says of the tool
	// beyond its inputs (Markdown): its result's fields, its limits. The
	// table is generated from them and the served tools/list
	// (mcpserver's TestReferenceToolTable).
	Notes string
	// ReadOnly is set for an action that changes nothing on the page;
	// Idempotent for one that, repeated, changes nothing more.
	// Destructive is never set: every action is refused at a step the
	// Company leaves to the User, and the rest a User can undo or redo.
	ReadOnly, Idempotent bool
	// Input is the JSON schema of the action's input object.
	Input *jsonschema.Schema
	// Action turns an input that satisfies Input into the action value.
	// It fails only on JSON that does not fit the input's Go type.
	Action func(input json.RawMessage) (Action, error)
}

// UserWords tell the User, in the feed of their terminal, what an agent's
// action did, with no tool name or element ref: Did tells the action
// ("clicked"), Refused names it in a refusal ("its click was refused").
// Empty: the feed says "acted".
type UserWords struct{ Did, Refused string }

// Loop is how the built-in loop offers an action.
type Loop struct {
	// Name is the action's name in the loop; "" when the loop does not
	// offer it.
	Name string
	// Brief is the loop's one line on the action.
	Brief string
}

// Decl declares one action for the catalogue, next to its plan, as
// Playwright MCP's defineTool does: the tool's name and words, the loop's,
// and how an input In (whose json and jsonschema tags give the schema)
// becomes the action.
//
// A Decl is the value of a package-level var of its own in its family's
// file, with Tool and Title written as string literals: go generate
// ./gate reads them to write the catalogue and spec's tool constants
// (gate/internal/gencatalogue).
type Decl[In any] struct {
	// Tool is the MCP tool's name, written here only (spec.Tool* is
	// generated from it).
	Tool        string
	Title       string
	Description string
	Loop        Loop
	User        UserWords
	// Notes: the reference's words on the tool, beyond its inputs
	// (Markdown; see [Entry].Notes).
	Notes string
	// ReadOnly: the action changes nothing on the page (it is then
	// idempotent too).
	ReadOnly bool
	// Schema, when set, tightens the schema inferred from In.
	Schema func(*jsonschema.Schema)
	// Build makes the action of an input.
	Build func(In) Action
}

// declared is a [Decl] of any input type: one value of the catalogue.
type declared interface{ entry() Entry }

// entry builds the Entry; each call infers new schemas.
func (d Decl[In]) entry() Entry {
	return Entry{Tool: d.Tool, Title: d.Title, Description: d.Description, Loop: d.Loop, User: d.User, Notes: d.Notes,
		ReadOnly: d.ReadOnly, Idempotent: d.ReadOnly,
		Input: SchemaFor[In](d.Schema),
		Action: func(raw json.RawMessage) (Action, error) {
			var in In
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &in); err != nil {
					return nil, fmt.Errorf("reading the input of %s: %w", d.Tool, err)
				}
			}
			return d.Build(in), nil
		}}
}

// Tool inputs shared by several actions, or offered by both front ends
// outside the gate; each action's own input sits beside its plan.
type (
	// NoInput is the input of actions that take none.
	NoInput struct{}
	// RefInput is the input of actions that name one element.
	RefInput struct {
		Ref string `json:"ref" jsonschema:"element ref, e.g. e12"`
	}
	// RequestInput is the input of an offer of control to the User (not
	// an action of the gate; both front ends offer it).
	RequestInput struct {
		Reason string `json:"reason" jsonschema:"for the User: which step is theirs and why"`
		Ref    string `json:"ref,omitempty" jsonschema:"touches of the user_step denial"`
	}
)

// Catalogue returns every action of the gate, one entry each, in the
// order of the generated list catalogue (catalogue_gen.go: every
// package-level [Decl], family by family; go generate ./gate writes it).
// Each call returns new schemas, which the caller may change.
func Catalogue() []Entry {
	out := make([]Entry, len(catalogue))
	for i, d := range catalogue {
		out[i] = d.entry()
	}
	return out
}

// (A user_step denial's message says what to do; the MCP server's
// instructions say it once more: not on every tool.)

// SchemaFor infers T's JSON schema and lets edit (optional) tighten it.
// It panics on a type that has no schema: a wiring mistake any test
// reaches.
func SchemaFor[T any](edit func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic("gate: schema: " + err.Error())
	}
	plainTypes(s)
	if edit != nil {
		edit(s)
	}
	return s
}

// plainTypes makes a slice's inferred ["null", "array"] a plain "array":
// some clients reject a list of types, and a tool input is never null.
func plainTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		plainTypes(p)
	}
	plainTypes(s.Items)
}

func ptr[T any](v T) *T { return &v }

// enum is a schema's enum of typed names, as the plain strings a client
// sends (a schema compares values with their JSON types).
func enum[T ~string](names []T) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return out
}
