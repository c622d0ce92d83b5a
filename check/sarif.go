package check

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"

	"github.com/poppy-browser/poppy-browser/spec"
)

// SARIF 2.1.0 (OASIS), the subset the report needs. No Go library for the
// format is kept by the project, so these small typed structs mirror the
// schema's objects; the test validates their output against the schema's
// required fields and enums.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifText    `json:"shortDescription"`
	HelpURI          string       `json:"helpUri"`
	Help             sarifText    `json:"help"`
	Properties       sarifRuleBag `json:"properties"`
}

type sarifRuleBag struct {
	Section string   `json:"section"`
	Tags    []string `json:"tags"`
}

type sarifText struct {
	Text string `json:"text"`
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
	Properties          sarifResultBag    `json:"properties"`
}

// sarifResultBag carries what SARIF has no field for: the check, the
// section, the element's start tag and the escape route's input.
type sarifResultBag struct {
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
}

type sarifArtifact struct {
	URI string `json:"uri"`
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

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run, as code
// scanning and other SARIF viewers read it. Each requirement cited or
// checked is a rule whose id is the requirement ID and whose helpUri is
// its entry in docs/requirements.md ([RequirementURL]). Each finding is a
// result at the level of its severity (info is "note"), located at the
// page's URL (the artifact) and, for an element, at the element: its
// selector as a logical location whose fully qualified name is
// [Finding.Where]. A page that could not be checked is a tool execution
// notification at level error, and makes executionSuccessful false.
func (r *Report) WriteSARIF(w io.Writer) error {
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
			Name:           "poppy-browser check",
			InformationURI: "https://github.com/poppy-browser/poppy-browser",
			Rules:          rules,
		}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: r.Failed == 0}},
		Results:     []sarifResult{},
	}
	for _, p := range r.Pages {
		page := sarifPhysical{Artifact: sarifArtifact{URI: p.URL}}
		if p.Status == StatusFailed {
			run.Invocations[0].ExecutionSuccessful = false
			run.Invocations[0].Notifications = append(run.Invocations[0].Notifications, sarifNotification{
				Level: "error", Message: sarifText{Text: "could not check the page: " + p.Error},
				Locations: []sarifLocation{{Physical: page}},
			})
			continue
		}
		for _, f := range p.Findings {
			loc := sarifLocation{Physical: page}
			if f.Selector != "" {
				loc.Logical = []sarifLogicalLoc{{Name: f.Selector, FullyQualifiedName: f.Where(), Kind: "element"}}
			}
			sum := sha256.Sum256([]byte(p.URL + "\x00" + f.Requirement + "\x00" + f.Check + "\x00" + f.Where() + "\x00" + f.Route + "\x00" + f.Message))
			run.Results = append(run.Results, sarifResult{
				RuleID:              f.Requirement,
				RuleIndex:           index[f.Requirement],
				Level:               sarifLevel(f.Severity),
				Message:             sarifText{Text: f.Message},
				Locations:           []sarifLocation{loc},
				PartialFingerprints: map[string]string{"poppyFinding/v1": hex.EncodeToString(sum[:16])},
				Properties:          sarifResultBag{Check: f.Check, Section: f.Section, Element: f.Element, HTML: f.HTML, Route: f.Route, Frame: f.Frame},
			})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
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
		rules = append(rules, sarifRule{
			ID:               req.ID,
			ShortDescription: sarifText{Text: req.Text},
			HelpURI:          RequirementURL(req.ID),
			Help:             sarifText{Text: req.Text + " See " + RequirementURL(req.ID)},
			Properties:       sarifRuleBag{Section: req.Section, Tags: []string{"browser-control", "section-" + req.Section}},
		})
	}
	return rules, index
}
