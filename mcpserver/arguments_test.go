package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestBadArgumentsThroughTheSDK: arguments that do not fit a tool's schema
// are refused by the SDK's typed handler before the tool runs, and the
// model reads the tool's own result, failed with bad_argument, and one
// line that names the input and what it must be.
func TestBadArgumentsThroughTheSDK(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{spec.ToolScroll, map[string]any{"direction": "down", "amount": -5}, `The input does not fit browser_scroll: "amount" must be at least 0, not -5.`},
		{spec.ToolScroll, map[string]any{"direction": "sideways"}, `The input does not fit browser_scroll: "direction" must be one of up, down, left, right, not "sideways".`},
		{spec.ToolScroll, map[string]any{}, `The input does not fit browser_scroll: "direction" is required.`},
		{spec.ToolClick, map[string]any{"ref": 3}, `The input does not fit browser_click: "ref" must be a string.`},
		{spec.ToolClick, map[string]any{"ref": "e1", "button": "left"}, `The input does not fit browser_click: "button" is not an input of this tool (it takes: ref).`},
		{spec.ToolSelect, map[string]any{"ref": "e2", "values": []any{}}, `The input does not fit browser_select: "values" must hold at least 1 item(s).`},
		{spec.ToolSelect, map[string]any{"ref": "e2", "values": []any{1}}, `The input does not fit browser_select: each item of "values" must be a string.`},
		{spec.ToolSnapshot, map[string]any{"from": 1.5}, `The input does not fit browser_snapshot: "from" must be a whole number, not 1.5.`},
		{spec.ToolWaitForControl, map[string]any{"timeout_seconds": 600}, `The input does not fit browser_wait_for_control: "timeout_seconds" must be at most 60, not 600.`},
		{spec.ToolBack, json.RawMessage(`[]`), `The input does not fit browser_back: the arguments are not a JSON object.`},
		{spec.ToolControlStatus, json.RawMessage(`3`), `The input does not fit browser_control_status: the arguments are not a JSON object.`},
		{spec.ToolRequestUserControl, map[string]any{"reason": true}, `The input does not fit browser_request_user_control: "reason" must be a string.`},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s %v: %v", tc.tool, tc.args, err)
		}
		var r gate.Result
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s %v: structured content %s: %v", tc.tool, tc.args, b, err)
		}
		if !res.IsError || r.Outcome != spec.OutcomeFailed || r.Reason != spec.ReasonBadArgument || r.Message != tc.want {
			t.Errorf("%s %v: isError %v, %s %s %q; want failed bad_argument %q", tc.tool, tc.args, res.IsError, r.Outcome, r.Reason, r.Message, tc.want)
		}
	}
	if len(f.Page.Inputs()) != 0 {
		t.Errorf("a refused input reached the page: %v", f.Page.Inputs())
	}
}

// TestArgumentProblem words the schema library's answers, and keeps the
// words of one it does not know on one line.
func TestArgumentProblem(t *testing.T) {
	schema := gate.SchemaFor[struct {
		Ref    string   `json:"ref"`
		Amount float64  `json:"amount,omitempty"`
		Values []string `json:"values,omitempty"`
	}](nil)
	for _, tc := range []struct{ args, sdk, want string }{
		{`{}`, `validating "arguments": validating root: required: missing properties: ["ref"]`, `"ref" is required`},
		{`{"x":1}`, `validating "arguments": validating root: unexpected additional properties ["x"]`, `"x" is not an input of this tool (it takes: amount, ref, values)`},
		{`[]`, `validating "arguments": unmarshaling arguments: json: cannot unmarshal array`, `the arguments are not a JSON object`},
		{`{"ref":"a"}`, `validating "arguments": validating root: validating /properties/ref: pattern: "a" does not match regular expression "^e"`, `"ref": pattern: "a" does not match regular expression "^e"`},
		{`{"ref":"a"}`, `validating "arguments": validating root: something new:` + "\n" + `on two lines`, `something new: on two lines`},
		{`{"amount":-1}`, `validating "arguments": validating root: validating /properties/amount: minimum: -1/1 is less than 0.000000`, `"amount": minimum: -1/1 is less than 0.000000`},
	} {
		if got := argumentProblem(schema, json.RawMessage(tc.args), tc.sdk); got != tc.want {
			t.Errorf("argumentProblem(%s, %q) = %q, want %q", tc.args, tc.sdk, got, tc.want)
		}
	}
}

// FuzzArgumentProblem: whatever the SDK says and the arguments are, the
// words are one line and reading them does not panic.
func FuzzArgumentProblem(f *testing.F) {
	f.Add(`{"values":[1]}`, `validating "arguments": validating root: validating /properties/values: validating /properties/values/items: type: 1 has type "integer", want "string"`)
	f.Add(`{"amount":-5}`, `validating "arguments": validating root: validating /properties/amount: minimum: -5/1 is less than 0.000000`)
	f.Add(`{}`, `validating "arguments": validating root: required: missing properties: ["a\"b"]`)
	schema := gate.SchemaFor[struct {
		Amount float64  `json:"amount" jsonschema:"minimum 0"`
		Values []string `json:"values"`
	}](nil)
	f.Fuzz(func(t *testing.T, args, sdk string) {
		got := argumentProblem(schema, json.RawMessage(args), sdk)
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("argumentProblem(%q, %q) = %q: more than one line", args, sdk, got)
		}
	})
}
