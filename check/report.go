package check

import (
	"fmt"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Severity ranks a finding. An error means an agent that follows the
// extension would take the step itself, or would not honour the Company's
// marks at all; a warning is a SHOULD of section 4 that the page breaks, or
// a value that counts as something else; info is what the Company should
// know (its use of the controller, reminders).
type Severity string

// Severities, from most to least severe.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// rank orders severities: higher is more severe.
func (s Severity) rank() int {
	switch s {
	case Error:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// AtLeast reports whether s is at least as severe as min.
func (s Severity) AtLeast(min Severity) bool { return s.rank() >= min.rank() }

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch Severity(s) {
	case Error, Warning, Info:
		return Severity(s), nil
	}
	return "", fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Check names, one per kind of check, in [Finding.Check].
const (
	CheckDiscovery   = "discovery"
	CheckMarks       = "marks"
	CheckLateMarks   = "late-marks"
	CheckFill        = "fill"
	CheckSubmitPaths = "submit-paths"
	CheckController  = "controller"
)

// Finding is one thing the checker found on a page, citing the requirement
// of browser-control v1 it concerns.
type Finding struct {
	// ID names the kind of finding, stable across runs and versions (the
	// catalogue is [FindingIDs]); where check does what a Lighthouse
	// agentic audit does, it is that audit's id.
	ID          string   `json:"id,omitempty"`
	Severity    Severity `json:"severity"`
	Check       string   `json:"check"`             // one of the Check* names
	Requirement string   `json:"requirement"`       // a spec.Requirements ID
	Section     string   `json:"section"`           // spec section of the requirement
	Message     string   `json:"message"`           // one or two sentences
	Frame       string   `json:"frame,omitempty"`   // the URL of the element's frame
	Element     string   `json:"element,omitempty"` // the element concerned, as role "name"
	// Selector, ShadowHosts, FrameSelectors and HTML locate the element of
	// an element-level finding, as it was in the page's first load (see
	// [marks.Location]). Selector matches exactly that element in its tree:
	// its document, or for an element in a shadow tree that shadow root
	// (shadowRoot.querySelectorAll), whose hosts ShadowHosts lists from the
	// document down, each in its own tree. FrameSelectors are the selectors
	// of the frame elements (iframe) from the top document down to the
	// element's frame, each in its parent's document; absent for the top
	// document. HTML is the element's start tag, at most 200 characters.
	Selector       string   `json:"selector,omitempty"`
	ShadowHosts    []string `json:"shadow_hosts,omitempty"`
	FrameSelectors []string `json:"frame_selectors,omitempty"`
	HTML           string   `json:"html,omitempty"`
	// Line is the line of the element's start tag in its document as the
	// server sent it (frame's, or the page's); absent when it is not
	// there as sent (a script made it) or could be one of several alike.
	Line int `json:"line,omitempty"`
	// Box is the element on the agent's screenshot (the first view), in its
	// pixels; absent when the element showed no box.
	Box *Rect `json:"box,omitempty"`
	// at is the element in the first load, for the fields above.
	at *elementRef
	// Route is the input of an escape route: "click", "Enter" or "Space".
	Route string `json:"route,omitempty"`
	// UsableAtMS and MarkedAtMS time a late mark: when the control was first
	// shown usable and when its first covering mark appeared, in
	// milliseconds of the frame's document.
	UsableAtMS *float64 `json:"usable_at_ms,omitempty"`
	MarkedAtMS *float64 `json:"marked_at_ms,omitempty"`
	// Baseline: the finding is in the baseline the run was given
	// (--baseline), accepted: it fails nothing.
	Baseline bool `json:"baseline,omitempty"`
}

// Rect is a box on a screenshot, in its pixels.
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// elementRef is an element of the page's first load: the index of its
// frame among the frames read, and its local id there.
type elementRef struct{ frame, id int }

// Covered is a control a mark covers.
type Covered struct {
	Element string `json:"element"`
	// Outside: a control outside the form that names it with form=.
	Outside bool `json:"outside,omitempty"`
	// Form is the form= attribute of an Outside control: the form's id.
	Form string `json:"form,omitempty"`
}

// MarkRow is one element bearing data-poppy-user-step.
type MarkRow struct {
	Frame   string        `json:"frame"`
	Element string        `json:"element"`
	Value   string        `json:"value"` // the attribute as written
	Kind    spec.MarkKind `json:"kind"`  // what it counts as (section 4 value rules)
	Covers  []Covered     `json:"covers"`
	// MarkedAtMS is set for a late mark, added by a script after the
	// document was parsed: when it appeared, in milliseconds of the frame's
	// document (from its start).
	MarkedAtMS *float64 `json:"marked_at_ms,omitempty"`
}

// Box is a marked element's box on a screenshot, in its pixels.
type Box struct {
	X      float64       `json:"x"`
	Y      float64       `json:"y"`
	Width  float64       `json:"width"`
	Height float64       `json:"height"`
	Kind   spec.MarkKind `json:"kind"`
	Label  string        `json:"label"`
}

// View is the page as shown with one value of navigator.poppy.controller.
type View struct {
	Controller spec.Controller `json:"controller"`
	// Text is the visible text and controls, one a line, compared between
	// the two views.
	Text []string `json:"text"`
	// PNG is the screenshot; it goes into the HTML report, not the JSON.
	PNG    []byte  `json:"-"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Boxes  []Box   `json:"boxes"`
	// scrollX and scrollY are where the page was scrolled when the
	// screenshot was taken: a frame's viewport box plus them is a box on it.
	scrollX, scrollY float64
}

// ControllerUse is what the page does with navigator.poppy.controller.
type ControllerUse struct {
	Reads       bool     `json:"reads"`
	ReadFrames  []string `json:"read_frames,omitempty"`
	ChangesView bool     `json:"changes_view"`
	// Sent says whether the User's submission carried "user": nil when it
	// was not probed or no submission was seen.
	Sent      *bool  `json:"sent,omitempty"`
	SentField string `json:"sent_field,omitempty"`
	// ReadsOnSubmit: the page read the controller only when a form was
	// submitted (not while it loaded).
	ReadsOnSubmit bool `json:"reads_on_submit,omitempty"`
	// Submissions are the submission probes: each marked form with a
	// submit path, submitted on a fresh load as the User and as the agent
	// (the browser answered; nothing reached the Company).
	Submissions []Submission `json:"submissions,omitempty"`
}

// Submission is what a marked form's submission would send.
type Submission struct {
	Frame   string `json:"frame"`
	Form    string `json:"form"`
	Request string `json:"request,omitempty"` // "POST /path": method and path, no host or query
	// Field is the request field holding the controller; empty when the
	// request does not carry it.
	Field string `json:"field,omitempty"`
	// AsUser and AsAgent are the field's values when the User submits and
	// when the agent would (nil: no request seen that way).
	AsUser  *string `json:"as_user,omitempty"`
	AsAgent *string `json:"as_agent,omitempty"`
}

// Discovery is the outcome of discovery for the page's domain.
type Discovery struct {
	Domain   string   `json:"domain"`
	URL      string   `json:"url"`
	OK       bool     `json:"ok"`
	Error    string   `json:"error,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Page statuses.
const (
	StatusChecked = "checked"
	StatusFailed  = "failed" // the page could not be checked; Error says why
)

// PageReport is everything the checker found on one page.
type PageReport struct {
	URL       string     `json:"url"`
	FinalURL  string     `json:"final_url,omitempty"`
	Title     string     `json:"title,omitempty"`
	Status    string     `json:"status"`
	Error     string     `json:"error,omitempty"`
	Discovery *Discovery `json:"discovery,omitempty"`
	// Seconds is how long checking the page took (BENCHMARKS.md).
	Seconds float64   `json:"seconds"`
	Marks   []MarkRow `json:"marks"`
	// WebMCP lists the top document's WebMCP tools (webmcp.go).
	WebMCP []WebMCPTool `json:"webmcp,omitempty"`
	// WebMCPSupported says whether the checker's browser runs WebMCP on
	// the page: false means the WebMCP audits are not applicable (N/A),
	// not passed; absent when it could not be told.
	WebMCPSupported *bool     `json:"webmcp_supported,omitempty"`
	Findings        []Finding `json:"findings"`
	// Checked lists the requirement IDs the checker tested on this page;
	// Skipped those it did not (with --no-discovery, without --fill ...).
	Checked    []string       `json:"checked"`
	Skipped    []string       `json:"skipped"`
	Controller *ControllerUse `json:"controller,omitempty"`
	// Snapshot is the text the agent's browser_snapshot would return.
	Snapshot string `json:"snapshot,omitempty"`
	Views    []View `json:"views,omitempty"`
}

// Counts are findings by severity.
type Counts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
	// Baselined counts the findings above that the baseline accepts.
	Baselined int `json:"baselined,omitempty"`
}

func (c *Counts) add(s Severity) {
	switch s {
	case Error:
		c.Error++
	case Warning:
		c.Warning++
	case Info:
		c.Info++
	}
}

// Report is a whole run: the JSON document of --json.
type Report struct {
	Schema   string       `json:"schema"` // SchemaID
	Started  time.Time    `json:"started"`
	Duration float64      `json:"duration_seconds"`
	Options  ReportFlags  `json:"options"`
	Pages    []PageReport `json:"pages"`
	Counts   Counts       `json:"counts"`
	// Failed counts the pages that could not be checked.
	Failed int `json:"failed"`
	// baselined: a baseline was applied (SARIF's baselineState).
	baselined bool
}

// ReportFlags records the options a report was made with.
type ReportFlags struct {
	Discovery bool `json:"discovery"`
	Fill      bool `json:"fill"`
	Probe     bool `json:"probe"`
}

// SchemaID names the version of the JSON report; see doc.go.
const SchemaID = "poppy-browser/check-report/v1"

// tally recomputes Counts and Failed from the pages. A page that could
// not be checked counts as one error (its findings were dropped).
func (r *Report) tally() {
	r.Counts, r.Failed = Counts{}, 0
	for _, p := range r.Pages {
		if p.Status == StatusFailed {
			r.Failed++
			r.Counts.Error++
			continue
		}
		for _, f := range p.Findings {
			r.Counts.add(f.Severity)
			if f.Baseline {
				r.Counts.Baselined++
			}
		}
	}
}

// Exit codes of poppy-browser check.
const (
	ExitClean         = 0
	ExitFindings      = 1
	ExitCouldNotCheck = 2
)

// ExitCode is 2 when a page could not be checked, 1 when a finding not in
// the baseline is at least failOn, and 0 otherwise.
func (r *Report) ExitCode(failOn Severity) int {
	if r.Failed > 0 {
		return ExitCouldNotCheck
	}
	for _, p := range r.Pages {
		for _, f := range p.Findings {
			if f.Severity.AtLeast(failOn) && !f.Baseline {
				return ExitFindings
			}
		}
	}
	return ExitClean
}

// finding builds a finding of a kind of [FindingIDs] citing the
// requirement id, which must be in the catalogue (a wiring mistake panics
// in tests).
func finding(kind string, sev Severity, check, id, msg string) Finding {
	r, ok := spec.RequirementByID(id)
	if !ok {
		panic("check: unknown requirement " + id)
	}
	if _, ok := findingKinds[kind]; !ok {
		panic("check: unknown finding id " + kind)
	}
	return Finding{ID: kind, Severity: sev, Check: check, Requirement: r.ID, Section: r.Section, Message: msg}
}

// requirementsOf are the requirements each check tests.
func requirementsOf(check string) []string {
	switch check {
	case CheckDiscovery:
		return []string{"BC-3-poppy-json"}
	case CheckMarks:
		return []string{"BC-4-attribute", "BC-4-form-owner", "BC-4-values"}
	case CheckLateMarks:
		return []string{"BC-4-mark-all"}
	case CheckFill:
		return []string{"BC-4-fill-not-perform"}
	case CheckSubmitPaths:
		return []string{"BC-4-mark-all"}
	case CheckController:
		return []string{"BC-6-not-relied-on", "BC-8.2-not-a-guarantee"}
	}
	return nil
}
