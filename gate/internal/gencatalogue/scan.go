package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Decl is one action declaration of package gate, as its source says it:
// a package-level var whose value is a gate.Decl[In]{...} literal.
type Decl struct {
	Var   string // the var's name: clickDecl
	File  string // its family's file: mouse.go
	Tool  string // its Tool literal: browser_click
	Title string // its Title literal: Click
	pos   token.Pos
}

// Families are the gate's family files in the order the catalogue offers
// them: the model reads the actions as a person works a page (open it,
// read it, point, type, fill, wait, tabs, look, the page's own tools).
// A family file not listed here follows them, in name order; within a
// file, its declarations keep their order.
var Families = []string{
	"navigate.go", "snapshot.go", "mouse.go", "keyboard.go", "form.go",
	"wait.go", "tabs.go", "screenshot.go", "webmcplist.go", "webmcp.go",
}

// toolName is how every action tool is spelled: browser_ and snake case.
var toolName = regexp.MustCompile(`^browser_[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Scan parses the non-test Go files of package gate in fsys (its
// directory) and returns every action declaration, in catalogue order
// (see [Families]). It fails, naming the place, on a Decl literal it
// cannot list: one that is not a package-level var, or whose Tool is not
// a string literal, and on two declarations of one tool.
func Scan(fsys fs.FS) ([]Decl, error) {
	names, err := fs.Glob(fsys, "*.go")
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var decls []Decl
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parsing %v", err)
		}
		if f.Name.Name != "gate" {
			continue
		}
		found, err := declsOf(fset, name, f)
		if err != nil {
			return nil, err
		}
		decls = append(decls, found...)
	}
	slices.SortStableFunc(decls, func(a, b Decl) int {
		if c := familyRank(a.File) - familyRank(b.File); c != 0 {
			return c
		}
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return int(a.pos - b.pos)
	})
	seen := map[string]string{}
	for _, d := range decls {
		if other, ok := seen[d.Tool]; ok {
			return nil, fmt.Errorf("%s and %s both declare %s", other, d.Var, d.Tool)
		}
		seen[d.Tool] = d.Var
	}
	return decls, nil
}

// familyRank orders files: the listed families first, then the rest.
func familyRank(file string) int {
	if i := slices.Index(Families, path.Base(file)); i >= 0 {
		return i
	}
	return len(Families)
}

// declsOf returns the declarations of one file; every Decl literal in it
// must be one.
func declsOf(fset *token.FileSet, name string, f *ast.File) ([]Decl, error) {
	var decls []Decl
	listed := map[*ast.CompositeLit]bool{}
	for _, gd := range f.Decls {
		g, ok := gd.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				var value ast.Expr
				if i < len(vs.Values) {
					value = vs.Values[i]
				}
				lit, _ := ast.Unparen(value).(*ast.CompositeLit)
				isLit := lit != nil && isDeclType(lit.Type)
				if !isLit && !isDeclType(vs.Type) {
					continue
				}
				if !isLit {
					return nil, fmt.Errorf("%s: %s must be a Decl[...]{...} literal (the catalogue is generated from its source)", fset.Position(id.Pos()), id.Name)
				}
				d, err := declOf(fset, id, lit)
				if err != nil {
					return nil, err
				}
				d.File = name
				listed[lit] = true
				decls = append(decls, d)
			}
		}
	}
	var stray error
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok && isDeclType(lit.Type) && !listed[lit] && stray == nil {
			stray = fmt.Errorf("%s: a Decl must be the value of a package-level var of its own (the catalogue lists those)", fset.Position(lit.Pos()))
		}
		return stray == nil
	})
	return decls, stray
}

// declOf reads the Tool and Title of one Decl literal.
func declOf(fset *token.FileSet, id *ast.Ident, lit *ast.CompositeLit) (Decl, error) {
	d := Decl{Var: id.Name, pos: id.Pos()}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return d, fmt.Errorf("%s: %s: name the fields of a Decl (Tool: ..., Title: ...)", fset.Position(e.Pos()), id.Name)
		}
		key, _ := kv.Key.(*ast.Ident)
		if key == nil || (key.Name != "Tool" && key.Name != "Title") {
			continue
		}
		s, ok := stringLit(kv.Value)
		if !ok {
			return d, fmt.Errorf("%s: %s's %s must be a string literal (spec's tool constants are generated from it)", fset.Position(kv.Value.Pos()), id.Name, key.Name)
		}
		if key.Name == "Tool" {
			d.Tool = s
		} else {
			d.Title = s
		}
	}
	if !toolName.MatchString(d.Tool) {
		return d, fmt.Errorf("%s: %s's Tool %q is not a tool name like browser_click", fset.Position(id.Pos()), id.Name, d.Tool)
	}
	return d, nil
}

// isDeclType says whether x is Decl[In] (or gate.Decl[In]).
func isDeclType(x ast.Expr) bool {
	var base ast.Expr
	switch t := x.(type) {
	case *ast.IndexExpr:
		base = t.X
	case *ast.IndexListExpr:
		base = t.X
	default:
		return false
	}
	switch b := base.(type) {
	case *ast.Ident:
		return b.Name == "Decl"
	case *ast.SelectorExpr:
		return b.Sel.Name == "Decl"
	}
	return false
}

// stringLit is the value of a string literal.
func stringLit(x ast.Expr) (string, bool) {
	b, ok := ast.Unparen(x).(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// ConstName is spec's constant for a tool: browser_press_key is
// ToolPressKey, browser_webmcp_call ToolWebMCPCall.
func ConstName(tool string) string {
	var b strings.Builder
	b.WriteString("Tool")
	for _, part := range strings.Split(strings.TrimPrefix(tool, "browser_"), "_") {
		if up, ok := initialisms[part]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// initialisms are the words a constant's name spells in capitals, as Go
// names do.
var initialisms = map[string]string{"webmcp": "WebMCP", "url": "URL", "id": "ID", "html": "HTML", "json": "JSON", "pdf": "PDF"}
