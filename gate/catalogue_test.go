package gate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEveryDeclIsCatalogued: every Decl literal in gate's source is an
// action the compiled catalogue offers, and the catalogue offers no other:
// a declaration cannot sit unused because the generated list missed it
// (go generate ./gate writes catalogue_gen.go; this reads the source
// itself, not the generator's output).
func TestEveryDeclIsCatalogued(t *testing.T) {
	offered := map[string]bool{}
	for _, e := range Catalogue() {
		offered[e.Tool] = true
	}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declared := map[string]bool{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isDeclLiteral(lit) {
				return true
			}
			tool := toolOf(lit)
			if tool == "" {
				t.Errorf("%s: a Decl without a Tool literal", fset.Position(lit.Pos()))
				return true
			}
			declared[tool] = true
			if !offered[tool] {
				t.Errorf("%s: %s is declared but not in the catalogue: run go generate ./gate", fset.Position(lit.Pos()), tool)
			}
			return true
		})
	}
	for tool := range offered {
		if !declared[tool] {
			t.Errorf("the catalogue offers %s, which no Decl in gate's source declares: run go generate ./gate", tool)
		}
	}
	if len(declared) < 10 {
		t.Fatalf("found %d Decl literals in gate's source: the test does not read them", len(declared))
	}
}

func isDeclLiteral(lit *ast.CompositeLit) bool {
	var x ast.Expr
	switch t := lit.Type.(type) {
	case *ast.IndexExpr:
		x = t.X
	case *ast.IndexListExpr:
		x = t.X
	}
	id, ok := x.(*ast.Ident)
	return ok && id.Name == "Decl"
}

func toolOf(lit *ast.CompositeLit) string {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Tool" {
				if b, ok := kv.Value.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(b.Value)
					return s
				}
			}
		}
	}
	return ""
}
