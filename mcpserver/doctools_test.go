package mcpserver

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// docToolRow is a row of docs/reference.md's table of tools: its first
// cell names one tool or several (`browser_back`, `browser_forward`).
var (
	docToolRow  = regexp.MustCompile("(?m)^\\| (`browser_[a-z_]+`(?:, `browser_[a-z_]+`)*) \\|")
	docToolName = regexp.MustCompile("`(browser_[a-z_]+)`")
)

// DocumentedTools lists, sorted, the tools docs/reference.md's table
// documents: the contract the server's tools/list is held to (the names
// themselves are declared once, each beside its action or control tool).
func DocumentedTools(t testing.TB) []string {
	t.Helper()
	doc, err := os.ReadFile("../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, row := range docToolRow.FindAllStringSubmatch(string(doc), -1) {
		for _, n := range docToolName.FindAllStringSubmatch(row[1], -1) {
			names = append(names, n[1])
		}
	}
	if len(names) < 10 {
		t.Fatalf("docs/reference.md's table of tools lists %d tools: its rows are not read", len(names))
	}
	slices.Sort(names)
	return slices.Compact(names)
}
