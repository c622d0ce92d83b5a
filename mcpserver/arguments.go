package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// The SDK's typed handlers (mcp.AddTool) unmarshal and validate a tool's
// arguments against its input schema before the tool runs, and answer a
// misfit with isError and the schema library's words:
// `validating "arguments": validating root: validating /properties/amount:
// minimum: -5/1 is less than 0.000000`. argumentErrors turns that answer
// into the tool's own result (failed, bad_argument) with one line a model
// acts on: `"amount" must be at least 0, not -5`.

// sdkArgumentsPrefix starts the text of the SDK's answer to arguments that
// do not fit the input schema.
const sdkArgumentsPrefix = `validating "arguments": `

// toolInput is what argumentErrors knows of a tool: its input schema, and
// whether its result is an action's (gate.Result) or a control tool's.
type toolInput struct {
	schema *jsonschema.Schema
	action bool
}

// argumentErrors is the receiving middleware that answers a tools/call
// whose arguments the SDK refused as the tool answers bad input.
func (s *Server) argumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		call, ok := req.(*mcp.CallToolRequest)
		if err != nil || method != "tools/call" || !ok {
			return res, err
		}
		r, ok := res.(*mcp.CallToolResult)
		if !ok || !r.IsError || r.StructuredContent != nil || len(r.Content) != 1 {
			return res, err
		}
		text, ok := r.Content[0].(*mcp.TextContent)
		in, known := s.inputs[call.Params.Name]
		if !ok || !known || !strings.HasPrefix(text.Text, sdkArgumentsPrefix) {
			return res, err
		}
		msg := "The input does not fit " + call.Params.Name + ": " + argumentProblem(in.schema, call.Params.Arguments, text.Text) + "."
		if in.action {
			return result(gate.Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadArgument, Message: msg}, false), nil
		}
		return controlResult(OfferResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadArgument, Message: msg}, true)
	}
}

var (
	// sdkPath is one step into the arguments of a validation error.
	sdkPath = regexp.MustCompile(`^validating (/[^:]*): `)
	// sdkType is a value of the wrong JSON type.
	sdkType = regexp.MustCompile(`^type: .* has type "([a-z]+)", want "([a-z]+)"`)
	// sdkNames are the property names the SDK lists (required, additional).
	sdkNames = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// argumentProblem says, in one line, what is wrong with args for the
// schema s, from the SDK's answer sdk (see sdkArgumentsPrefix). It reads
// the limits from s and the value from args; a misfit it does not know
// keeps the library's words, on one line.
func argumentProblem(s *jsonschema.Schema, args json.RawMessage, sdk string) string {
	rest := strings.TrimPrefix(sdk, sdkArgumentsPrefix)
	rest = strings.TrimPrefix(rest, "validating root: ")
	if strings.HasPrefix(rest, "unmarshaling arguments") {
		return "the arguments are not a JSON object"
	}
	// The deepest path names the property: /properties/NAME[/items].
	path := ""
	for m := sdkPath.FindStringSubmatch(rest); m != nil; m = sdkPath.FindStringSubmatch(rest) {
		path, rest = m[1], rest[len(m[0]):]
	}
	name, items := propertyOf(path)
	p := schemaAt(s, name, items)
	subject := fmt.Sprintf("%q", name)
	if items {
		subject = fmt.Sprintf("each item of %q", name)
	}
	var values map[string]any
	_ = json.Unmarshal(args, &values) // the SDK read them as an object
	v, hasValue := values[name]
	switch {
	case strings.HasPrefix(rest, "required: "):
		if n := sdkNames.FindStringSubmatch(rest); n != nil {
			return fmt.Sprintf("%q is required", n[1])
		}
	case strings.HasPrefix(rest, "unexpected additional properties "):
		if n := sdkNames.FindStringSubmatch(rest); n != nil {
			return fmt.Sprintf("%q is not an input of this tool (it takes: %s)", n[1], takes(s))
		}
	case name == "":
	case strings.HasPrefix(rest, "type: "):
		if m := sdkType.FindStringSubmatch(rest); m != nil {
			return subject + " must be " + typeWords(m[2], m[1], v, hasValue && !items)
		}
	case strings.HasPrefix(rest, "enum: ") && p != nil:
		return fmt.Sprintf("%s must be one of %s, not %s", subject, enumList(p.Enum), valueWords(v, hasValue && !items))
	case strings.HasPrefix(rest, "minimum: ") && p != nil && p.Minimum != nil:
		return fmt.Sprintf("%s must be at least %v, not %s", subject, *p.Minimum, valueWords(v, hasValue && !items))
	case strings.HasPrefix(rest, "maximum: ") && p != nil && p.Maximum != nil:
		return fmt.Sprintf("%s must be at most %v, not %s", subject, *p.Maximum, valueWords(v, hasValue && !items))
	case strings.HasPrefix(rest, "minItems: ") && p != nil && p.MinItems != nil:
		return fmt.Sprintf("%s must hold at least %d item(s)", subject, *p.MinItems)
	}
	line := strings.Join(strings.Fields(rest), " ")
	if name != "" {
		return subject + ": " + line
	}
	return line
}

// propertyOf reads the property a schema path names (/properties/NAME,
// /properties/NAME/items), and whether it is the property's items.
func propertyOf(path string) (name string, items bool) {
	rest, ok := strings.CutPrefix(path, "/properties/")
	if !ok {
		return "", false
	}
	if n, ok := strings.CutSuffix(rest, "/items"); ok {
		return n, true
	}
	return rest, false
}

// schemaAt is the schema of property name of s (its items' with items).
func schemaAt(s *jsonschema.Schema, name string, items bool) *jsonschema.Schema {
	if s == nil || name == "" {
		return nil
	}
	p := s.Properties[name]
	if items && p != nil {
		return p.Items
	}
	return p
}

// typeWords says what a value must be, for a schema type want; got is the
// type it has.
func typeWords(want, got string, v any, hasValue bool) string {
	switch want {
	case "string":
		return "a string"
	case "integer":
		if got == "number" {
			return "a whole number, not " + valueWords(v, hasValue)
		}
		return "a number"
	case "number":
		return "a number"
	case "boolean":
		return "true or false"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return want
}

// valueWords is a value as the model sent it: a number as written, a
// string quoted.
func valueWords(v any, hasValue bool) string {
	if !hasValue {
		return "that"
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "that"
	}
	return string(b)
}

// takes lists a tool's inputs, sorted.
func takes(s *jsonschema.Schema) string {
	if s == nil || len(s.Properties) == 0 {
		return "nothing"
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func enumList(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}
