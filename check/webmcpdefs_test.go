package check_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestWebMCPToolDefinitions: check validates each WebMCP tool's
// definition, located: a declarative form without tooldescription or
// without toolname, a field with no name or no label (on the element, with
// its line as served), an imperative tool whose input schema is not valid
// JSON Schema or not an object (at the line and column of its name in the
// page's inline script, as served). A tool with nothing wrong is no
// finding. Each finding cites BC-5-no-marked-step. (Chromium refuses a
// registerTool with an empty description: that tool never registers.)
func TestWebMCPToolDefinitions(t *testing.T) {
	c := newChecker(t, check.Options{NoProbe: true})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	rep, err := c.Run(ctx, []string{testsite.WebMCPFixtureURL("definitions.html")})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pages[0]
	if p.Status != check.StatusChecked {
		t.Fatalf("status %s: %s", p.Status, p.Error)
	}
	var got []string
	for _, f := range p.Findings {
		if f.Check != check.CheckWebMCP {
			continue
		}
		if f.Requirement != "BC-5-no-marked-step" || f.Severity != check.Warning || f.Line == 0 {
			t.Errorf("finding %s on %s: requirement %s, severity %s, line %d; want BC-5-no-marked-step, a warning, with a line", f.ID, f.Element, f.Requirement, f.Severity, f.Line)
		}
		where := f.HTML
		if where == "" {
			_, loc, _ := strings.Cut(f.Message, "(registered in the page's inline script, ")
			where = "script " + strings.TrimSuffix(loc, ")")
		}
		got = append(got, f.ID+" "+f.Element+" "+where)
	}
	sort.Strings(got)
	want := []string{
		`webmcp-schema-validity WebMCP tool "bad_schema" script line 42, column 21`,
		`webmcp-schema-validity WebMCP tool "not_an_object" script line 44, column 21`,
		`webmcp-tool-definition form "" <form id="no-name" tooldescription="Change the meal." action="submitted.html" method="get">`,
		`webmcp-tool-definition form "add_bag" <input name="weight">`,
		`webmcp-tool-definition form "add_bag" <input>`,
		`webmcp-tool-definition form "find_seat" <form id="no-description" toolname="find_seat" action="submitted.html" method="get">`,
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WebMCP definition findings (-want +got):\n%s", diff)
	}
	if !contains(p.Checked, "BC-5-no-marked-step") {
		t.Errorf("checked %v, want BC-5-no-marked-step listed", p.Checked)
	}
}

func TestWebMCPDefinitionRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool check.DeclaredToolForTest
		want []string
	}{
		{"fine", check.DeclaredToolForTest{HasName: true, Name: "find", Description: "Find.", Fields: []check.ToolFieldForTest{{Name: "q", Type: "text", Labelled: true}}}, nil},
		{"no description", check.DeclaredToolForTest{HasName: true, Name: "find"}, []string{"has no tooldescription"}},
		{"description only", check.DeclaredToolForTest{HasDescription: true, Description: "Find."}, []string{"no toolname"}},
		{"empty name", check.DeclaredToolForTest{HasName: true, Name: " ", Description: "Find."}, []string{"toolname is empty"}},
		{"bad name", check.DeclaredToolForTest{HasName: true, Name: "find seat!", Description: "Find."}, []string{"characters an agent's client may refuse"}},
		{"fields", check.DeclaredToolForTest{HasName: true, Name: "f", Description: "F.", Fields: []check.ToolFieldForTest{
			{Name: "", Type: "text", Labelled: true}, {Name: "a", Type: "text"}, {Name: "b", Type: "text", Labelled: true}, {Name: "b", Type: "text", Labelled: true},
			{Name: "r", Type: "radio", Labelled: true}, {Name: "r", Type: "radio", Labelled: true}}},
			[]string{"has no name", `"a" of the WebMCP tool "f" has no label`, `named "b"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := check.DeclaredProblemsForTest(tc.tool)
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

func TestWebMCPSchemaRules(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   string // "" for valid
	}{
		{`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`, ""},
		{`{"type":["object","null"]}`, ""},
		{`{"type":"string"}`, `its type is "string"`},
		{`{"properties":{}}`, `gives no "type"`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":"one"}}}`, "not a JSON Schema"},
		{`{"type":"object","required":"q"}`, "not a JSON Schema"},
		{`{"type":"object","properties":{"q":{"$ref":"#/$defs/missing"}}}`, "missing"},
		{`[1]`, "not a JSON Schema"},
	} {
		got := check.SchemaFaultForTest(tc.schema)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("schema %s: fault %q, want %q", tc.schema, got, tc.want)
		}
	}
}

func TestLocateRegistration(t *testing.T) {
	page := "<!doctype html>\n<body>\n<script>\n  tool(\"a\");\n  register({ name: 'lookup' });\n</script>\n"
	inline := "\n  tool(\"a\");\n  register({ name: 'lookup' });\n"
	got := check.LocateRegistrationForTest("lookup", "https://airline.test/p", inline, page)
	if want := "https://airline.test/p 3:21 page line 5"; got != want {
		t.Errorf("inline: %q, want %q", got, want)
	}
	if got := check.LocateRegistrationForTest("nothere", "https://airline.test/p", inline, page); got != "" {
		t.Errorf("a name in no script located at %q", got)
	}
}

func FuzzSchemaFault(f *testing.F) {
	f.Add(`{"type":"object"}`)
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#"}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		_ = check.SchemaFaultForTest(s) // never panics
	})
}
