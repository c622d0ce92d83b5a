package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRealPageArgs(t *testing.T) {
	site := []string{"--host-resolver-rules=MAP *.test 127.0.0.1:4443, EXCLUDE localhost", "--ignore-certificate-errors-spki-list=abc"}
	got := realPageArgs(site, "127.0.0.1:4443", "127.0.0.1:8080")
	want := []string{
		"--ignore-certificate-errors-spki-list=abc",
		// The pages' host first (the first rule that matches wins), then
		// the Company's *.test, then every other host not found.
		"--host-resolver-rules=MAP realpages.test 127.0.0.1:8080, MAP *.test 127.0.0.1:4443, MAP * ~NOTFOUND, EXCLUDE localhost",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("realPageArgs =\n%q\nwant\n%q", got, want)
	}
}

func TestRealPages(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b-page", "a-page", "no-source", "c-page"} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		if name != "no-source" {
			os.WriteFile(filepath.Join(dir, name, "source.html"), []byte("<p>"+name+"</p>"), 0o644)
		}
	}
	for _, c := range []struct {
		limit int
		want  string
	}{
		{0, "a-page b-page c-page"},
		{2, "a-page b-page"},
	} {
		ps, err := realPages(dir, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range ps {
			names = append(names, p.name)
			if p.url != "http://realpages.test/"+p.name+"/" {
				t.Errorf("%s: url %s", p.name, p.url)
			}
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("limit %d: pages %q, want %q", c.limit, got, c.want)
		}
	}
	if _, err := realPages(t.TempDir(), 0); err == nil {
		t.Error("an empty folder gave no error")
	}
}

func TestMentionsDialog(t *testing.T) {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	for _, c := range []struct {
		name string
		res  *mcp.CallToolResult
		err  error
		want bool
	}{
		{"poppy-browser refuses with dialog_open", nil, errors.New(`browser_navigate failed: {"outcome":"failed","reason":"dialog_open"}`), true},
		{"Playwright MCP lists the modal state", text("### Page\n### Modal state\n- [\"alert\" dialog with message \"wrong\"]"), nil, true},
		{"poppy-browser opened the page, with a dialog to answer", &mcp.CallToolResult{StructuredContent: map[string]any{"outcome": "done", "dialog": map[string]any{"type": "alert"}}}, nil, true},
		{"a page without a dialog", text("### Page\n- Page URL: http://realpages.test/a/"), nil, false},
		{"another failure", nil, errors.New("browser_navigate failed: timeout"), false},
	} {
		if got := mentionsDialog(c.res, c.err); got != c.want {
			t.Errorf("%s: mentionsDialog = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	servers := []server{{name: "ours"}, {name: "theirs"}}
	page := func(ob, tb int, oms, tms time.Duration, ocov float64) measuredPage {
		return measuredPage{
			words:    500,
			servers:  []pageResult{{textBytes: ob, snapshot: oms * time.Millisecond, coverage: ocov}, {textBytes: tb, snapshot: tms * time.Millisecond, coverage: 1}},
			first:    []time.Duration{2 * oms * time.Millisecond, 2 * tms * time.Millisecond},
			parts:    []readOnResult{{parts: 1, coverage: ocov}, {parts: 1, coverage: 1}},
			rendered: ocov,
		}
	}
	pages := []measuredPage{
		page(40, 100, 10, 40, 1),  // within both goals
		page(60, 100, 10, 20, 1),  // neither
		page(50, 100, 20, 60, .5), // both, exactly at the goals; coverage below theirs
	}
	var out bytes.Buffer
	summarize(&out, "every page", servers, pages)
	for _, want := range []string{
		"every page, 3 pages:",
		"- ours: median snapshot text 50 bytes, first snapshot 20.0 ms, repeated 10.0 ms, coverage 100.0% (reading every part: 100.0%), full coverage on 2 pages",
		"- theirs: median snapshot text 100 bytes, first snapshot 80.0 ms, repeated 40.0 ms, coverage 100.0%",
		"- the text the page renders (document.body.innerText), 3 pages: coverage 100.0%, full on 2 pages",
		"- median per-page ratio ours / theirs: bytes 0.50, first snapshot 0.33, repeated 0.33",
		"- pages with bytes <= 1/2: 2 (67%); first snapshot <= 1/3: 2 (67%); repeated <= 1/3: 2 (67%); bytes and first snapshot both: 2 (67%)",
		"- pages where ours covers less text than theirs: 1 (33%)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestEvaluateResult(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
		ok               bool
	}{
		{"a JSON string", "### Result\n\"One\\nTwo \\\"three\\\"\"\n### Ran Playwright code\n```js\n```", "One\nTwo \"three\"", true},
		{"the last section", "### Result\n\"text\"", "text", true},
		{"no result", "### Error\nboom", "", false},
		{"not a string", "### Result\n42", "", false},
	} {
		got, err := evaluateResult(c.text)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("%s: evaluateResult = %q, %v; want %q, ok %v", c.name, got, err, c.want, c.ok)
		}
	}
}
