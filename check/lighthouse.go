package check

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/version"
)

// The Lighthouse-shaped result (--lighthouse): one Lighthouse result
// (LHR) per page, with one category, browser-control, whose audits are
// the kinds of finding ([FindingIDs]), so Lighthouse CI assertions
// ("categories:browser-control", "submit-route") and dashboards read it.
// One page gives one LHR; several give a Lighthouse flow result (steps,
// each with its LHR).
const (
	LighthouseCategory = "browser-control"
	// lighthouseFormat is the version of Lighthouse whose result format
	// this follows (lighthouseVersion); the tool is named in environment.
	lighthouseFormat = "13.5.0"
)

type lhr struct {
	LighthouseVersion string                    `json:"lighthouseVersion"`
	RequestedURL      string                    `json:"requestedUrl"`
	MainDocumentURL   string                    `json:"mainDocumentUrl"`
	FinalURL          string                    `json:"finalUrl"`
	FinalDisplayedURL string                    `json:"finalDisplayedUrl"`
	FetchTime         string                    `json:"fetchTime"`
	GatherMode        string                    `json:"gatherMode"`
	RuntimeError      *lhrError                 `json:"runtimeError,omitempty"`
	RunWarnings       []string                  `json:"runWarnings"`
	UserAgent         string                    `json:"userAgent"`
	Environment       lhrEnvironment            `json:"environment"`
	Audits            map[string]lhrAudit       `json:"audits"`
	ConfigSettings    lhrSettings               `json:"configSettings"`
	Categories        map[string]lhrCategory    `json:"categories"`
	CategoryGroups    map[string]lhrGroup       `json:"categoryGroups"`
	Timing            lhrTiming                 `json:"timing"`
	I18n              map[string]map[string]any `json:"i18n"`
}

type lhrError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type lhrEnvironment struct {
	NetworkUserAgent string            `json:"networkUserAgent"`
	HostUserAgent    string            `json:"hostUserAgent"`
	BenchmarkIndex   int               `json:"benchmarkIndex"`
	Credits          map[string]string `json:"credits"`
}

type lhrSettings struct {
	OnlyCategories []string `json:"onlyCategories"`
	FormFactor     string   `json:"formFactor"`
	Locale         string   `json:"locale"`
}

type lhrAudit struct {
	ID               string      `json:"id"`
	Title            string      `json:"title"`
	Description      string      `json:"description"`
	Score            *float64    `json:"score"`
	ScoreDisplayMode string      `json:"scoreDisplayMode"`
	DisplayValue     string      `json:"displayValue,omitempty"`
	Details          *lhrDetails `json:"details,omitempty"`
}

type lhrDetails struct {
	Type     string       `json:"type"`
	Headings []lhrHeading `json:"headings"`
	Items    []lhrItem    `json:"items"`
}

type lhrHeading struct {
	Key       string `json:"key"`
	ValueType string `json:"valueType"`
	Label     string `json:"label"`
}

type lhrItem struct {
	Node     *lhrNode `json:"node,omitempty"`
	Severity string   `json:"severity"`
	Message  string   `json:"message"`
	Source   string   `json:"source,omitempty"` // frame URL and line
}

type lhrNode struct {
	Type      string `json:"type"`
	Selector  string `json:"selector"`
	Snippet   string `json:"snippet,omitempty"`
	NodeLabel string `json:"nodeLabel,omitempty"`
	Path      string `json:"path"`
}

type lhrCategory struct {
	ID          string        `json:"id"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Score       *float64      `json:"score"`
	AuditRefs   []lhrAuditRef `json:"auditRefs"`
}

type lhrAuditRef struct {
	ID     string  `json:"id"`
	Weight float64 `json:"weight"`
	Group  string  `json:"group,omitempty"`
}

type lhrGroup struct {
	Title       string `json:"title"`
	Description string `json:"description"`
}

type lhrTiming struct {
	Total float64 `json:"total"`
}

type lhrFlow struct {
	Name  string    `json:"name"`
	Steps []lhrStep `json:"steps"`
}

type lhrStep struct {
	LHR  lhr    `json:"lhr"`
	Name string `json:"name"`
}

// WriteLighthouse writes the Lighthouse-shaped result: for each page an
// audit per kind of finding, scored 0 when one of its findings on the
// page is an error, 0.5 when the worst is a warning, informative when
// all are info, 1 when the check ran and found nothing, and not
// applicable when it did not run (without --fill, discovery or a browser
// with WebMCP). A page that could not be checked has a runtimeError and
// no score.
func (r *Report) WriteLighthouse(w io.Writer) error {
	var out any
	if len(r.Pages) == 1 {
		out = r.lighthouse(r.Pages[0])
	} else {
		flow := lhrFlow{Name: "poppy-browser check", Steps: []lhrStep{}}
		for _, p := range r.Pages {
			flow.Steps = append(flow.Steps, lhrStep{LHR: r.lighthouse(p), Name: p.URL})
		}
		out = flow
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// lighthouse is one page's LHR.
func (r *Report) lighthouse(p PageReport) lhr {
	final := p.FinalURL
	if final == "" {
		final = p.URL
	}
	out := lhr{
		LighthouseVersion: lighthouseFormat, RequestedURL: p.URL, MainDocumentURL: final, FinalURL: final, FinalDisplayedURL: final,
		FetchTime: r.Started.UTC().Format(time.RFC3339Nano), GatherMode: "navigation", RunWarnings: []string{},
		Environment:    lhrEnvironment{Credits: map[string]string{"poppy-browser": version.String()}},
		Audits:         map[string]lhrAudit{},
		ConfigSettings: lhrSettings{OnlyCategories: []string{LighthouseCategory}, FormFactor: "desktop", Locale: "en-US"},
		CategoryGroups: map[string]lhrGroup{},
		Timing:         lhrTiming{Total: p.Seconds * 1000},
		I18n:           map[string]map[string]any{"rendererFormattedStrings": {}},
	}
	cat := lhrCategory{ID: LighthouseCategory, Title: "Browser control",
		Description: "Whether an agent that follows browser-control v1 leaves the User's steps to the User on this page, and whether the page's WebMCP tools are well defined (poppy-browser check).",
		AuditRefs:   []lhrAuditRef{}}
	if p.Status == StatusFailed {
		out.RuntimeError = &lhrError{Code: "PAGE_NOT_CHECKED", Message: p.Error}
		out.RunWarnings = append(out.RunWarnings, "The page could not be checked: "+p.Error)
		out.Categories = map[string]lhrCategory{LighthouseCategory: cat}
		return out
	}
	byKind := map[string][]Finding{}
	for _, f := range p.Findings {
		byKind[f.ID] = append(byKind[f.ID], f)
	}
	var sum, weights float64
	for _, k := range kindList {
		a := lhrAudit{ID: k.ID, Title: k.Title, Description: k.Description + " [Learn more](" + RequirementsDoc + ")."}
		fs := byKind[k.ID]
		worst := Severity("")
		for _, f := range fs {
			if f.Severity.rank() > worst.rank() {
				worst = f.Severity
			}
		}
		weight := 0.0
		switch {
		case len(fs) > 0 && worst == Info:
			a.ScoreDisplayMode = "informative"
		case len(fs) > 0:
			a.ScoreDisplayMode, a.Score, weight = "binary", ptrTo(map[Severity]float64{Error: 0, Warning: 0.5}[worst]), 1
		case !r.ran(p, k):
			a.ScoreDisplayMode = "notApplicable"
		case infoOnly[k.ID]:
			a.ScoreDisplayMode = "informative"
		default:
			a.ScoreDisplayMode, a.Score, weight = "binary", ptrTo(1.0), 1
		}
		if len(fs) > 0 {
			a.DisplayValue = fmt.Sprintf("%d found", len(fs))
			a.Details = &lhrDetails{Type: "table", Headings: []lhrHeading{
				{Key: "node", ValueType: "node", Label: "Element"}, {Key: "severity", ValueType: "text", Label: "Severity"},
				{Key: "message", ValueType: "text", Label: "Finding"}, {Key: "source", ValueType: "text", Label: "Source"},
			}, Items: []lhrItem{}}
			for _, f := range fs {
				it := lhrItem{Severity: string(f.Severity), Message: f.Message}
				if f.Selector != "" {
					it.Node = &lhrNode{Type: "node", Selector: f.Where(), Snippet: f.HTML, NodeLabel: f.Element, Path: ""}
				}
				if f.Line > 0 {
					it.Source = fmt.Sprintf("%s:%d", withoutQuery(f.Frame), f.Line)
				}
				a.Details.Items = append(a.Details.Items, it)
			}
		}
		out.Audits[k.ID] = a
		cat.AuditRefs = append(cat.AuditRefs, lhrAuditRef{ID: k.ID, Weight: weight})
		if a.Score != nil {
			sum += *a.Score * weight
			weights += weight
		}
	}
	if weights > 0 {
		cat.Score = ptrTo(float64(int(sum/weights*100+0.5)) / 100)
	}
	out.Categories = map[string]lhrCategory{LighthouseCategory: cat}
	return out
}

// infoOnly are the kinds whose findings are only ever info: with none,
// their audit is informative rather than a pass.
var infoOnly = map[string]bool{
	"discovery-skipped": true, "mark-suggested": true, "probe-unsettled": true, "controller-read": true,
	"controller-read-on-submit": true, "controller-changes-view": true, "controller-in-request": true,
}

// ran says whether the check making kind k ran on the page.
func (r *Report) ran(p PageReport, k FindingKind) bool {
	switch k.Check {
	case CheckDiscovery:
		return p.Discovery != nil
	case CheckFill:
		return r.Options.Fill
	case CheckWebMCP:
		return p.WebMCPSupported == nil || *p.WebMCPSupported
	}
	if k.ID == "submit-route-probed" || k.ID == "submit-route-script" || k.ID == "webmcp-tool-takes-step" {
		return r.Options.Probe
	}
	return true
}

func ptrTo[T any](v T) *T { return &v }
