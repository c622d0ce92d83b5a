package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoGlobalHooks: no non-test Go file has an init function or a
// package-level variable of function type, the global hooks STYLE forbids
// (a seam a test fills or swaps behind everybody's back). Test-only
// operations are handed out as interfaces (browser/internal/seam).
func TestNoGlobalHooks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, p := range globalHooks(rel, src) {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("found %d Go files under %s: the walk missed the repository", files, root)
	}
}

// TestGlobalHooksSaySo: the checker names an init function and a
// package-level function variable, in a block or alone, and leaves a
// struct's function field, a function and a local variable alone.
func TestGlobalHooksSaySo(t *testing.T) {
	src := `package p

type Options struct{ Now func() int }

var Hook func(any) error

var (
	n    = 3
	Swap = func() {}
)

func init() {}

func f() { var local func(); _ = local }
`
	got := globalHooks("p/p.go", []byte(src))
	want := []string{
		"p/p.go:5: Hook is a package-level variable of function type (a global hook): pass it in, or hand it out as an interface",
		"p/p.go:9: Swap is a package-level variable of function type (a global hook): pass it in, or hand it out as an interface",
		"p/p.go:12: an init function: set things up where they are built, not at start",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// globalHooks lists the init functions and package-level function
// variables of the Go source src (the file rel).
func globalHooks(rel string, src []byte) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return []string{rel + ": " + err.Error()}
	}
	var out []string
	at := func(pos token.Pos) string { return rel + ":" + itoa(fset.Position(pos).Line) }
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				out = append(out, at(d.Pos())+": an init function: set things up where they are built, not at start")
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					isFunc := false
					if _, ok := vs.Type.(*ast.FuncType); ok {
						isFunc = true
					}
					if i < len(vs.Values) {
						if _, ok := vs.Values[i].(*ast.FuncLit); ok {
							isFunc = true
						}
					}
					if isFunc {
						out = append(out, at(name.Pos())+": "+name.Name+" is a package-level variable of function type (a global hook): pass it in, or hand it out as an interface")
					}
				}
			}
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
