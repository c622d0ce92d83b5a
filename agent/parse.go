package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Decision is one step the model chose, after the tolerant parser.
type Decision struct {
	Evaluation string
	Memory     string
	NextGoal   string
	Action     string
	Input      json.RawMessage
	// Repairs says what the parser fixed, one note each, for the history.
	Repairs []string
}

// Repair notes, as the history shows them.
const (
	RepairContent     = "the step came as JSON in the message content instead of a tool call"
	RepairToolName    = "the action name was used as the tool name"
	RepairDoubleJSON  = "the arguments were JSON encoded twice"
	RepairNoAction    = "no action was given, so the step waits"
	RepairBareValue   = "a bare value was given for a one-field input"
	RepairExtraCalls  = "more than one tool call came; only the first was used"
	RepairInputString = "the action's input was JSON encoded as a string"
	RepairActionName  = "the action was given by its name alone"
)

// maxReply bounds what the parser reads of a reply, in bytes.
const maxReply = 64 << 10

// parseReply reads a model's reply into a decision, repairing the usual
// slips of models (see the Repair notes) and validating the action's input
// against its schema. Anything else is an error with the reason.
func parseReply(reply *ModelReply, actions actionSet) (*Decision, error) {
	if reply == nil {
		return nil, errors.New("the model gave no reply")
	}
	d := &Decision{}
	var raw string
	name := ToolName
	switch {
	case len(reply.ToolCalls) > 0:
		if len(reply.ToolCalls) > 1 {
			d.Repairs = append(d.Repairs, RepairExtraCalls)
		}
		raw, name = reply.ToolCalls[0].Arguments, reply.ToolCalls[0].Name
	case strings.TrimSpace(reply.Content) != "":
		obj, ok := jsonIn(reply.Content)
		if !ok {
			return nil, fmt.Errorf("the reply has no tool call and no JSON object: %s", clipN(reply.Content, 120))
		}
		raw = obj
		d.Repairs = append(d.Repairs, RepairContent)
	default:
		return nil, errors.New("the reply is empty: call " + ToolName)
	}
	if len(raw) > maxReply {
		return nil, fmt.Errorf("the arguments are %d bytes, more than %d", len(raw), maxReply)
	}
	v, twice, err := decodeLoose(raw)
	if err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %w", err)
	}
	if twice {
		d.Repairs = append(d.Repairs, RepairDoubleJSON)
	}
	if name == "" {
		name = ToolName
	}
	if name != ToolName {
		if _, ok := actions[name]; !ok {
			return nil, fmt.Errorf("unknown tool %q: call %s", clipN(name, 60), ToolName)
		}
		v = map[string]any{"action": map[string]any{name: v}}
		d.Repairs = append(d.Repairs, RepairToolName)
	}
	out, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the arguments are a JSON %s, not an object", kindOf(v))
	}
	// An action given at the top level: {"click": {...}}.
	if _, has := out["action"]; !has {
		for k := range out {
			if _, ok := actions[k]; ok && len(out) == 1 {
				out = map[string]any{"action": map[string]any{k: out[k]}}
				d.Repairs = append(d.Repairs, RepairToolName)
			}
		}
	}
	for field, dst := range map[string]*string{"evaluation_previous_goal": &d.Evaluation, "memory": &d.Memory, "next_goal": &d.NextGoal} {
		switch s := out[field].(type) {
		case nil:
		case string:
			*dst = s
		default:
			b, _ := json.Marshal(s)
			*dst = string(b)
		}
	}
	act := out["action"]
	if s, ok := act.(string); ok {
		if inner, _, err := decodeLoose(s); err == nil {
			if _, isObj := inner.(map[string]any); isObj {
				act = inner
				d.Repairs = append(d.Repairs, RepairDoubleJSON)
			}
		}
		if name := strings.TrimSpace(s); act == any(s) {
			if _, ok := actions[name]; ok {
				act = map[string]any{name: nil}
				d.Repairs = append(d.Repairs, RepairActionName)
			}
		}
	}
	if act == nil {
		if _, ok := actions[ActWait]; !ok {
			return nil, errors.New("no action was given")
		}
		act = map[string]any{ActWait: map[string]any{}}
		d.Repairs = append(d.Repairs, RepairNoAction)
	}
	am, ok := act.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("action is a JSON %s; give an object with one action name", kindOf(act))
	}
	if len(am) != 1 {
		return nil, fmt.Errorf("action names %d actions; give exactly one", len(am))
	}
	for k, in := range am {
		d.Action = k
		reg, ok := actions[k]
		if !ok {
			return nil, fmt.Errorf("unknown action %q; use one of %s", clipN(k, 60), strings.Join(actions.names(), ", "))
		}
		in, note, err := repairInput(in, reg)
		if err != nil {
			return nil, err
		}
		if note != "" {
			d.Repairs = append(d.Repairs, note)
		}
		if err := reg.resolved.Validate(in); err != nil {
			return nil, fmt.Errorf("the input of %s does not fit its schema: %s", k, clipN(err.Error(), 300))
		}
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("the input of %s: %w", k, err)
		}
		d.Input = b
	}
	return d, nil
}

// repairInput turns an action's input into an object: null becomes {}, a
// JSON string holding an object is decoded, and a bare value fills a
// one-field input.
func repairInput(in any, reg *registered) (any, string, error) {
	switch v := in.(type) {
	case nil:
		return map[string]any{}, "", nil
	case map[string]any:
		return v, "", nil
	case string:
		if inner, _, err := decodeLoose(v); err == nil {
			if m, ok := inner.(map[string]any); ok {
				return m, RepairInputString, nil
			}
		}
	}
	if len(reg.fields) == 1 {
		return map[string]any{reg.fields[0]: in}, RepairBareValue, nil
	}
	return nil, "", fmt.Errorf("the input of %s is a JSON %s; give an object with %s", reg.def.Name, kindOf(in), strings.Join(reg.fields, ", "))
}

// decodeLoose decodes JSON, and once more when the value is a string that
// itself holds a JSON object or array (arguments encoded twice).
func decodeLoose(s string) (v any, twice bool, err error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false, err
	}
	if dec.More() {
		return nil, false, errors.New("more than one JSON value")
	}
	if str, ok := v.(string); ok {
		t := strings.TrimSpace(str)
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			inner, _, err := decodeLoose(t)
			if err == nil {
				return inner, true, nil
			}
		}
	}
	return numbersToFloat(v), false, nil
}

// numbersToFloat turns json.Number into float64, which the schema
// validator understands.
func numbersToFloat(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return t.String()
		}
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = numbersToFloat(x)
		}
	case []any:
		for i, x := range t {
			t[i] = numbersToFloat(x)
		}
	}
	return v
}

// jsonIn finds the JSON object in a message's content: the whole content,
// a fenced block, or the outermost braces.
func jsonIn(content string) (string, bool) {
	c := strings.TrimSpace(content)
	if i := strings.Index(c, "```"); i >= 0 {
		rest := c[i+3:]
		rest = strings.TrimPrefix(rest, "json")
		if j := strings.Index(rest, "```"); j >= 0 {
			c = strings.TrimSpace(rest[:j])
		}
	}
	start, end := strings.IndexByte(c, '{'), strings.LastIndexByte(c, '}')
	if start < 0 || end < start {
		return "", false
	}
	obj := c[start : end+1]
	if !json.Valid([]byte(obj)) {
		return "", false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(obj)); err != nil {
		return "", false
	}
	return buf.String(), true
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// clipN shortens s to n runes for an error message.
func clipN(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
