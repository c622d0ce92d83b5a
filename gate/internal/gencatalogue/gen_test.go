package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

const (
	gateDir = "../.."
	specDir = "../../../spec"
)

// TestGeneratedFilesAreCurrent: gate/catalogue_gen.go and
// spec/tools_gen.go are what the generator writes from gate's source
// today: a Decl added, renamed or removed without go generate fails here.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	decls, err := Scan(os.DirFS(gateDir))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := CatalogueGo(decls)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := ToolsGo(decls)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path, name string
		want       []byte
	}{
		{filepath.Join(gateDir, CatalogueFile), "gate/" + CatalogueFile, cat},
		{filepath.Join(specDir, ToolsFile), "spec/" + ToolsFile, tools},
	} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatalf("%v; run go generate ./gate", err)
		}
		if diff := cmp.Diff(string(f.want), string(got)); diff != "" {
			t.Errorf("%s is stale: run go generate ./gate (-generated +on disk):\n%s", f.name, diff)
		}
	}
}

// gateFiles is a copy of package gate's non-test source, in memory.
func gateFiles(t *testing.T) fstest.MapFS {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(gateDir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		fsys[filepath.Base(n)] = &fstest.MapFile{Data: b}
	}
	return fsys
}

// dragAction is a new action of the pointer's family, all of it: what a
// contributor writes in mouse.go.
const dragAction = `
// Drag drags the element by its ref.
type Drag struct{ Ref string }

var dragDecl = Decl[RefInput]{
	Tool:        "browser_drag",
	Title:       "Drag",
	Description: "Drag an element (real mouse input).",
	Loop:        Loop{Name: "drag", Brief: "Drag an element by its ref."},
	User:        UserWords{Did: "dragged an element", Refused: "drag"},
	Build:       func(in RefInput) Action { return Drag{Ref: in.Ref} },
}

func (Drag) Tool() string                { return spec.ToolDrag }
func (a Drag) withRef(ref string) Action { a.Ref = ref; return a }

func (a Drag) plan() plan {
	return plan{
		ref:   a.Ref,
		touch: &marks.Action{Kind: marks.ActionClick},
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			return atCentre(ctx, st, "drag", st.r.input.Click)
		},
		settle: true,
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, "Dragged "+st.target.ref+".")
		},
	}
}
`

// TestAddingAnActionTouchesItsFamilyFile: a new Decl written in one
// family file (mouse.go) is, after the generator, in the catalogue (after
// that family's others) and has its constant in spec, with nothing else
// changed and no other file edited.
func TestAddingAnActionTouchesItsFamilyFile(t *testing.T) {
	fsys := gateFiles(t)
	before := generate(t, fsys)
	fsys["mouse.go"].Data = append(slices.Clone(fsys["mouse.go"].Data), dragAction...)
	after := generate(t, fsys)

	if got, want := added(before.catalogue, after.catalogue), []string{"\tdragDecl,         // browser_drag (mouse.go)"}; !slices.Equal(got, want) {
		t.Errorf("the catalogue gained %q, want %q", got, want)
	}
	if !strings.Contains(after.catalogue, "scrollDecl,       // browser_scroll (mouse.go)\n\tdragDecl,") {
		t.Errorf("dragDecl is not right after mouse.go's last action:\n%s", after.catalogue)
	}
	wantSpec := []string{"\t// ToolDrag names the action \"Drag\" (gate/mouse.go).", "\tToolDrag = \"browser_drag\"", ""}
	if got := added(before.tools, after.tools); !slices.Equal(got, wantSpec) {
		t.Errorf("spec gained %q, want %q", got, wantSpec)
	}
}

type generated struct{ catalogue, tools string }

func generate(t *testing.T, fsys fstest.MapFS) generated {
	t.Helper()
	decls, err := Scan(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := CatalogueGo(decls)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := ToolsGo(decls)
	if err != nil {
		t.Fatal(err)
	}
	return generated{string(cat), string(tools)}
}

// added is the lines of after that are not in before (whose lines after
// keeps in their order; gofmt's alignment aside, the generator only adds).
func added(before, after string) []string {
	old := strings.Split(before, "\n")
	var out []string
	for _, l := range strings.Split(after, "\n") {
		if len(old) > 0 && l == old[0] {
			old = old[1:]
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestScanRefusesWhatItCannotList: a Decl the generator could not put in
// the catalogue, or whose name it could not write into spec, stops it
// with the place and the fix.
func TestScanRefusesWhatItCannotList(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"inside a function", "func f() { _ = Decl[NoInput]{Tool: \"browser_x\"} }", "x.go:3:16: a Decl must be the value of a package-level var"},
		{"a tool that is not a literal", "const name = \"browser_x\"\nvar xDecl = Decl[NoInput]{Tool: name}", "x.go:4:33: xDecl's Tool must be a string literal"},
		{"a title that is not a literal", "var xDecl = Decl[NoInput]{Tool: \"browser_x\", Title: \"X\" + \"y\"}", "xDecl's Title must be a string literal"},
		{"no tool", "var xDecl = Decl[NoInput]{Title: \"X\"}", "xDecl's Tool \"\" is not a tool name"},
		{"a tool not spelled as one", "var xDecl = Decl[NoInput]{Tool: \"Browser-X\"}", "xDecl's Tool \"Browser-X\" is not a tool name"},
		{"a typed var without a literal", "var xDecl Decl[NoInput] = other()", "xDecl must be a Decl[...]{...} literal"},
		{"fields not named", "var xDecl = Decl[NoInput]{\"browser_x\"}", "name the fields of a Decl"},
		{"a tool declared twice", "var xDecl = Decl[NoInput]{Tool: \"browser_x\"}\nvar yDecl = Decl[NoInput]{Tool: \"browser_x\"}", "xDecl and yDecl both declare browser_x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"x.go": {Data: []byte("package gate\n\n" + tc.src + "\n")}}
			_, err := Scan(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Scan: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestScanFindsEveryForm: a Decl in a var block, with its type written
// twice, or in a file no family list names, is listed; families come in
// their order, other files after them by name, each file's Decls in order.
func TestScanFindsEveryForm(t *testing.T) {
	fsys := fstest.MapFS{
		"zoom.go":     {Data: []byte("package gate\n\nvar zoomDecl = Decl[NoInput]{Tool: \"browser_zoom\"}\n")},
		"mouse.go":    {Data: []byte("package gate\n\nvar (\n\taDecl = Decl[NoInput]{Tool: \"browser_a\"}\n\tbDecl Decl[NoInput] = Decl[NoInput]{Tool: \"browser_b\", Title: `B`}\n)\n")},
		"navigate.go": {Data: []byte("package gate\n\nvar goDecl = (Decl[NoInput]{Tool: \"browser_go\"})\n")},
		"audio.go":    {Data: []byte("package gate\n\nvar playDecl = Decl[NoInput]{Tool: \"browser_play\"}\n")},
		"x_test.go":   {Data: []byte("package gate\n\nvar testDecl = Decl[NoInput]{Tool: \"browser_test\"}\n")},
	}
	decls, err := Scan(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range decls {
		got = append(got, d.Var+" "+d.Tool+" "+d.Title)
	}
	want := []string{"goDecl browser_go ", "aDecl browser_a ", "bDecl browser_b B", "playDecl browser_play ", "zoomDecl browser_zoom "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decls (-want +got):\n%s", diff)
	}
}

func TestConstName(t *testing.T) {
	for tool, want := range map[string]string{
		"browser_click":         "ToolClick",
		"browser_press_key":     "ToolPressKey",
		"browser_handle_dialog": "ToolHandleDialog",
		"browser_webmcp_list":   "ToolWebMCPList",
		"browser_open_url":      "ToolOpenURL",
	} {
		if got := ConstName(tool); got != want {
			t.Errorf("ConstName(%s) = %s, want %s", tool, got, want)
		}
	}
}
