package check

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/poppy-browser/poppy-browser/browser"
)

// The WebMCP tool definitions are validated as an agent's client would
// read them: a tool it cannot name, tell the purpose of, or call with
// arguments is a finding (a warning: it does not take a marked step, but
// an agent cannot use it as the Company meant). They cite BC-5-no-marked-step,
// the requirement of browser-control v1 that names WebMCP tools.
const webmcpRequirement = "BC-5-no-marked-step"

//go:embed webmcpdefs.js
var webmcpDefsJS string

// maxToolScript is the most of one script read to locate a registration.
const maxToolScript = 512 << 10

// toolNamePattern is the tool names MCP clients accept (MCP's tool name
// guidance): letters, digits, "_", "-" and ".", 1 to 128 of them.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// toolDefs is what webmcpdefs.js reads of the top document.
type toolDefs struct {
	Forms   []declaredTool `json:"forms"`
	Scripts []pageScript   `json:"scripts"`
	Source  string         `json:"source"` // the document as served, when the browser's cache has it
}

// declaredTool is a form with toolname or tooldescription, as written.
type declaredTool struct {
	HasName        bool        `json:"has_name"`
	Name           string      `json:"name"`
	HasDescription bool        `json:"has_description"`
	Description    string      `json:"description"`
	Selector       string      `json:"selector"`
	HTML           string      `json:"html"`
	Fields         []toolField `json:"fields"`
}

// toolField is one field of a declarative tool's form: a parameter.
type toolField struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Labelled bool   `json:"labelled"`
	Selector string `json:"selector"`
	HTML     string `json:"html"`
}

// pageScript is a script of the page: Src empty for an inline one.
type pageScript struct {
	Src  string `json:"src"`
	Text string `json:"text"`
}

// toolProblem is one fault of a tool's definition, and the element it is
// on (a declarative tool's form or field; none for an imperative tool).
type toolProblem struct {
	ID             string // webmcp-tool-definition or webmcp-schema-validity
	Message        string
	Selector, HTML string
}

// declaredProblems are the faults of a declarative tool's definition.
func declaredProblems(d declaredTool) []toolProblem {
	var ps []toolProblem
	add := func(sel, html, format string, args ...any) {
		ps = append(ps, toolProblem{ID: "webmcp-tool-definition", Message: fmt.Sprintf(format, args...), Selector: sel, HTML: html})
	}
	switch {
	case !d.HasName:
		add(d.Selector, d.HTML, "The form has a tooldescription but no toolname, so it is no WebMCP tool: the browser registers none, and an agent never sees it. Give it a toolname, or remove the tooldescription.")
		return ps
	case strings.TrimSpace(d.Name) == "":
		add(d.Selector, d.HTML, "The form's toolname is empty, so it is no WebMCP tool. Give it a name of letters, digits, _, - and . (at most 128).")
		return ps
	case !toolNamePattern.MatchString(d.Name):
		add(d.Selector, d.HTML, "The WebMCP tool name %q has characters an agent's client may refuse: use letters, digits, _, - and . (at most 128).", clip(d.Name))
	}
	if d.Description == "" {
		add(d.Selector, d.HTML, "The WebMCP tool %q has no tooldescription: an agent cannot tell what it does or when to use it. Say so in tooldescription.", clip(d.Name))
	}
	seen := map[string]bool{}
	for _, f := range d.Fields {
		switch {
		case f.Name == "":
			add(f.Selector, f.HTML, "A field of the WebMCP tool %q has no name: the tool's input schema leaves it out, so an agent cannot fill it. Give the field a name.", clip(d.Name))
			continue
		case seen[f.Name] && f.Type != "radio" && f.Type != "checkbox":
			add(f.Selector, f.HTML, "Two fields of the WebMCP tool %q are named %q: its input schema has one parameter for both. Give each field its own name.", clip(d.Name), clip(f.Name))
		case !f.Labelled:
			add(f.Selector, f.HTML, "The field %q of the WebMCP tool %q has no label (a label, aria-label or toolparamdescription): its parameter reaches an agent with no description.", clip(f.Name), clip(d.Name))
		}
		seen[f.Name] = true
	}
	return ps
}

// imperativeProblems are the faults of an imperative tool's definition
// (registerTool's name, description and input schema) as the browser
// registered it.
func imperativeProblems(t browser.WebMCPTool) []toolProblem {
	var ps []toolProblem
	add := func(id, format string, args ...any) {
		ps = append(ps, toolProblem{ID: id, Message: fmt.Sprintf(format, args...)})
	}
	if !toolNamePattern.MatchString(t.Name) {
		add("webmcp-tool-definition", "The WebMCP tool name %q has characters an agent's client may refuse: use letters, digits, _, - and . (at most 128).", clip(t.Name))
	}
	if strings.TrimSpace(t.Description) == "" && !t.DescriptionCut {
		add("webmcp-tool-definition", "The WebMCP tool %q has no description: an agent cannot tell what it does or when to use it. Give registerTool a description.", clip(t.Name))
	}
	if len(t.InputSchema) == 0 || t.SchemaCut {
		return ps
	}
	if msg := schemaFault(t.InputSchema); msg != "" {
		add("webmcp-schema-validity", "The input schema of the WebMCP tool %q is not valid: %s. An agent's client cannot build its arguments from it.", clip(t.Name), msg)
	}
	return ps
}

// schemaFault says what is wrong with a tool's input schema as JSON
// Schema (2020-12, as MCP takes it), "" when nothing is: it must be a
// schema, resolve, and describe an object (the arguments).
func schemaFault(raw json.RawMessage) string {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return "it is not a JSON Schema (" + oneLine(err.Error()) + ")"
	}
	if _, err := s.Resolve(nil); err != nil {
		return oneLine(err.Error())
	}
	if s.Type != "object" && !slices.Contains(s.Types, "object") {
		if s.Type == "" && len(s.Types) == 0 {
			return `it gives no "type", where the arguments are an object (type "object")`
		}
		return fmt.Sprintf(`its type is %q, where the arguments are an object (type "object")`, s.Type+strings.Join(s.Types, ","))
	}
	return ""
}

func oneLine(s string) string { return clip(strings.Join(strings.Fields(s), " ")) }

// registration is where an imperative tool is registered: the script (its
// URL; the page's for an inline script), and the line and column there
// (1-based) of the tool's name as a string literal; pageLine is that line
// in the page's document as served, for an inline script found in it.
type registration struct {
	Script       string
	Line, Column int
	PageLine     int
}

// locateRegistration finds the tool name as a quoted literal in the
// page's scripts (the first one that has it).
func locateRegistration(name, pageURL string, scripts []pageScript, source []byte) (registration, bool) {
	for _, s := range scripts {
		at := -1
		for _, q := range []string{`"`, `'`, "`"} {
			if i := strings.Index(s.Text, q+name+q); i >= 0 && (at < 0 || i < at) {
				at = i + 1
			}
		}
		if at < 0 {
			continue
		}
		line := 1 + strings.Count(s.Text[:at], "\n")
		col := at - strings.LastIndex(s.Text[:at], "\n")
		reg := registration{Script: s.Src, Line: line, Column: col}
		if s.Src == "" {
			reg.Script = pageURL
			// The inline script's place in the document as served.
			if i := bytes.Index(source, []byte(s.Text)); i >= 0 && s.Text != "" {
				reg.PageLine = bytes.Count(source[:i], []byte("\n")) + line
				if line == 1 {
					reg.Column = i - bytes.LastIndexByte(source[:i], '\n') - 1 + col
				}
			}
		}
		return reg, true
	}
	return registration{}, false
}

// webmcpDefinitions validates the definitions of the top document's WebMCP
// tools: the declarative forms as written, the imperative tools as the
// browser registered them, each located (the form or field; the
// registerTool call's script, line and column).
func (r *pageRun) webmcpDefinitions(ctx context.Context, top frameData, tools []browser.WebMCPTool) {
	imperative := slices.ContainsFunc(tools, func(t browser.WebMCPTool) bool { return !t.Declarative })
	var defs toolDefs
	if err := top.f.Call(ctx, browser.UtilityWorld, webmcpDefsJS, &defs, maxToolScript, imperative); err != nil {
		r.c.log.Debug("reading the WebMCP tool definitions failed", "err", err)
		return
	}
	// The document as served, for lines: the browser's copy when it kept
	// one, else the one the script read.
	if len(defs.Forms) == 0 && !imperative {
		return
	}
	source, err := top.f.Source(ctx)
	if err != nil || len(source) == 0 {
		source = []byte(defs.Source)
	}
	checked := false
	for _, d := range defs.Forms {
		checked = true
		for _, p := range declaredProblems(d) {
			f := finding(p.ID, Warning, CheckWebMCP, webmcpRequirement, p.Message)
			f.Frame, f.Selector, f.HTML = top.f.URL, p.Selector, p.HTML
			f.Element = fmt.Sprintf("form %q", clip(d.Name))
			f.Line = sourceLine(source, p.HTML)
			r.rep.Findings = append(r.rep.Findings, f)
		}
	}
	for _, t := range tools {
		if t.Declarative {
			continue
		}
		checked = true
		for _, p := range imperativeProblems(t) {
			f := finding(p.ID, Warning, CheckWebMCP, webmcpRequirement, p.Message)
			f.Frame, f.Element = top.f.URL, fmt.Sprintf("WebMCP tool %q", clip(t.Name))
			if reg, ok := locateRegistration(t.Name, top.f.URL, defs.Scripts, source); ok {
				if reg.PageLine > 0 {
					f.Message += fmt.Sprintf(" (registered in the page's inline script, line %d, column %d)", reg.PageLine, reg.Column)
					f.Line = reg.PageLine
				} else {
					f.Message += fmt.Sprintf(" (registered at %s:%d:%d)", reg.Script, reg.Line, reg.Column)
				}
			}
			r.rep.Findings = append(r.rep.Findings, f)
		}
	}
	if checked && !contains(r.rep.Checked, webmcpRequirement) {
		r.rep.Checked = append(r.rep.Checked, webmcpRequirement)
	}
}
