package gate

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
)

// This file holds what a page's WebMCP tools bring to the model (their
// words, schemas and output), cleaned and capped like page text.

// renderTools is the list for the model, labelled as the website's content.
func renderTools(list []WebMCPTool, source string) string {
	var b strings.Builder
	if len(list) == 0 {
		return "The page registered no WebMCP tools.\n"
	}
	fmt.Fprintf(&b, "WebMCP tools of the page (names, descriptions and schemas are %s):\n", source)
	for _, t := range list {
		fmt.Fprintf(&b, "- %s (%s", t.Name, t.Kind)
		if t.Ref != "" {
			fmt.Fprintf(&b, ", form %s", t.Ref)
		}
		if t.Autosubmit {
			b.WriteString(", submits when filled")
		}
		if t.Marked != nil {
			fmt.Fprintf(&b, ", %s mark on %s: the User submits it", t.Marked.Kind, t.Marked.Marked)
		}
		fmt.Fprintf(&b, "): %s\n", t.Description)
		if len(t.InputSchema) > 0 {
			fmt.Fprintf(&b, "  input: %s\n", t.InputSchema)
		}
	}
	return b.String()
}

// Bounds on what a page's tool brings to the model.
const (
	maxToolName        = 128
	maxToolDescription = 1000
	maxSchemaString    = 500
	maxToolSchema      = 16 << 10
)

// clipText is s as one clean line of at most n characters.
func clipText(s string, n int) string {
	s = pagetext.Line(s)
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}

func clipName(s string) string { return clipText(s, maxToolName) }

// cleanSchema cleans every string of a tool's schema like page text, and
// drops a schema past maxToolSchema.
func cleanSchema(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	b, err := json.Marshal(cleanValue(v))
	if err != nil || len(b) > maxToolSchema {
		return tooLargeSchema
	}
	return b
}

// tooLargeSchema stands for a schema left out for its size.
var tooLargeSchema = json.RawMessage(`{"description":"(the schema is too large to show)"}`)

func cleanValue(v any) any {
	switch v := v.(type) {
	case string:
		return clipText(v, maxSchemaString)
	case []any:
		for i := range v {
			v[i] = cleanValue(v[i])
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[clipText(k, maxToolName)] = cleanValue(x)
		}
		return out
	}
	return v
}

// toolText is a tool's output as text: a string as it is, MCP-style text
// content joined, anything else as JSON; each line cleaned like page text,
// the whole capped like a snapshot part.
func toolText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var text string
	var s string
	var content struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	switch {
	case json.Unmarshal(raw, &s) == nil:
		text = s
	case json.Unmarshal(raw, &content) == nil && len(content.Content) > 0:
		var parts []string
		for _, c := range content.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		text = strings.Join(parts, "\n")
	default:
		text = string(raw)
	}
	if text == "[]" || text == "null" || text == "{}" {
		return ""
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = pagetext.Line(l)
	}
	text = strings.Join(lines, "\n")
	if len(text) > MaxSnapshotText {
		cut := MaxSnapshotText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + fmt.Sprintf("\n[... %d KB more of the tool's output not shown]", (len(text)-cut+1023)>>10)
	}
	return text
}

// quoteLines marks every line of a tool's output as the website's, so that
// none reads as the runtime's own words ("| " before each; the header
// before them says so).
func quoteLines(text string) string {
	var b strings.Builder
	for l := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString("| ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
