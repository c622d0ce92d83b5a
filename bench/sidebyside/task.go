package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// The check-in task (-task checkin) is the walkthrough of section 7 of the
// browser-control spec on the demo airline, as the scripted agent does it:
// open the booking, follow its Check in link, choose the aisle seat, press
// Check in. poppy-browser refuses that press (the form is marked
// submission), so its model offers the User control, waits while the User
// (testsite.AutoUser, over the live view) checks in and hands back, and
// reads the boarding pass. Playwright MCP presses Check in itself.
//
// Each step is one tool call; a model that does not find what it needs in
// a result takes a snapshot, as it would. "Bytes the model reads" is each
// result's text content (its JSON when it has none).

// The steps, in the words of the report; each server does those it has.
const (
	stepBooking     = "open the booking"
	stepReadBooking = "read the booking"
	stepLink        = "click the link Check in"
	stepReadForm    = "read the check-in page"
	stepSeat        = "select the aisle seat"
	stepCheckIn     = "click the button Check in (the form is marked submission)"
	stepOffer       = "offer the User control"
	stepWait        = "wait for the User's turn to end"
	stepRead        = "read the boarding pass"
)

var steps = []string{stepBooking, stepReadBooking, stepLink, stepReadForm, stepSeat, stepCheckIn, stepOffer, stepWait, stepRead}

// boardingPass is the text that shows the task done.
const boardingPass = "Your boarding pass is ready"

// task is one run of the check-in task on one server.
type task struct {
	cs      *mcp.ClientSession
	site    *testsite.Site
	liveURL string // the live view's address with its token (poppy-browser)
	// prove answers the live view's passkey ceremony (poppy-browser).
	prove testsite.Prover
	calls []taskCall
}

// taskCall is one tool call of a run.
type taskCall struct {
	step, tool string
	bytes      int
	took       time.Duration
	outcome    string // "" when done
	user       bool   // the call waited for the User: its time is theirs
}

// call calls a tool for step and records what the model reads and how long
// it took. A tool error is an error; a denial is an outcome. A snapshot
// that failed because the page changed while it was read (a page still
// loading after the User's turn, on a loaded machine) is taken again, as
// its message says and a model would: both calls count.
func (t *task) call(ctx context.Context, step, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	for try := 1; ; try++ {
		res, err := t.callOnce(ctx, step, tool, args)
		var again *retryable
		if !errors.As(err, &again) || try == 3 {
			return res, err
		}
	}
}

// retryable is a snapshot's failure with reason navigation.
type retryable struct{ error }

func (t *task) callOnce(ctx context.Context, step, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	start := time.Now()
	res, err := t.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	took := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", step, tool, err)
	}
	if res.IsError && tool == "browser_snapshot" && structured(res)["reason"] == string(spec.ReasonNavigation) {
		t.calls = append(t.calls, taskCall{step: step, tool: tool, bytes: modelBytes(res), took: took, outcome: "failed (navigation)"})
		return nil, &retryable{fmt.Errorf("%s: %s failed: %s", step, tool, firstText(res))}
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: %s failed: %s", step, tool, firstText(res))
	}
	c := taskCall{step: step, tool: tool, bytes: modelBytes(res), took: took, user: step == stepWait}
	if o, _ := structured(res)["outcome"].(string); o != "" && o != string(spec.OutcomeDone) {
		c.outcome = fmt.Sprintf("%s (%v)", o, structured(res)["reason"])
	}
	t.calls = append(t.calls, c)
	if dir := os.Getenv("SIDEBYSIDE_DUMP"); dir != "" {
		os.WriteFile(fmt.Sprintf("%s/task %s %d %s.txt", dir, tool, len(t.calls), strings.ReplaceAll(step, "/", "_")), []byte(firstText(res)), 0o644)
	}
	return res, nil
}

// modelBytes is what the model reads of a result: its text content, or the
// structured content when there is none.
func modelBytes(res *mcp.CallToolResult) int {
	if t := firstText(res); t != "" {
		return len(t)
	}
	b, _ := json.Marshal(res.StructuredContent)
	return len(b)
}

// checkIn is the task through s's tools, finding refs in each result as
// the scripted model does (by role and name). A result without what the
// model needs next is followed by a snapshot, as a model would take one.
func checkIn(ctx context.Context, s server, t *task) error {
	res, err := t.call(ctx, stepBooking, "browser_navigate", map[string]any{"url": testsite.BookingURL()})
	if err != nil {
		return err
	}
	if res, err = t.lookFor(ctx, s, res, stepReadBooking, "link", "Check in"); err != nil {
		return err
	}
	res, err = t.call(ctx, stepLink, "browser_click", s.clickArgs(s.refOf(res, "link", "Check in"), "Check in link"))
	if err != nil {
		return err
	}
	form, err := t.lookFor(ctx, s, res, stepReadForm, "combobox", "Seat")
	if err != nil {
		return err
	}
	args := s.clickArgs(s.refOf(form, "combobox", "Seat"), "Seat")
	args["values"] = []string{"aisle"}
	if _, err := t.call(ctx, stepSeat, s.selectTool, args); err != nil {
		return err
	}
	res, err = t.call(ctx, stepCheckIn, "browser_click", s.clickArgs(s.refOf(form, "button", "Check in"), "Check in button"))
	if err != nil {
		return err
	}
	var denial gate.Result
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &denial)
	}
	if denial.Reason == spec.ReasonUserStep && denial.Mark != nil {
		if err := t.handOver(ctx, denial.Mark.Touches); err != nil {
			return err
		}
		res = nil // the page changed in the User's hands: read it
	}
	if res == nil || !strings.Contains(firstText(res), boardingPass) {
		if res, err = t.call(ctx, stepRead, "browser_snapshot", map[string]any{}); err != nil {
			return err
		}
	}
	if !strings.Contains(firstText(res), boardingPass) {
		return fmt.Errorf("%s: the page does not say %q", stepRead, boardingPass)
	}
	return nil
}

// lookFor returns res when it has the element the model needs next, else
// a snapshot (for step) that has it.
func (t *task) lookFor(ctx context.Context, s server, res *mcp.CallToolResult, step, role, name string) (*mcp.CallToolResult, error) {
	if s.refOf(res, role, name) != "" {
		return res, nil
	}
	res, err := t.call(ctx, step, "browser_snapshot", map[string]any{})
	if err != nil {
		return nil, err
	}
	if s.refOf(res, role, name) == "" {
		return nil, fmt.Errorf("%s: no %s %q on the page", step, role, name)
	}
	return res, nil
}

// handOver offers the User the step the gate refused (touches is its
// ref), and waits, as the tool says, while the User (testsite.AutoUser,
// over the live view) checks in and hands back.
func (t *task) handOver(ctx context.Context, touches string) error {
	if _, err := t.call(ctx, stepOffer, spec.ToolRequestUserControl, map[string]any{
		"reason": "The airline asks you to submit the check-in form yourself: take control, complete it, then hand back.",
		"ref":    touches,
	}); err != nil {
		return err
	}
	if t.liveURL == "" {
		return errors.New("the User's turn: no live view address")
	}
	user, err := testsite.DialAutoUser(ctx, t.liveURL, t.site, func(string, ...any) {})
	if err != nil {
		return err
	}
	defer user.Close()
	if t.prove != nil {
		user.ProveWith(t.prove, "the User's paired passkey (Chromium's virtual authenticator)")
	}
	userCtx, stopUser := context.WithCancel(ctx)
	defer stopUser()
	userDone := user.Start(userCtx, func(error) {})
	res, err := t.call(ctx, stepWait, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 60})
	if err != nil {
		return err
	}
	if to, _ := structured(res)["timed_out"].(bool); to {
		return errors.New("the User's turn: not over within 60 s")
	}
	if err := userDone(); err != nil {
		return fmt.Errorf("the User's turn: %w", err)
	}
	return nil
}

// taskResult is what the runs of the task on one server measured.
type taskResult struct {
	runs     [][]taskCall
	recorded []string // what the airline recorded, per run
}

// runCheckIn runs the check-in task runs times on each server, alternating
// (the first server changes each run), and reports the medians.
func runCheckIn(ctx context.Context, site *testsite.Site, servers []server, sessions []*mcp.ClientSession, runs int, dev *userDevice, out io.Writer) error {
	results := make([]taskResult, len(servers))
	for run := range runs {
		for k := range servers {
			i := (run + k) % len(servers)
			fmt.Fprintf(os.Stderr, "check-in task, run %d, %s\n", run+1, servers[i].name)
			site.Reset() // the airline's records are this run's alone
			t := &task{cs: sessions[i], site: site}
			if f := servers[i].liveURLFile; f != "" {
				b, err := os.ReadFile(f)
				if err != nil {
					return fmt.Errorf("reading the live view's address: %w", err)
				}
				t.liveURL = strings.TrimSpace(string(b))
				t.prove = dev.proveOn(t.liveURL)
			}
			runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			err := checkIn(runCtx, servers[i], t)
			cancel()
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", servers[i].name, run+1, err)
			}
			results[i].runs = append(results[i].runs, t.calls)
			results[i].recorded = append(results[i].recorded, recorded(site.CheckIns()))
		}
	}
	reportSteps(out, servers, results, steps, "what the airline recorded")
	return nil
}

// recorded says what the airline recorded of a run: the check-in, who the
// page said pressed Check in, and whether the User's passport field was
// filled.
func recorded(cs []testsite.CheckIn) string {
	if len(cs) != 1 {
		return fmt.Sprintf("%d check-ins", len(cs))
	}
	c := cs[0]
	passport := "no passport number"
	if c.PassportGiven {
		passport = "passport number given"
	}
	return fmt.Sprintf("seat %s, controller %q, %s", c.Seat, c.Controller, passport)
}

// reportSteps reports the runs of a task: each step's call on each
// server (median bytes and time), the calls, bytes and time of the median
// run, and what the website recorded.
func reportSteps(out io.Writer, servers []server, rs []taskResult, steps []string, recordedLabel string) {
	fmt.Fprintf(out, "| step | %s |\n| --- |%s\n", names(servers), strings.Repeat(" --- |", len(servers)))
	row := func(label string, f func(r taskResult) string) {
		cells := make([]string, len(rs))
		for i, r := range rs {
			cells[i] = f(r)
		}
		fmt.Fprintf(out, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	for _, step := range steps {
		if !slices.ContainsFunc(rs, func(r taskResult) bool { return len(callsOf(r, step)) > 0 }) {
			continue
		}
		row(step, func(r taskResult) string {
			cs := callsOf(r, step)
			if len(cs) == 0 {
				return "-"
			}
			s := fmt.Sprintf("%s: %d B, %s", cs[0].tool, medianInt(cs, func(c taskCall) int { return c.bytes }), ms(medianOf(cs, func(c taskCall) time.Duration { return c.took })))
			if cs[0].user {
				s += " (the User's turn)"
			}
			if cs[0].outcome != "" {
				s += ", " + cs[0].outcome
			}
			return s
		})
	}
	row("tool calls (median run)", func(r taskResult) string { return fmt.Sprint(medianRun(r, func(taskCall) int { return 1 })) })
	row("total bytes the model reads (median run)", func(r taskResult) string {
		return fmt.Sprint(medianRun(r, func(c taskCall) int { return c.bytes }))
	})
	row("total time of the model's calls, the User's turn left out (median run)", func(r taskResult) string {
		return ms(time.Duration(medianRun(r, func(c taskCall) int {
			if c.user {
				return 0
			}
			return int(c.took)
		})))
	})
	row(recordedLabel, func(r taskResult) string {
		return strings.Join(slices.Compact(slices.Sorted(slices.Values(r.recorded))), "; ")
	})
}

// callsOf is the call of step in each run that made one.
func callsOf(r taskResult, step string) []taskCall {
	var out []taskCall
	for _, run := range r.runs {
		for _, c := range run {
			if c.step == step {
				out = append(out, c)
			}
		}
	}
	return out
}

func medianInt(cs []taskCall, f func(taskCall) int) int {
	v := make([]int, len(cs))
	for i, c := range cs {
		v[i] = f(c)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func medianOf(cs []taskCall, f func(taskCall) time.Duration) time.Duration {
	v := make([]time.Duration, len(cs))
	for i, c := range cs {
		v[i] = f(c)
	}
	return median(v)
}

// medianRun is the median over runs of the sum of f over a run's calls.
func medianRun(r taskResult, f func(taskCall) int) int {
	sums := make([]int, len(r.runs))
	for i, run := range r.runs {
		for _, c := range run {
			sums[i] += f(c)
		}
	}
	slices.Sort(sums)
	return sums[len(sums)/2]
}
