package check

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/version"
	"github.com/poppy-browser/poppy-browser/spec"
)

// SARIF 2.1.0 (OASIS), the subset the report needs, as GitHub code
// scanning takes it. No Go library for the format is kept by the project,
// so these small typed structs mirror the schema's objects; the tests
// validate their output against the whole schema and the rules GitHub
// Advanced Security adds (the SARIF Multitool's "Ghas" rule kind).
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

// SARIFOptions shape a SARIF log's locations. The zero value (or nil)
// locates every result at its page as a scheme-less "host/path".
type SARIFOptions struct {
	// SourceRoots map pages to files of the repository (--source-root):
	// a page whose URL starts with a root's URLPrefix is located at the
	// file of Dir that serves it, when there is one.
	SourceRoots []SourceRoot
	// Root is the repository's folder, where Dir paths are looked up;
	// empty means the current folder.
	Root string
	// Version is the tool's version; empty means this binary's.
	Version string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	// ColumnKind is how columns count: poppy-browser reports lines only,
	// but says so, as GitHub asks.
	ColumnKind string `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	FullName        string      `json:"fullName"`
	Version         string      `json:"version"`
	SemanticVersion string      `json:"semanticVersion"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	Name                 string        `json:"name"`
	ShortDescription     sarifText     `json:"shortDescription"`
	FullDescription      sarifText     `json:"fullDescription"`
	DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
	HelpURI              string        `json:"helpUri"`
	Help                 sarifText     `json:"help"`
	Properties           sarifRuleBag  `json:"properties"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifRuleBag struct {
	Section string   `json:"section"`
	Tags    []string `json:"tags"`
	// Precision is GitHub's: how often a result is right.
	Precision string `json:"precision"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	// BaselineState is "new" or "unchanged" when a baseline was applied.
	BaselineState string         `json:"baselineState,omitempty"`
	Properties    sarifResultBag `json:"properties"`
}

// sarifResultBag carries what SARIF has no field for: the page's real
// URL, the finding's id, the check, the section, the element's start tag
// and the escape route's input.
type sarifResultBag struct {
	URL     string `json:"url"`
	Finding string `json:"finding,omitempty"`
	Check   string `json:"check"`
	Section string `json:"section"`
	Element string `json:"element,omitempty"`
	HTML    string `json:"html,omitempty"`
	Route   string `json:"route,omitempty"`
	Frame   string `json:"frame,omitempty"`
}

type sarifLocation struct {
	Physical sarifPhysical     `json:"physicalLocation"`
	Logical  []sarifLogicalLoc `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	Artifact sarifArtifact `json:"artifactLocation"`
	Region   sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifLogicalLoc is the element: its selector in its own tree as name,
// and [Finding.Where] (frames and shadow hosts, then the selector) as the
// fully qualified name.
type sarifLogicalLoc struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// WriteSARIF is WriteSARIFWith without source roots.
func (r *Report) WriteSARIF(w io.Writer) error { return r.WriteSARIFWith(w, nil) }

// WriteSARIFWith writes the report as a SARIF 2.1.0 log with one run, as
// GitHub code scanning and other SARIF viewers read it. Each requirement
// cited or checked is a rule whose id is the requirement ID and whose
// helpUri is its entry in docs/requirements.md ([RequirementURL]). Each
// finding is a result at the level of its severity (info is "note"),
// located in the repository when opts map its page to a file there, or
// else at the page as a scheme-less "host/path" (code scanning takes no
// https URI), with the real URL in its properties; every result has a
// region (the element's line in the served HTML, else line 1), the
// element as a logical location, and partialFingerprints that are stable
// across runs. A page that could not be checked is a tool execution
// notification at level error, and makes executionSuccessful false.
func (r *Report) WriteSARIFWith(w io.Writer, opts *SARIFOptions) error {
	var o SARIFOptions
	if opts != nil {
		o = *opts
	}
	if o.Version == "" {
		o.Version = version.String()
	}
	var ids []string
	for _, p := range r.Pages {
		ids = append(ids, p.Checked...)
		for _, f := range p.Findings {
			ids = append(ids, f.Requirement)
		}
	}
	rules, index := sarifRules(ids)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:            "poppy-browser check",
			FullName:        "poppy-browser check (browser-control v1 conformance)",
			Version:         semanticVersion(o.Version), // numeric, as SARIF2005 asks
			SemanticVersion: semanticVersion(o.Version),
			InformationURI:  "https://github.com/poppy-browser/poppy-browser",
			Rules:           rules,
		}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: r.Failed == 0}},
		Results:     []sarifResult{},
		ColumnKind:  "unicodeCodePoints",
	}
	seen := map[string]int{} // fingerprints so far, for the occurrence count
	for _, p := range r.Pages {
		if p.Status == StatusFailed {
			run.Invocations[0].ExecutionSuccessful = false
			run.Invocations[0].Notifications = append(run.Invocations[0].Notifications, sarifNotification{
				Level: "error", Message: sarifText{Text: sentenceEnd("Could not check the page " + p.URL + ": " + p.Error)},
				Locations: []sarifLocation{{Physical: o.physical(p.URL, 0)}},
			})
			continue
		}
		for _, f := range p.Findings {
			doc := p.URL
			if f.Frame != "" && f.Line > 0 {
				doc = f.Frame // the line is in the frame's document
			}
			loc := sarifLocation{Physical: o.physical(doc, f.Line)}
			if f.Selector != "" {
				loc.Logical = []sarifLogicalLoc{{Name: f.Selector, FullyQualifiedName: f.Where(), Kind: "element"}}
			}
			key := fingerprint(p.URL, f)
			seen[key]++
			state := ""
			if r.baselined {
				state = map[bool]string{true: "unchanged", false: "new"}[f.Baseline]
			}
			run.Results = append(run.Results, sarifResult{
				BaselineState: state,
				RuleID:        f.Requirement,
				RuleIndex:     index[f.Requirement],
				Level:         sarifLevel(f.Severity),
				Message:       sarifText{Text: sentenceEnd(f.Message)},
				Locations:     []sarifLocation{loc},
				PartialFingerprints: map[string]string{
					"primaryLocationLineHash": fmt.Sprintf("%s:%d", key, seen[key]),
				},
				Properties: sarifResultBag{URL: p.URL, Finding: f.ID, Check: f.Check, Section: f.Section, Element: f.Element, HTML: f.HTML, Route: f.Route, Frame: f.Frame},
			})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
}

// physical locates a document (a page or frame URL) and a line of it.
func (o SARIFOptions) physical(doc string, line int) sarifPhysical {
	return sarifPhysical{Artifact: sarifArtifact{URI: o.artifactURI(doc)}, Region: sarifRegion{StartLine: max(line, 1)}}
}

// fingerprint identifies a finding across runs: its page (without query
// or fragment), id, requirement, check, element and route; not its
// message, which may say what a probe saw this time.
func fingerprint(pageURL string, f Finding) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{withoutQuery(pageURL), f.ID, f.Requirement, f.Check, f.Where(), f.Route}, "\x00")))
	return hex.EncodeToString(sum[:8])
}

// sentenceEnd ends a message with a full stop, as SARIF viewers expect.
func sentenceEnd(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

// semanticVersion is v as Semantic Versioning 2.0 reads it: a module
// version without its "v", else 0.0.0 with the build as pre-release and
// build metadata ("devel abc123+dirty ..." is "0.0.0-devel+abc123.dirty").
func semanticVersion(v string) string {
	if s, ok := strings.CutPrefix(v, "v"); ok && semverRE.MatchString(s) {
		return s
	}
	fields := strings.Fields(v)
	if len(fields) >= 2 && fields[0] == "devel" {
		meta := strings.ReplaceAll(fields[1], "+", ".")
		if semverIdent.MatchString(meta) {
			return "0.0.0-devel+" + meta
		}
	}
	return "0.0.0-dev"
}

// sarifRules is one rule per requirement among ids, in catalogue order,
// and each one's index among them.
func sarifRules(ids []string) ([]sarifRule, map[string]int) {
	rules, index := []sarifRule{}, map[string]int{}
	for _, req := range spec.Requirements() {
		if !slices.Contains(ids, req.ID) {
			continue
		}
		index[req.ID] = len(rules)
		url := RequirementURL(req.ID)
		rules = append(rules, sarifRule{
			ID:                   req.ID,
			Name:                 ruleName(req.ID),
			ShortDescription:     sarifText{Text: sentenceEnd(fmt.Sprintf("browser-control v1, section %s: %s", req.Section, strings.TrimSuffix(req.Text, ".")))},
			FullDescription:      sarifText{Text: sentenceEnd(req.Text)},
			DefaultConfiguration: sarifRuleConf{Level: "error"},
			HelpURI:              url,
			Help: sarifText{
				Text:     sentenceEnd(req.Text) + " See " + url + " for what it asks of a page and how to fix a finding.",
				Markdown: fmt.Sprintf("**%s** (browser-control v1, section %s): %s\n\n[What it asks of a page, and how to fix a finding](%s).", req.ID, req.Section, sentenceEnd(req.Text), url),
			},
			Properties: sarifRuleBag{Section: req.Section, Tags: []string{"browser-control", "section-" + req.Section}, Precision: "high"},
		})
	}
	return rules, index
}

// ruleName is a requirement ID as a rule's friendly name, in Pascal case:
// "BC-4-mark-all" is "MarkAll".
func ruleName(id string) string {
	parts := strings.Split(id, "-")
	var b strings.Builder
	for i, p := range parts {
		if i < 2 || p == "" { // "BC" and the section
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	if b.Len() == 0 {
		return strings.ReplaceAll(id, "-", "")
	}
	return b.String()
}
