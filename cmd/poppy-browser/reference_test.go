package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/mcpserver"
)

// TestReferenceHasEveryTool: docs/reference.md's table of MCP tools names
// exactly the tools the MCP server lists (read over an in-memory MCP
// client, as any client would), and each tool's row names each of its
// inputs, `name` when it is required and `name?` when it is not.
func TestReferenceHasEveryTool(t *testing.T) {
	ref := readReference(t)
	documented := map[string][]string{} // tool -> its row
	for _, row := range tableRows(ref["MCP tools"]) {
		for _, name := range backticked(row[0]) {
			documented[name] = row
		}
	}
	if len(documented) == 0 {
		t.Fatal(`docs/reference.md: no table of tools under "## MCP tools"`)
	}
	srv := mcpserver.NewServer(func(ctx context.Context, id string) (mcpserver.Runtime, error) {
		return nil, errors.New("listing tools needs no browser")
	}, nil)
	tools := listTools(t, srv.MCP())
	var served []string
	for _, tool := range tools {
		served = append(served, tool.Name)
		row, ok := documented[tool.Name]
		if !ok {
			t.Errorf("the MCP server lists %s, which docs/reference.md (## MCP tools) does not document", tool.Name)
			continue
		}
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatalf("%s: input schema: %v", tool.Name, err)
		}
		inputs := backticked(row[1])
		for p := range schema.Properties {
			want := p + "?"
			if slices.Contains(schema.Required, p) {
				want = p
			}
			if !slices.Contains(inputs, want) {
				t.Errorf("docs/reference.md: the row of %s does not give its input `%s` (as `%s`)", tool.Name, p, want)
			}
		}
	}
	for name := range documented {
		if !slices.Contains(served, name) {
			t.Errorf("docs/reference.md documents %s, which the MCP server does not list", name)
		}
	}
}

// TestReferenceHasEveryFlag: every subcommand of the usage has a row in
// docs/reference.md's table of commands, and every flag its --help shows is
// in its section, or in a group of flags the section says it takes ("takes
// the [browser flags](#browser-flags)"); a flag documented for a command
// is one it has, and a command that takes a group has all of its flags.
func TestReferenceHasEveryFlag(t *testing.T) {
	ref := readReference(t)
	var commands []string
	for _, row := range tableRows(ref["Commands"]) {
		commands = append(commands, backticked(row[0])...)
	}
	_, list, _ := strings.Cut(usage, "commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	for line := range strings.Lines(list) {
		name := strings.Fields(line)[0]
		if !slices.Contains(commands, name) {
			t.Errorf("docs/reference.md (## Commands) has no row for %s", name)
			continue
		}
		if name == "version" {
			continue // no flags: --help is its version
		}
		shown := helpFlags(t, name)
		section, ok := ref[name]
		if !ok {
			t.Errorf("docs/reference.md has no section ### %s", name)
			continue
		}
		own := documentedFlags(section)
		for _, f := range own {
			if !slices.Contains(shown, f) {
				t.Errorf("docs/reference.md documents --%s for %s, which %s --help does not show", f, name, name)
			}
		}
		documented := slices.Clone(own)
		for _, m := range takesGroup.FindAllStringSubmatch(section, -1) {
			heading := strings.ToUpper(m[1][:1]) + m[1][1:] + " flags"
			group, ok := ref[heading]
			if !ok {
				t.Errorf("docs/reference.md: %s takes the %s, which has no section", name, heading)
				continue
			}
			for _, f := range documentedFlags(group) {
				documented = append(documented, f)
				if !slices.Contains(shown, f) {
					t.Errorf("docs/reference.md says %s takes the %s, but %s --help does not show --%s", name, heading, name, f)
				}
			}
		}
		for _, f := range shown {
			if !slices.Contains(documented, f) {
				t.Errorf("%s --help shows --%s, which docs/reference.md (### %s) does not document", name, f, name)
			}
		}
	}
}

// takesGroup is a section's sentence that it takes a group of flags: "takes
// the [browser flags](#browser-flags)", and what follows in a list.
var takesGroup = regexp.MustCompile(`(?:takes|,|and)\s+the\s+\[[a-zA-Z]+\s+flags\]\(#([a-z]+)-flags\)`)

// helpFlags returns the flags `poppy-browser name --help` shows.
func helpFlags(t *testing.T, name string) []string {
	t.Helper()
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{name, "--help"}, strings.NewReader(""), &stdout, &stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("%s --help: %v", name, err)
	}
	var flags []string
	for _, m := range helpFlag.FindAllStringSubmatch(stderr.String(), -1) {
		flags = append(flags, m[1])
	}
	if len(flags) == 0 && name != "audit" {
		t.Fatalf("%s --help shows no flags:\n%s", name, stderr.String())
	}
	return flags
}

// helpFlag is a flag's line in flag.PrintDefaults' output.
var helpFlag = regexp.MustCompile(`(?m)^  -([\w-]+)`)

// documentedFlags returns the flags of the table rows of a section: the
// first cell's `--name ...`.
func documentedFlags(section string) []string {
	var flags []string
	for _, row := range tableRows(section) {
		for _, b := range backticked(row[0]) {
			if name, ok := strings.CutPrefix(b, "--"); ok {
				name, _, _ = strings.Cut(name, " ")
				flags = append(flags, name)
			}
		}
	}
	return flags
}

// readReference returns docs/reference.md's sections by heading ("MCP
// tools", "mcp", "Browser flags"): the text under the heading up to the
// next heading of any level.
func readReference(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	var name string
	var body strings.Builder
	fenced := false
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "#") {
			sections[name] = body.String()
			body.Reset()
			name = strings.TrimSpace(strings.TrimLeft(line, "#"))
			continue
		}
		body.WriteString(line)
	}
	sections[name] = body.String()
	return sections
}

// tableRows returns the body rows of the Markdown tables in text, each as
// its cells; an escaped \| stays inside its cell.
func tableRows(text string) [][]string {
	var rows [][]string
	lines := slices.Collect(strings.Lines(text))
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "| ---") {
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "| ---") {
			continue // a header
		}
		line = strings.ReplaceAll(line, `\|`, "\x00")
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
		}
		for len(cells) < 2 {
			cells = append(cells, "")
		}
		rows = append(rows, cells)
	}
	return rows
}

// backticked returns the code spans of a cell: "`ref`, `text`" gives ref
// and text.
func backticked(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// listTools lists srv's tools over an in-memory MCP client.
func listTools(t *testing.T, srv *mcp.Server) []*mcp.Tool {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "reference-test", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}
