package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Scripted is a deterministic model that needs no key. Each request it
// reads the page and its own history from the prompt, walks its
// [Script]'s intents in order, and answers the first unsatisfied one with
// a valid AgentOutput call on a ref of the current page. Intents name
// elements by role and accessible name, never by position. It reports
// success only when the page shows the script's evidence.
//
// A Scripted is safe for concurrent use: it keeps no state between
// requests but the User's messages it heard ([Scripted.Heard]).
type Scripted struct {
	s     Script
	mu    sync.Mutex
	heard []string
}

// Heard is every message of the User's (ModelRequest.UserSaid) the model
// was sent, in order.
func (m *Scripted) Heard() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.heard...)
}

// Script is what a [Scripted] model does.
type Script struct {
	// Intents are done in order; each is skipped once satisfied.
	Intents []Intent
	// Success is the evidence that the task is complete: text on the page.
	Success string
	// Summary is what done tells the User, from the page that shows
	// Success. Nil means Success itself.
	Summary func(p *SeenPage) string
	// Memory is what the model keeps in memory each step.
	Memory string
	// MaxWaits bounds the waits for an element that is not on the page
	// yet, per intent. 0 means 5.
	MaxWaits int
	// MaxUserWaits bounds the waits for Success once every intent is
	// satisfied (the User's step). 0 means 30.
	MaxUserWaits int
}

// Intent is one thing to do, against meaning: the element's role and
// (part of) its accessible name.
type Intent struct {
	Goal string // the next_goal; the model finds its own steps by it
	Role string // role of the element to act on: link, button, combobox, ...
	Name string // part of its accessible name, any case
	// Action is ActClick, ActSelect with Value, or ActWebMCPCall with
	// Tool and Args (the page's WebMCP tool, called once the element is
	// on the page).
	Action string
	Value  string
	Tool   string
	Args   map[string]any
	// Until is satisfied once the page has an element with this role and
	// name (zero: never by the page).
	Until Match
	// ForUser marks a step the Company leaves to the User: the intent is
	// satisfied once the loop reports it refused as user_step.
	ForUser bool
}

// Match names an element by role and part of its name or text; an empty
// Role matches any.
type Match struct{ Role, Name string }

// NewScripted returns a scripted model.
func NewScripted(s Script) *Scripted {
	if s.MaxWaits <= 0 {
		s.MaxWaits = 5
	}
	if s.MaxUserWaits <= 0 {
		s.MaxUserWaits = 30
	}
	return &Scripted{s: s}
}

// Complete reads the prompt and answers with one AgentOutput call.
func (m *Scripted) Complete(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.UserSaid != "" {
		m.mu.Lock()
		m.heard = append(m.heard, req.UserSaid)
		m.mu.Unlock()
	}
	page := ParsePage(pageSection(req.User))
	hist := parseHistory(unescapeText(section(req.User, "history")))
	out := m.decide(page, hist, strings.Contains(req.User, UserSaidNo))
	out.Memory = m.s.Memory
	if len(hist) > 0 {
		last := hist[len(hist)-1]
		out.Evaluation = fmt.Sprintf("The last step (%s) ended %s.", last.goal, last.result)
	}
	args, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("scripted model: %w", err)
	}
	return &ModelReply{ToolCalls: []ToolCall{{Name: ToolName, Arguments: string(args)}}}, nil
}

type agentOutput struct {
	Evaluation string                    `json:"evaluation_previous_goal,omitempty"`
	Memory     string                    `json:"memory,omitempty"`
	NextGoal   string                    `json:"next_goal,omitempty"`
	Action     map[string]map[string]any `json:"action"`
}

func act(goal, name string, in map[string]any) agentOutput {
	if in == nil {
		in = map[string]any{}
	}
	return agentOutput{NextGoal: goal, Action: map[string]map[string]any{name: in}}
}

func (m *Scripted) decide(p *SeenPage, hist []seenStep, userSaidNo bool) agentOutput {
	if m.s.Success != "" && p.Has(Match{Name: m.s.Success}) {
		text := m.s.Success
		if m.s.Summary != nil {
			text = m.s.Summary(p)
		}
		return act("tell the User the task is done", ActDone, map[string]any{"success": true, "text": text})
	}
	if userSaidNo {
		// The step left is the User's and they said no: nothing to wait for.
		return act("tell the User what is left", ActDone, map[string]any{"success": false,
			"text": "You did not take the step the website leaves to you, so the task is not done; it is still there for you."})
	}
	for _, in := range m.s.Intents {
		if m.satisfied(in, p, hist) {
			continue
		}
		e := p.Find(Match{Role: in.Role, Name: in.Name})
		if e == nil {
			if waits(hist, in.Goal) < m.s.MaxWaits {
				return act(in.Goal, ActWait, map[string]any{"seconds": 1})
			}
			return act(in.Goal, ActDone, map[string]any{"success": false,
				"text": fmt.Sprintf("I could not %s: the page has no %s named %q.", in.Goal, in.Role, in.Name)})
		}
		switch in.Action {
		case ActWebMCPCall:
			return act(in.Goal, ActWebMCPCall, map[string]any{"name": in.Tool, "arguments": in.Args})
		case ActSelect:
			return act(in.Goal, ActSelect, map[string]any{"ref": e.Ref, "values": []string{in.Value}})
		default:
			return act(in.Goal, ActClick, map[string]any{"ref": e.Ref})
		}
	}
	const goal = "wait for the User to finish their step"
	if waits(hist, goal) < m.s.MaxUserWaits {
		return act(goal, ActWait, map[string]any{"seconds": 10})
	}
	return act(goal, ActDone, map[string]any{"success": false,
		"text": fmt.Sprintf("The page never showed %q, so the task is not done.", m.s.Success)})
}

func (m *Scripted) satisfied(in Intent, p *SeenPage, hist []seenStep) bool {
	if in.ForUser {
		for _, h := range hist {
			if h.goal == in.Goal && strings.Contains(h.result, "(user_step)") {
				return true
			}
		}
		return false
	}
	if in.Until != (Match{}) && p.Has(in.Until) {
		return true
	}
	if in.Action == ActSelect {
		if e := p.Find(Match{Role: in.Role, Name: in.Name}); e != nil && strings.EqualFold(e.Value, in.Value) {
			return true
		}
	}
	return false
}

func waits(hist []seenStep, goal string) int {
	n := 0
	for _, h := range hist {
		if h.goal == goal && h.action == ActWait {
			n++
		}
	}
	return n
}

// section returns the lines between <name> and </name> in a prompt; the
// last such section wins, since page text comes last.
func section(s, name string) string {
	open, end := "\n<"+name+">\n", "\n</"+name+">"
	i := strings.LastIndex("\n"+s, open)
	if i < 0 {
		return ""
	}
	rest := ("\n" + s)[i+len(open):]
	if j := strings.LastIndex(rest, end); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// pageSection is the page text of a prompt, as the page gave it (the
// prompt escapes it, see escapeText).
func pageSection(prompt string) string { return unescapeText(section(prompt, "page")) }

// SeenPage is a page as a model reads it from the prompt.
type SeenPage struct{ Elements []SeenElement }

// SeenElement is one line of the page: an element with a ref, or content
// (Ref empty).
type SeenElement struct {
	Role, Name, Ref, Value string
}

var (
	lineRE = regexp.MustCompile(`^\s*- (\S+)(?: ("(?:[^"\\]|\\.)*"))?(?: \[(e\d+)\])?(.*)$`)
	// textRE is a line of text ("- text: ...", "- h1: ..."); inlineRE an
	// element inline in it ("[link "Help" e6]").
	textRE   = regexp.MustCompile(`^\s*- ([a-z0-9]+): (.*)$`)
	inlineRE = regexp.MustCompile(`\[([a-z]+) ("(?:[^"\\]|\\.)*") (e\d+)([^\]]*)\]`)
	valueRE  = regexp.MustCompile(`^ value=("(?:[^"\\]|\\.)*")`)
	// runRE is the line of a run of elements of one role ("- buttons:",
	// "- list of links:", "- checkboxes (user step: ...):"); itemRE an item under it ("-
	// "Button 12" e20", "- e21 disabled"), of the run's role.
	runRE  = regexp.MustCompile(`^(\s*)- (?:list of )?([a-z]+)(?: \(.*\))?(?: \(continued\))?:$`)
	itemRE = regexp.MustCompile(`^(\s*)- (?:("(?:[^"\\]|\\.)*") )?(e\d+)(.*)$`)
)

// singular is the role of the items of a run from its line's plural
// ("buttons", "checkboxes"; gate's plural).
func singular(s string) string {
	for _, end := range []string{"ses", "xes", "ches", "shes"} {
		if strings.HasSuffix(s, end) {
			return strings.TrimSuffix(s, "es")
		}
	}
	return strings.TrimSuffix(s, "s")
}

// ParsePage reads the page text of a prompt (the snapshot's lines).
func ParsePage(text string) *SeenPage {
	p := &SeenPage{}
	runRole, runIndent := "", -1 // the run whose items may follow
	for _, line := range strings.Split(text, "\n") {
		if it := itemRE.FindStringSubmatch(line); it != nil && runIndent >= 0 && len(it[1]) == runIndent+2 {
			e := SeenElement{Role: runRole, Ref: it[3]}
			if it[2] != "" {
				e.Name, _ = strconv.Unquote(it[2])
			}
			if v := valueRE.FindStringSubmatch(it[4]); v != nil {
				e.Value, _ = strconv.Unquote(v[1])
			}
			p.Elements = append(p.Elements, e)
			continue
		}
		runIndent = -1
		if h := runRE.FindStringSubmatch(line); h != nil && strings.HasSuffix(h[2], "s") {
			runRole, runIndent = singular(h[2]), len(h[1]) // and read as any other line
		}
		if t := textRE.FindStringSubmatch(line); t != nil {
			// A line of text: its plain words, then the elements in it.
			plain := inlineRE.ReplaceAllStringFunc(t[2], func(s string) string {
				name, _ := strconv.Unquote(inlineRE.FindStringSubmatch(s)[2])
				return name
			})
			p.Elements = append(p.Elements, SeenElement{Role: t[1], Name: plain})
			for _, in := range inlineRE.FindAllStringSubmatch(t[2], -1) {
				e := SeenElement{Role: in[1], Ref: in[3]}
				e.Name, _ = strconv.Unquote(in[2])
				if v := valueRE.FindStringSubmatch(in[4]); v != nil {
					e.Value, _ = strconv.Unquote(v[1])
				}
				p.Elements = append(p.Elements, e)
			}
			continue
		}
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		e := SeenElement{Role: m[1], Ref: m[3]}
		if m[2] != "" {
			e.Name, _ = strconv.Unquote(m[2])
		}
		if v := valueRE.FindStringSubmatch(m[4]); v != nil {
			e.Value, _ = strconv.Unquote(v[1])
		}
		p.Elements = append(p.Elements, e)
	}
	return p
}

func (m Match) matches(e SeenElement) bool {
	return (m.Role == "" || e.Role == m.Role) && strings.Contains(strings.ToLower(e.Name), strings.ToLower(m.Name))
}

// Has reports whether any line matches.
func (p *SeenPage) Has(m Match) bool {
	for _, e := range p.Elements {
		if m.matches(e) {
			return true
		}
	}
	return false
}

// Find returns the first element with a ref that matches, or nil.
func (p *SeenPage) Find(m Match) *SeenElement {
	for i, e := range p.Elements {
		if e.Ref != "" && m.matches(e) {
			return &p.Elements[i]
		}
	}
	return nil
}

// After returns the text of the line after the one named exactly label
// (a term and its definition), or "".
func (p *SeenPage) After(label string) string {
	for i, e := range p.Elements {
		if strings.EqualFold(e.Name, label) && e.Ref == "" && i+1 < len(p.Elements) {
			return p.Elements[i+1].Name
		}
	}
	return ""
}

// seenStep is one step of the history as the prompt shows it.
type seenStep struct {
	goal, action, result string
}

func parseHistory(text string) []seenStep {
	var out []seenStep
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "Step "):
			out = append(out, seenStep{})
		case len(out) == 0:
		case strings.HasPrefix(line, "  next_goal: "):
			out[len(out)-1].goal = strings.TrimPrefix(line, "  next_goal: ")
		case strings.HasPrefix(line, "  action: "):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "  action: "), " ")
			out[len(out)-1].action = name
		case strings.HasPrefix(line, "  result: "):
			out[len(out)-1].result = strings.TrimPrefix(line, "  result: ")
		}
	}
	return out
}
