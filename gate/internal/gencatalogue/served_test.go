package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// servedCheck is a program that lists the tools of the MCP server every
// command serves, over a go-sdk client on in-memory transports, and the
// built-in loop's actions: what a client and the model would see.
const servedCheck = `package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/mcpserver"
)

func main() {
	ctx := context.Background()
	srv := mcpserver.NewServer(func(ctx context.Context, id string) (mcpserver.Runtime, error) {
		return nil, errors.New("listing tools needs no browser")
	}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "added-action", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	for _, t := range res.Tools {
		fmt.Printf("tool %s %q\n", t.Name, t.Title)
	}
	for _, name := range agent.DefaultActions().Names() {
		fmt.Printf("loop %s\n", name)
	}
}
`

// TestAnAddedActionIsServed: the whole of a new action written in one
// family file, with the files go generate writes from it and nothing
// else, builds, and the MCP server serves its tool (with its title) and
// the built-in loop offers it. The repository is not touched: go build's
// -overlay puts the three files, and a program that lists the tools, in
// place.
func TestAnAddedActionIsServed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the MCP server")
	}
	fsys := gateFiles(t)
	fsys["mouse.go"].Data = append(slices.Clone(fsys["mouse.go"].Data), dragAction...)
	gen := generate(t, fsys)
	root, err := filepath.Abs(filepath.Join(gateDir, ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	replace := map[string]string{}
	for path, content := range map[string]string{
		"gate/mouse.go":                     string(fsys["mouse.go"].Data),
		"gate/" + CatalogueFile:             gen.catalogue,
		"spec/" + ToolsFile:                 gen.tools,
		"internal/addedactioncheck/main.go": servedCheck,
	} {
		file := filepath.Join(tmp, strings.ReplaceAll(path, "/", "_"))
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, filepath.FromSlash(path))] = file
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "go", "run", "-overlay", overlayFile, "./internal/addedactioncheck")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("building and running the server with the added action: %v\n%s", err, out)
	}
	for _, want := range []string{`tool browser_drag "Drag"`, "tool browser_click \"Click\"", "loop drag"} {
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("the server with the added action: no line %q in\n%s", want, out)
		}
	}
}
