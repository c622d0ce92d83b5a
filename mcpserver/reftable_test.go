package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/internal/golden"
)

// The region of docs/reference.md that TestReferenceToolTable writes.
const (
	toolTableBegin = "<!-- tool-table: generated from the served tools/list; edit an action's Notes in its gate.Decl (a control tool's in mcpserver's controlTools), then: go test ./mcpserver -run TestReferenceToolTable -update -->\n"
	toolTableEnd   = "<!-- /tool-table -->\n"
	referencePath  = "../docs/reference.md"
)

// TestReferenceToolTable: docs/reference.md's table of tools is what the
// server serves, byte for byte: one row per tool (a run of tools with the
// same inputs and notes shares one), the actions in the catalogue's order,
// then the control tools; the inputs as tools/list gives them (`name`
// when required, `name?` when not, an enum's values after it); the notes
// from each action's gate.Decl and from controlTools. With -update it
// rewrites the table and nothing else of the file.
func TestReferenceToolTable(t *testing.T) {
	doc, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), toolTableBegin)
	if !ok {
		t.Fatalf("docs/reference.md has no line %q", toolTableBegin)
	}
	_, after, ok := strings.Cut(rest, toolTableEnd)
	if !ok {
		t.Fatalf("docs/reference.md has no line %q after the table", toolTableEnd)
	}
	table := toolTable(t, servedTools(t))
	golden.Check(t, referencePath, []byte(before+toolTableBegin+table+toolTableEnd+after))
}

// servedTool is one tool of tools/list as the server sent it.
type servedTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// servedTools lists the tools of the server every cmd serves, over a
// go-sdk client on in-memory transports, as the server wrote them: the
// client's own decoding keeps a schema as a map, which loses the order of
// its properties.
func servedTools(t *testing.T) []servedTool {
	t.Helper()
	srv := NewServer(func(ctx context.Context, id string) (Runtime, error) {
		return nil, errors.New("listing tools needs no browser")
	}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	wire := &lockedBuffer{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "reference-table", Version: "v0"}, nil).
		Connect(t.Context(), &mcp.LoggingTransport{Transport: ct, Writer: wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	sc := bufio.NewScanner(bytes.NewReader(wire.bytes()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result *struct {
				Tools []servedTool `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Result != nil && len(msg.Result.Tools) == len(listed.Tools) {
			return msg.Result.Tools
		}
	}
	t.Fatalf("the client read no tools/list result of %d tools", len(listed.Tools))
	return nil
}

// toolTable is the Markdown table of tools.
func toolTable(t *testing.T, tools []servedTool) string {
	t.Helper()
	notes := map[string]string{}
	var order []string
	for _, e := range gate.Catalogue() {
		order = append(order, e.Tool)
		notes[e.Tool] = e.Notes
	}
	for _, w := range controlTools {
		order = append(order, w.name)
		notes[w.name] = w.notes
	}
	byName := map[string]servedTool{}
	for _, tool := range tools {
		if !slices.Contains(order, tool.Name) {
			t.Errorf("the server lists %s, which is neither an action of the catalogue nor a control tool: give it notes", tool.Name)
		}
		byName[tool.Name] = tool
	}
	var rows [][3]string // tools, inputs, notes
	for _, name := range order {
		tool, ok := byName[name]
		if !ok {
			t.Errorf("the server does not list %s", name)
			continue
		}
		inputs := inputsCell(t, tool)
		if n := len(rows); n > 0 && rows[n-1][1] == inputs && rows[n-1][2] == notes[name] {
			rows[n-1][0] += ", `" + name + "`"
			continue
		}
		rows = append(rows, [3]string{"`" + name + "`", inputs, notes[name]})
	}
	var b strings.Builder
	b.WriteString("| tool | input | notes |\n| --- | --- | --- |\n")
	for _, r := range rows {
		b.WriteString("|")
		for _, c := range r {
			if c == "" {
				b.WriteString(" |")
				continue
			}
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// inputsCell names a tool's inputs in the order of its schema: `name`
// when required, `name?` when not, and an enum's values after a colon.
func inputsCell(t *testing.T, tool servedTool) string {
	t.Helper()
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
		t.Fatalf("%s: input schema: %v", tool.Name, err)
	}
	if len(schema.Properties) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(schema.Properties))
	if _, err := dec.Token(); err != nil { // {
		t.Fatalf("%s: properties: %v", tool.Name, err)
	}
	var cells []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: properties: %v", tool.Name, err)
		}
		var prop struct {
			Enum []any `json:"enum"`
		}
		if err := dec.Decode(&prop); err != nil {
			t.Fatalf("%s: property %v: %v", tool.Name, key, err)
		}
		name := key.(string)
		cell := "`" + name + "?`"
		if slices.Contains(schema.Required, name) {
			cell = "`" + name + "`"
		}
		for i, v := range prop.Enum {
			sep := " | "
			if i == 0 {
				sep = ": "
			}
			cell += sep + "`" + fmt.Sprint(v) + "`"
		}
		cells = append(cells, cell)
	}
	return strings.Join(cells, ", ")
}

// lockedBuffer is a bytes.Buffer the transport's reader writes to while
// the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.buf.Bytes())
}
