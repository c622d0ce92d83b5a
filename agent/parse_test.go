package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func toolCall(name, args string) *ModelReply {
	return &ModelReply{ToolCalls: []ToolCall{{Name: name, Arguments: args}}}
}

func TestParseReply(t *testing.T) {
	actions := DefaultActions().snapshot()
	type want struct {
		Action  string
		Input   string
		Goal    string
		Repairs []string
	}
	cases := []struct {
		name  string
		reply *ModelReply
		want  want
	}{
		{"a proper tool call", toolCall(ToolName, `{"evaluation_previous_goal":"ok","memory":"m","next_goal":"open check-in","action":{"click":{"ref":"e3"}}}`),
			want{Action: "click", Input: `{"ref":"e3"}`, Goal: "open check-in"}},
		{"JSON in the content", &ModelReply{Content: "Sure!\n```json\n{\"next_goal\":\"g\",\"action\":{\"click\":{\"ref\":\"e3\"}}}\n```"},
			want{Action: "click", Input: `{"ref":"e3"}`, Goal: "g", Repairs: []string{RepairContent}}},
		{"bare JSON in the content", &ModelReply{Content: `{"action":{"back":{}}}`},
			want{Action: "back", Input: `{}`, Repairs: []string{RepairContent}}},
		{"action name as the tool name", toolCall("click", `{"ref":"e3"}`),
			want{Action: "click", Input: `{"ref":"e3"}`, Repairs: []string{RepairToolName}}},
		{"arguments encoded twice", toolCall(ToolName, `"{\"action\":{\"click\":{\"ref\":\"e3\"}}}"`),
			want{Action: "click", Input: `{"ref":"e3"}`, Repairs: []string{RepairDoubleJSON}}},
		{"action encoded as a string", toolCall(ToolName, `{"action":"{\"click\":{\"ref\":\"e3\"}}"}`),
			want{Action: "click", Input: `{"ref":"e3"}`, Repairs: []string{RepairDoubleJSON}}},
		{"missing action waits", toolCall(ToolName, `{"next_goal":"think","memory":"m"}`),
			want{Action: "wait", Input: `{}`, Goal: "think", Repairs: []string{RepairNoAction}}},
		{"null action waits", toolCall(ToolName, `{"action":null}`),
			want{Action: "wait", Input: `{}`, Repairs: []string{RepairNoAction}}},
		{"bare value for a one-field input", toolCall(ToolName, `{"action":{"navigate":"https://airline.test/"}}`),
			want{Action: "navigate", Input: `{"url":"https://airline.test/"}`, Repairs: []string{RepairBareValue}}},
		{"bare value with the action as the tool name", toolCall("click", `"e7"`),
			want{Action: "click", Input: `{"ref":"e7"}`, Repairs: []string{RepairToolName, RepairBareValue}}},
		{"input encoded as a string", toolCall(ToolName, `{"action":{"click":"{\"ref\":\"e3\"}"}}`),
			want{Action: "click", Input: `{"ref":"e3"}`, Repairs: []string{RepairInputString}}},
		{"action at the top level", toolCall(ToolName, `{"select":{"ref":"e2","values":["aisle"]}}`),
			want{Action: "select", Input: `{"ref":"e2","values":["aisle"]}`, Repairs: []string{RepairToolName}}},
		{"action by name alone", toolCall(ToolName, `{"action":"back"}`),
			want{Action: "back", Input: `{}`, Repairs: []string{RepairActionName}}},
		{"null input of an action without fields", toolCall(ToolName, `{"action":{"back":null}}`),
			want{Action: "back", Input: `{}`}},
		{"extra tool calls", &ModelReply{ToolCalls: []ToolCall{{ToolName, `{"action":{"back":{}}}`}, {ToolName, `{"action":{"click":{"ref":"e1"}}}`}}},
			want{Action: "back", Input: `{}`, Repairs: []string{RepairExtraCalls}}},
		{"a non-string goal is kept as JSON", toolCall(ToolName, `{"next_goal":{"a":1},"action":{"back":{}}}`),
			want{Action: "back", Input: `{}`, Goal: `{"a":1}`}},
		{"numbers", toolCall(ToolName, `{"action":{"wait":{"seconds":2}}}`),
			want{Action: "wait", Input: `{"seconds":2}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parseReply(tc.reply, actions)
			if err != nil {
				t.Fatalf("parseReply: %v", err)
			}
			got := want{Action: d.Action, Input: string(d.Input), Goal: d.NextGoal, Repairs: d.Repairs}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestParseReplyFailures(t *testing.T) {
	actions := DefaultActions().snapshot()
	cases := []struct {
		name  string
		reply *ModelReply
		want  string // part of the error
	}{
		{"nil", nil, "no reply"},
		{"empty", &ModelReply{}, "empty"},
		{"prose", &ModelReply{Content: "I will click the button."}, "no tool call and no JSON"},
		{"not JSON", toolCall(ToolName, `{"action":`), "not JSON"},
		{"two values", toolCall(ToolName, `{} {}`), "not JSON"},
		{"an array", toolCall(ToolName, `[1,2]`), "not an object"},
		{"unknown tool", toolCall("browser_click", `{"ref":"e1"}`), `unknown tool "browser_click"`},
		{"unknown action", toolCall(ToolName, `{"action":{"evaluate":{"js":"1"}}}`), `unknown action "evaluate"`},
		{"two actions", toolCall(ToolName, `{"action":{"click":{"ref":"e1"},"back":{}}}`), "exactly one"},
		{"action is a number", toolCall(ToolName, `{"action":3}`), "action is a JSON number"},
		{"input misses a field", toolCall(ToolName, `{"action":{"click":{}}}`), "does not fit its schema"},
		{"input has a wrong type", toolCall(ToolName, `{"action":{"select":{"ref":"e1","values":"aisle"}}}`), "does not fit its schema"},
		{"input has an extra field", toolCall(ToolName, `{"action":{"click":{"ref":"e1","force":true}}}`), "does not fit its schema"},
		{"bare value for a two-field input", toolCall(ToolName, `{"action":{"type":"hello"}}`), "give an object with ref, submit, text"},
		{"scroll direction outside the enum", toolCall(ToolName, `{"action":{"scroll":{"direction":"sideways"}}}`), "does not fit its schema"},
		{"wait too long", toolCall(ToolName, `{"action":{"wait":{"seconds":600}}}`), "does not fit its schema"},
		{"too large", toolCall(ToolName, `{"memory":"`+strings.Repeat("x", maxReply)+`"}`), "bytes, more than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parseReply(tc.reply, actions)
			if err == nil {
				t.Fatalf("parseReply = %+v, want an error containing %q", d, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// FuzzParseReply: whatever a model sends, the parser never panics, and
// whatever it accepts is a registered action whose input fits its schema.
func FuzzParseReply(f *testing.F) {
	f.Add("", ToolName, `{"action":{"click":{"ref":"e3"}}}`)
	f.Add(`{"action":{"back":{}}}`, "", "")
	f.Add("", "click", `"e7"`)
	f.Add("", ToolName, `"{\"action\":{\"click\":{\"ref\":\"e3\"}}}"`)
	f.Add("", ToolName, `{"action":{"navigate":"https://x.test/"}}`)
	f.Add("```json\n{\"action\":\"back\"}\n```", "", "")
	actions := DefaultActions().snapshot()
	f.Fuzz(func(t *testing.T, content, name, args string) {
		reply := &ModelReply{Content: content}
		if name != "" || args != "" {
			reply.ToolCalls = []ToolCall{{Name: name, Arguments: args}}
		}
		d, err := parseReply(reply, actions)
		if err != nil {
			return
		}
		reg, ok := actions[d.Action]
		if !ok {
			t.Fatalf("accepted unknown action %q", d.Action)
		}
		var in any
		if err := json.Unmarshal(d.Input, &in); err != nil {
			t.Fatalf("input %q is not JSON: %v", d.Input, err)
		}
		if err := reg.resolved.Validate(in); err != nil {
			t.Fatalf("input %s of %s does not fit its schema: %v", d.Input, d.Action, err)
		}
	})
}
