package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/poppy-browser/poppy-browser"

// allowed is the architecture as data: for each package of the module
// (path relative to the module), what its non-test code may import besides
// the standard library. A module package is named by its relative path; a
// third-party entry (it has a dot in its first element) allows that module
// path and the packages below it. Keep it in the order and the words of
// docs/architecture.md: imports go downwards, cmd -> supervisor, check,
// mcpserver, agent, ui -> gate -> marks, injector, control, audit ->
// browser, session -> spec; only browser (and its internal packages)
// imports chromedp or cdproto; no runtime package imports testsite.
var allowed = map[string][]string{
	// The floor: the extension as data.
	"spec": {"github.com/dunglas/httpsfv", "github.com/go-json-experiment/json", "golang.org/x/net"},

	// Discovery, the join, the browser.
	"session": {"spec", "internal/childenv", "internal/secret", "internal/tail",
		"github.com/go-jose/go-jose/v4", "golang.org/x/net"},
	"browser": {"browser/internal/cdp", "browser/internal/chromium", "browser/internal/seam",
		"github.com/chromedp/chromedp", "github.com/chromedp/cdproto"},
	"browser/internal/cdp":      {"internal/queue", "internal/secret", "github.com/chromedp/chromedp", "github.com/chromedp/cdproto"},
	"browser/internal/chromium": {"internal/childenv", "internal/tail", "github.com/chromedp/chromedp"},
	"browser/internal/seam":     {},
	"browser/browsertest":       {"browser", "browser/internal/chromium", "browser/internal/seam", "internal/childenv", "internal/tail"},

	// What the gate stands on.
	"marks":           {"browser", "spec", "github.com/go-json-experiment/json"},
	"marks/markstest": {"marks", "spec"},
	"injector":        {"browser", "spec"},
	"control":         {"spec", "internal/queue"},
	"audit":           {"control", "spec", "internal/pagetext"},
	// The User's proof of presence: paired passkeys and their ceremonies.
	"presence":              {"control", "github.com/go-webauthn/webauthn"},
	"presence/presencetest": {"browser"},

	// The MCP endpoint as an OAuth resource server: whose each request is.
	"oauth":           {"internal/cli", "internal/jwtverify", "internal/loopback", "github.com/go-jose/go-jose/v4", "github.com/modelcontextprotocol/go-sdk"},
	"oauth/oauthtest": {"github.com/go-jose/go-jose/v4"},

	// One way in.
	"gate":          {"audit", "browser", "control", "marks", "spec", "internal/pagetext", "github.com/google/jsonschema-go"},
	"gate/gatetest": {"audit", "browser", "control", "gate", "marks", "marks/markstest"},
	// go generate ./gate: reads gate's source, writes its catalogue and
	// spec's action tool names.
	"gate/internal/gencatalogue": {},

	// The gate's clients and the User's side.
	"mcpserver": {"control", "gate", "oauth", "spec", "internal/loopback", "internal/version",
		"github.com/google/jsonschema-go", "github.com/modelcontextprotocol/go-sdk", "github.com/prometheus/client_golang"},
	"agent":      {"control", "gate", "spec", "github.com/google/jsonschema-go"},
	"agent/chat": {"agent", "internal/secret", "github.com/openai/openai-go/v3"},
	"ui": {"audit", "browser", "control", "presence", "spec", "internal/cli", "internal/jwtverify", "internal/loopback", "internal/pagetext", "internal/secret",
		"charm.land/bubbletea/v2", "charm.land/lipgloss/v2", "github.com/charmbracelet/x/ansi",
		"github.com/charmbracelet/x/term", "github.com/gorilla/websocket", "github.com/go-jose/go-jose/v4", "github.com/skip2/go-qrcode"},
	"supervisor": {"audit", "browser", "control", "gate", "injector", "marks", "presence", "session", "spec", "ui",
		"internal/desktop", "internal/version", "github.com/prometheus/client_golang", "golang.org/x/sync"},
	// check acts on pages only through the gate's probe mode; it reads them
	// through browser (requests, frames) and marks (the marks table).
	"check": {"browser", "gate", "marks", "session", "spec", "supervisor", "internal/cli", "internal/version",
		"golang.org/x/net", "gopkg.in/yaml.v3", "github.com/google/jsonschema-go"},

	// The command: flags and subcommands.
	"cmd/poppy-browser": {"agent", "agent/chat", "audit", "check", "gate", "mcpserver", "oauth", "presence", "session", "supervisor", "ui",
		"testsite", "testsite/demoscript", "testsite/devsite",
		"internal/cli", "internal/desktop", "internal/loopback", "internal/secret", "internal/version"},

	// The demo Company, and the demo (the agent's script, and the run that
	// puts the airline, a runtime, the agent and the User together):
	// imported by cmd, bench and tests only.
	"testsite": {"spec", "internal/cli", "github.com/go-jose/go-jose/v4", "github.com/gorilla/websocket"},
	"testsite/demoscript": {"agent", "agent/chat", "browser", "mcpserver", "presence", "presence/presencetest", "session", "supervisor", "testsite", "ui",
		"internal/cli", "internal/secret"},
	"testsite/devsite": {"session", "testsite", "internal/cli"},

	// Helpers of our own, each below whatever uses it.
	"internal/childenv":  {},
	"internal/cli":       {},
	"internal/desktop":   {"internal/cli"},
	"internal/golden":    {"github.com/google/go-cmp"},
	"internal/jwtverify": {"internal/loopback", "github.com/go-jose/go-jose/v4"},
	"internal/loopback":  {},
	"internal/pagetext":  {},
	"internal/poolproc":  {},
	"internal/queue":     {},
	"internal/secret":    {},
	"internal/tail":      {},
	"internal/version":   {},
	"internal/archtest":  {},

	// Measuring and deploying: programs and examples beside the runtime.
	"bench/sessions":     {"browser", "internal/poolproc", "testsite", "github.com/modelcontextprotocol/go-sdk", "github.com/gorilla/websocket"},
	"bench/sidebyside":   {"agent", "browser", "gate", "presence/presencetest", "spec", "testsite", "github.com/modelcontextprotocol/go-sdk", "golang.org/x/net"},
	"deploy/browserless": {},
}

// cdpModules are the modules that speak CDP: browser's alone.
var cdpModules = []string{"github.com/chromedp/chromedp", "github.com/chromedp/cdproto"}

// cdpInTests are the packages whose tests, outside browser, may use chromedp
// directly, and why.
var cdpInTests = map[string]string{
	"gate": "bench_marks_test.go measures the snapshot against plain chromedp as its baseline",
}

// notRuntime are the packages (and the trees below them) that are not part
// of the runtime: they may import testsite, nothing of the runtime may.
var notRuntime = []string{"cmd", "bench", "testsite", "deploy", "internal/archtest"}

// pkg is what go list tells of one package.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// TestImportsFollowTheArchitecture: every package of the module imports
// only what its entry in allowed names (and the standard library), has an
// entry, and no entry names a package that is gone.
func TestImportsFollowTheArchitecture(t *testing.T) {
	pkgs, err := listPackages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: it did not list the module", len(pkgs))
	}
	for _, p := range problems(pkgs, allowed) {
		t.Error(p)
	}
}

// TestProblemsSaySo: the checker itself reports an arrow the table does not
// allow, a CDP import outside browser, testsite in the runtime, a package
// without an entry and an entry without a package, each in words that say
// what to do.
func TestProblemsSaySo(t *testing.T) {
	table := map[string][]string{
		"spec":     {},
		"gate":     {"spec"},
		"marks":    {"spec"},
		"testsite": {"spec"},
		"old":      {},
	}
	pkgs := []pkg{
		{ImportPath: module + "/spec", Imports: []string{"fmt", "strings"}},
		{ImportPath: module + "/gate", Imports: []string{"context", module + "/spec", module + "/mcpserver"}},
		{ImportPath: module + "/marks", Imports: []string{module + "/spec", "github.com/chromedp/cdproto/dom", module + "/testsite"},
			TestImports: []string{"github.com/chromedp/chromedp"}},
		{ImportPath: module + "/testsite", Imports: []string{module + "/spec"}},
		{ImportPath: module + "/newpkg", Imports: []string{"fmt"}},
	}
	got := problems(pkgs, table)
	want := []string{
		"gate imports mcpserver, which its line in internal/archtest/imports_test.go does not allow (imports go downwards, docs/architecture.md); move the code, or change the architecture and the table together",
		"marks imports github.com/chromedp/cdproto/dom: only browser and its internal packages speak CDP (docs/architecture.md)",
		"marks imports testsite: testsite is the demo Company and its fixtures, and no runtime package may import it (docs/architecture.md)",
		"marks's tests import github.com/chromedp/chromedp: only browser and its internal packages speak CDP (docs/architecture.md); a test outside browser drives Chromium through browser/browsertest",
		"newpkg has no line in internal/archtest/imports_test.go: add one naming what it may import, and its row in docs/architecture.md",
		"internal/archtest/imports_test.go has a line for old, which is no package of the module: remove it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// problems lists what in pkgs breaks the rules of table, in words a
// reader can act on.
func problems(pkgs []pkg, table map[string][]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		seen[name] = true
		allow, ok := table[name]
		if !ok {
			out = append(out, fmt.Sprintf("%s has no line in internal/archtest/imports_test.go: add one naming what it may import, and its row in docs/architecture.md", name))
			continue
		}
		for _, imp := range p.Imports {
			switch {
			case standard(imp):
			case speaksCDP(imp) && !under(name, "browser"):
				out = append(out, fmt.Sprintf("%s imports %s: only browser and its internal packages speak CDP (docs/architecture.md)", name, imp))
			case imp == module+"/testsite" || strings.HasPrefix(imp, module+"/testsite/"):
				if isRuntime(name) {
					out = append(out, fmt.Sprintf("%s imports %s: testsite is the demo Company and its fixtures, and no runtime package may import it (docs/architecture.md)", name, rel(imp)))
					continue
				}
				fallthrough
			default:
				if !allows(allow, imp) {
					out = append(out, fmt.Sprintf("%s imports %s, which its line in internal/archtest/imports_test.go does not allow (imports go downwards, docs/architecture.md); move the code, or change the architecture and the table together", name, rel(imp)))
				}
			}
		}
		if _, ok := cdpInTests[name]; ok || under(name, "browser") {
			continue
		}
		for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
			if speaksCDP(imp) {
				out = append(out, fmt.Sprintf("%s's tests import %s: only browser and its internal packages speak CDP (docs/architecture.md); a test outside browser drives Chromium through browser/browsertest", name, imp))
			}
		}
	}
	var stale []string
	for name := range table {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	for _, name := range stale {
		out = append(out, fmt.Sprintf("internal/archtest/imports_test.go has a line for %s, which is no package of the module: remove it", name))
	}
	return out
}

// allows reports whether an entry of allow names imp: a module package
// exactly, a third-party module with the packages below it.
func allows(allow []string, imp string) bool {
	for _, a := range allow {
		if thirdParty(a) {
			if imp == a || strings.HasPrefix(imp, a+"/") {
				return true
			}
		} else if imp == module+"/"+a {
			return true
		}
	}
	return false
}

func thirdParty(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return strings.Contains(first, ".")
}

func standard(path string) bool { return !thirdParty(path) }

func speaksCDP(imp string) bool {
	for _, m := range cdpModules {
		if imp == m || strings.HasPrefix(imp, m+"/") {
			return true
		}
	}
	return false
}

// under reports whether the package name is dir or below it.
func under(name, dir string) bool { return name == dir || strings.HasPrefix(name, dir+"/") }

// isRuntime reports whether the package is part of the runtime (not cmd, a
// benchmark, the test site or a deployment example).
func isRuntime(name string) bool {
	for _, d := range notRuntime {
		if under(name, d) {
			return false
		}
	}
	return true
}

func rel(imp string) string { return strings.TrimPrefix(imp, module+"/") }

// listPackages asks go list for every package of the module.
func listPackages() ([]pkg, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}
