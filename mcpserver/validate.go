package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// validate checks a tool's arguments against its input schema (the plain
// schemas of this package: an object of strings, numbers, booleans and
// arrays of strings) and says what is wrong in words a model acts on:
// `"amount" must be at least 0, not -5`, not the schema library's
// `minimum: -5/1 is less than 0.000000`.
func validate(s *jsonschema.Schema, raw json.RawMessage) error {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fmt.Errorf("the arguments are not a JSON object")
		}
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			return fmt.Errorf("%q is required", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		p, ok := s.Properties[name]
		if !ok {
			return fmt.Errorf("%q is not an input of this tool (it takes: %s)", name, strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", "))
		}
		if err := check(name, p, args[name]); err != nil {
			return err
		}
	}
	return nil
}

func check(name string, p *jsonschema.Schema, v any) error {
	switch p.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%q must be a string", name)
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, any(s)) {
			return fmt.Errorf("%q must be one of %s, not %q", name, enumList(p.Enum), s)
		}
	case "number", "integer":
		n, ok := v.(float64)
		if !ok {
			return fmt.Errorf("%q must be a number", name)
		}
		if p.Type == "integer" && n != math.Trunc(n) {
			return fmt.Errorf("%q must be a whole number, not %v", name, n)
		}
		if p.Minimum != nil && n < *p.Minimum {
			return fmt.Errorf("%q must be at least %v, not %v", name, *p.Minimum, n)
		}
		if p.Maximum != nil && n > *p.Maximum {
			return fmt.Errorf("%q must be at most %v, not %v", name, *p.Maximum, n)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%q must be true or false", name)
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%q must be an array", name)
		}
		if p.MinItems != nil && len(a) < *p.MinItems {
			return fmt.Errorf("%q must hold at least %d item(s)", name, *p.MinItems)
		}
		if p.Items != nil {
			for i, it := range a {
				if err := check(fmt.Sprintf("%s[%d]", name, i), p.Items, it); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func enumList(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}
