package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// storedContexts are the struct fields of type context.Context allowed
// outside package browser (which owns chromedp's chain of contexts), each
// with why a stored context is the honest design there. The STYLE rule is
// "never store it": a component with background work exposes it as a
// function its owner runs (Run(ctx)), and a closing component keeps a
// channel, not a context. Key: the package's folder, the type, the field.
var storedContexts = map[string]string{
	// The live view is a server: its context is the base context of its
	// HTTP requests (http.Server.BaseContext; a Router's forwarded
	// requests too), the context those requests run under, and the parent
	// of what they and control's events start beside them (screencasts,
	// the step follower, downloads). Shutdown ends it after the server
	// stops. A Run(ctx) would have every event handler of package ui take
	// a ctx; left for now, as the order of Shutdown is not tested enough.
	"ui.Live.ctx": "the base context of the live view's requests, and the parent of what they and control's events start",
	// go-sdk's ServerSession has no context of its own (only Close and
	// Wait): this one carries the session's subject (OAuth) and ends its
	// calls (opening its runtime, elicitations, notifications) when the
	// MCP session ends.
	"mcpserver.entry.ctx": "the context of one MCP session's calls, with its subject; go-sdk gives a ServerSession none",
}

// TestNoStoredContexts: no struct field of a non-test Go file outside
// package browser has type context.Context, but the allow-listed ones.
// A lifetime is an owner's ctx passed to Run, not a field.
func TestNoStoredContexts(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case d.Name() == "testdata", d.Name() == "node_modules", d.Name() == ".git":
				return filepath.SkipDir
			case rel == "browser" || strings.HasPrefix(rel, "browser/"):
				return filepath.SkipDir // chromedp's chain: browser owns it
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		files++
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, f := range contextFields(rel, src) {
			if _, ok := storedContexts[f.key]; ok {
				seen[f.key] = true
				continue
			}
			t.Errorf("%s: %s is a struct field of type context.Context: pass ctx to the call (Run(ctx) for background work), or allow-list it in contexts_test.go with why", f.at, f.key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("found %d Go files under %s: the walk missed the repository", files, root)
	}
	for key := range storedContexts {
		if !seen[key] {
			t.Errorf("%s is allow-listed in contexts_test.go but no longer stored: take it off the list", key)
		}
	}
}

// TestContextFieldsSaySo: the checker names a context field by package,
// type and field, under another import name, in a nested struct and when
// embedded, and leaves a parameter, a local and a func field alone.
func TestContextFieldsSaySo(t *testing.T) {
	src := `package p

import (
	"context"
	stdctx "context"
)

type Runner struct {
	life context.Context
	stop context.CancelFunc
	do   func(ctx context.Context) error
	sub  struct{ inner stdctx.Context }
}

type carrier struct {
	context.Context
}

func f(ctx context.Context) { var c context.Context; _, _ = c, ctx }
`
	var got []string
	for _, f := range contextFields("p/p.go", []byte(src)) {
		got = append(got, f.at+" "+f.key)
	}
	want := []string{"p/p.go:9 p.Runner.life", "p/p.go:12 p.Runner.inner", "p/p.go:16 p.carrier.Context"}
	if !slices.Equal(got, want) {
		t.Errorf("fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// contextField is one struct field of type context.Context: where, and
// its key in storedContexts.
type contextField struct{ at, key string }

// contextFields lists the struct fields of type context.Context in the Go
// source src (the file rel).
func contextFields(rel string, src []byte) []contextField {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return []contextField{{at: rel, key: err.Error()}}
	}
	names := map[string]bool{} // what the file calls package context
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "context" {
			name := "context"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = true
		}
	}
	if len(names) == 0 {
		return nil
	}
	isContext := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Context" {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && names[x.Name]
	}
	pkg := path.Dir(rel)
	var out []contextField
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			ast.Inspect(ts.Type, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncType:
					return false // a func field's parameters are not stored
				case *ast.Field:
					if !isContext(n.Type) {
						return true
					}
					at := rel + ":" + strconv.Itoa(fset.Position(n.Pos()).Line)
					if len(n.Names) == 0 {
						out = append(out, contextField{at, pkg + "." + ts.Name.Name + ".Context"})
					}
					for _, name := range n.Names {
						out = append(out, contextField{at, pkg + "." + ts.Name.Name + "." + name.Name})
					}
				}
				return true
			})
		}
	}
	return out
}
