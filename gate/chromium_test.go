package gate

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// shared is the package's one browser and test site, from TestMain.
type shared struct {
	b    *browser.Browser
	site *testSite
}

var suite *shared // set once by TestMain, read-only afterwards

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	flag.Parse()
	if _, err := browser.FindChromium(); err != nil {
		if testing.Short() {
			return m.Run()
		}
		fmt.Fprintln(os.Stderr, "agent tests:", err)
		return 1
	}
	site, err := startSite()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent tests:", err)
		return 1
	}
	defer site.close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, &browser.Options{Args: []string{"--host-resolver-rules=MAP *.test " + site.addr}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent tests:", err)
		return 1
	}
	defer b.Close()
	if err := b.SetScript(ctx, "marks", marks.Script()); err != nil {
		fmt.Fprintln(os.Stderr, "agent tests:", err)
		return 1
	}
	suite = &shared{b: b, site: site}
	return m.Run()
}

// testSite serves a small airline on every *.test host and records the
// requests that reach it.
type testSite struct {
	addr string
	srv  *http.Server
	mu   sync.Mutex
	seen []string
	// slow hears of each request for /slow: the handler holds its
	// response (at most slowHold) and closes gone when the browser drops
	// the request.
	slow chan slowRequest
}

// slowRequest is one request for /slow in progress.
type slowRequest struct{ gone <-chan struct{} }

// slowHold bounds how long /slow holds its response.
const slowHold = 30 * time.Second

const checkInPage = `<!doctype html><title>Check in</title>
<h1>Check in for your flight</h1>
<form action="/checked-in" method="post" data-poppy-user-step="submission">
  <label>Seat <select name="seat"><option value="14C">14C</option><option value="14D">14D (aisle)</option></select></label>
  <label>Passport number <input name="passport" data-poppy-user-step="interaction"></label>
  <button type="submit">Check in</button>
</form>
<p><a href="/help">Help</a></p>`

func startSite() (*testSite, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting test site: %w", err)
	}
	s := &testSite{addr: l.Addr().String(), slow: make(chan slowRequest, 4)}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/slow":
			gone := make(chan struct{})
			s.slow <- slowRequest{gone: gone}
			select {
			case <-r.Context().Done():
				close(gone)
				return
			case <-time.After(slowHold):
			}
			fmt.Fprint(w, `<!doctype html><title>Slow</title><p>finally loaded</p>`)
		case "/check-in":
			fmt.Fprint(w, checkInPage)
		case "/readme-marks":
			fmt.Fprint(w, `<!doctype html><title>Marks</title>`+readmeMarksExample()) // readme_marks_test.go
		case "/extras":
			fmt.Fprint(w, extrasPage) // changes_chromium_test.go
		case "/basket":
			fmt.Fprint(w, basketPage) // changes_chromium_test.go
		case "/hostile":
			fmt.Fprint(w, hostilePage) // snapshot_hostile_test.go
		case "/files":
			fmt.Fprint(w, `<!doctype html><title>Files</title><a href="/ticket.pdf">Download the ticket</a><label>Passport scan <input type="file"></label>`)
		case "/ticket.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Disposition", `attachment; filename="ticket.pdf"`)
			fmt.Fprint(w, "%PDF-1.4")
		case "/tabs":
			fmt.Fprint(w, `<!doctype html><title>Tabs</title><a href="/help" target="_blank">Help in a new tab</a>`)
		case "/alert":
			fmt.Fprint(w, `<!doctype html><title>Alert</title><button onclick="alert('Your session ends soon')">Warn me</button>`)
		case "/alert-on-load":
			fmt.Fprint(w, `<!doctype html><title>Notice</title><p>Fares changed</p><script>alert('Prices have changed')</script>`)
		case "/confirm":
			fmt.Fprint(w, `<!doctype html><title>Confirm</title><button onclick="document.title = 'answer:' + confirm('Cancel the booking?')">Cancel booking</button>`)
		case "/busy":
			// Its script holds the main thread for 20 s, after the load,
			// and says so first with a beacon (it leaves while the thread
			// is held).
			fmt.Fprint(w, `<!doctype html><title>Busy</title><p>busy</p><script>onload = () => setTimeout(() => { navigator.sendBeacon("/busy-started"); const end = Date.now() + 20000; while (Date.now() < end) {} }, 50)</script>`)
		case "/help":
			fmt.Fprint(w, `<!doctype html><title>Help</title><h1>Help</h1><a href="/check-in">Back to check-in</a>`)
		default:
			fmt.Fprint(w, `<!doctype html><title>Done</title><p>checked in</p>`)
		}
	})}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

func (s *testSite) close() { _ = s.srv.Close() }

// requested reports whether the site ever answered req ("POST /path"), in
// any test of this run (-count too).
func (s *testSite) requested(req string) bool { return s.requests(req) > 0 }

// requests counts the times the site answered req: a test compares counts
// from before and after its step, so an earlier test's (or run's) request
// does not stand for its own.
func (s *testSite) requests(req string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.seen {
		if r == req {
			n++
		}
	}
	return n
}

// chromiumGate opens a fresh page and a gate over it.
func chromiumGate(t *testing.T) (*Gate, *control.Control, context.Context) {
	t.Helper()
	if suite == nil {
		t.Skip("no Chromium (-short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	p, err := suite.b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctl := control.New(nil)
	g := New(&Options{Page: func() *browser.Page { return p }, Control: ctl,
		CompanyHost: func(h string) bool { return h == "airline.test" }})
	return g, ctl, ctx
}

// refByName finds an element of a snapshot by role and name.
func refByName(t *testing.T, r Result, role, name string) ElementInfo {
	t.Helper()
	for _, e := range r.Elements {
		if e.Role == role && e.Name == name {
			return e
		}
	}
	t.Fatalf("no %s %q in snapshot:\n%s", role, name, r.Text)
	return ElementInfo{}
}

func must(t *testing.T, r Result, outcome spec.Outcome, reason spec.Reason) Result {
	t.Helper()
	if r.Outcome != outcome || r.Reason != reason {
		t.Fatalf("got %s/%s (%s), want %s/%s", r.Outcome, r.Reason, r.Message, outcome, reason)
	}
	return r
}

func TestChromiumCheckIn(t *testing.T) {
	g, ctl, ctx := chromiumGate(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/check-in"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	t.Logf("snapshot:\n%s", snap.Text)
	form := refByName(t, snap, "form", "")
	button := refByName(t, snap, "button", "Check in")
	seat := refByName(t, snap, "combobox", "Seat")
	passport := refByName(t, snap, "textbox", "Passport number")
	help := refByName(t, snap, "link", "Help")
	if form.Marked == nil || form.Marked.Kind != spec.Submission {
		t.Errorf("form not shown as marked: %+v", form)
	}

	// The submit button is the User's: denied with the refs of the form and the button.
	denied := must(t, g.Do(ctx, Click{Ref: button.Ref}), spec.OutcomeDenied, spec.ReasonUserStep)
	if denied.Mark == nil || *denied.Mark != (MarkRefs{Kind: spec.Submission, Marked: form.Ref, Touches: button.Ref}) {
		t.Errorf("mark = %+v, want submission marked %s touches %s", denied.Mark, form.Ref, button.Ref)
	}
	// The passport field is the User's too.
	must(t, g.Do(ctx, Type{Ref: passport.Ref, Text: "P1234567"}), spec.OutcomeDenied, spec.ReasonUserStep)
	// Enter in the seat select would submit the form.
	must(t, g.Do(ctx, PressKey{Key: "Enter", Ref: seat.Ref}), spec.OutcomeDenied, spec.ReasonUserStep)

	// Choosing a seat is allowed.
	sel := must(t, g.Do(ctx, Select{Ref: seat.Ref, Values: []string{"14D"}}), spec.OutcomeDone, "")
	if len(sel.Selected) != 1 || sel.Selected[0] != "14D" {
		t.Errorf("selected %q, want [14D]", sel.Selected)
	}
	again := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	if got := refByName(t, again, "combobox", "Seat"); got.Value != "14D" || got.Ref != seat.Ref {
		t.Errorf("seat after select: %+v (ref %s before)", got, seat.Ref)
	}
	if suite.site.requested("POST /checked-in") {
		t.Fatal("the form was submitted")
	}

	// While the User holds control, every action is refused.
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range []Action{Snapshot{}, Click{Ref: help.Ref}, Type{Ref: seat.Ref, Text: "x"}, Select{Ref: seat.Ref, Values: []string{"14C"}},
		PressKey{Key: "Tab"}, Scroll{Direction: "down"}, Navigate{URL: "http://airline.test/help"}, Back{}, Wait{Seconds: 1}} {
		if r := g.Do(ctx, a); r.Reason != spec.ReasonUserHasControl {
			t.Errorf("%s while the User holds control: %s/%s", a.Tool(), r.Outcome, r.Reason)
		}
	}
	if err := ctl.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	// Old refs are stale after the hand back; a new snapshot gives new ones.
	must(t, g.Do(ctx, Click{Ref: help.Ref}), spec.OutcomeDenied, spec.ReasonStaleRef)
	fresh := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	link := refByName(t, fresh, "link", "Help")
	clicked := must(t, g.Do(ctx, Click{Ref: link.Ref}), spec.OutcomeDone, "")
	if clicked.Page.Epoch <= fresh.Page.Epoch {
		// The click may return before the navigation commits; the next action sees it.
		clicked = must(t, g.Do(ctx, Wait{Text: "Back to check-in", Seconds: 10}), spec.OutcomeDone, "")
	}
	if clicked.Page.Epoch <= fresh.Page.Epoch || clicked.Page.URL != "http://airline.test/help" {
		t.Errorf("after clicking Help: %+v, want a new epoch at /help", clicked.Page)
	}
	must(t, g.Do(ctx, Click{Ref: link.Ref}), spec.OutcomeDenied, spec.ReasonStaleRef)
}

// TestChromiumTakeStopsNavigation: the User takes control while the agent's
// navigation waits for a slow page. The take does not wait for the page:
// it stops the navigation, the navigate answers user_has_control at once,
// the browser drops the request, and the page stays on the one it was on.
// TestChromiumBusyPageSnapshot: a page whose script holds its main thread
// answers a snapshot with page_busy, the truth, never an empty done.
func TestChromiumBusyPageSnapshot(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	// Its own site, so that its renderer is no other test's.
	started := suite.site.requests("POST /busy-started")
	must(t, g.Do(ctx, Navigate{URL: "http://busy.test/busy"}), spec.OutcomeDone, "")
	t.Cleanup(func() { _ = g.page().Close(context.WithoutCancel(ctx)) })
	for suite.site.requests("POST /busy-started") == started {
		select {
		case <-ctx.Done():
			t.Fatal("the busy page never said its script started")
		case <-time.After(20 * time.Millisecond):
		}
	}
	start := time.Now()
	r := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeFailed, spec.ReasonPageBusy)
	t.Logf("page_busy after %s: %s", time.Since(start).Round(time.Millisecond), r.Message)
}

func TestChromiumTakeStopsNavigation(t *testing.T) {
	if suite == nil {
		t.Skip("no Chromium (-short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	p, err := suite.b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctl := control.New(nil)
	g := New(&Options{Page: func() *browser.Page { return p }, Control: ctl})
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/check-in"}), spec.OutcomeDone, "")
	doc := p.Document()

	res := make(chan Result, 1)
	go func() { res <- g.Do(ctx, Navigate{URL: "http://airline.test/slow"}) }()
	var req slowRequest
	select {
	case req = <-suite.site.slow:
	case <-ctx.Done():
		t.Fatal("the agent's navigation never reached the slow page")
	}
	taken := time.Now()
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatalf("take during the agent's navigation: %v", err)
	}
	// The take waited for the navigation to stop, not for the page.
	if d := time.Since(taken); d > 10*time.Second {
		t.Errorf("the take took %s", d)
	}
	select {
	case r := <-res:
		must(t, r, spec.OutcomeDenied, spec.ReasonUserHasControl)
	case <-time.After(10 * time.Second):
		t.Fatal("the navigate did not answer within 10 s of the take")
	}
	select {
	case <-req.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the browser still waits for the slow page 10 s after the take")
	}
	if got := p.URL(); got != "http://airline.test/check-in" || p.Document() != doc {
		t.Errorf("after the take the page is %s (document changed: %v), want it to stay on the check-in page", got, p.Document() != doc)
	}
	if !suite.site.requested("GET /slow") {
		t.Error("the slow page was never requested")
	}
}

// TestChromiumQueuedReadsRefusedAfterATake: a screenshot and a snapshot
// wait for their slot behind a wait; the User takes control. The wait
// stops, and neither read gives a picture or text of the User's turn.
func TestChromiumQueuedReadsRefusedAfterATake(t *testing.T) {
	g, ctl, ctx := chromiumGate(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/check-in"}), spec.OutcomeDone, "")
	must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	res := make(chan Result, 3)
	go func() { res <- g.Do(ctx, Wait{Seconds: 30, Text: "text that never appears"}) }()
	waitFor(t, ctx, "the wait to hold the gate's slot", func() bool { return len(g.sem) == 1 })
	for _, a := range []Action{Screenshot{}, Snapshot{}} {
		go func() { res <- g.Do(ctx, a) }()
	}
	waitFor(t, ctx, "the screenshot and the snapshot to queue for the slot", func() bool { return g.queued.Load() == 2 })
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case r := <-res:
			if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserHasControl || len(r.Image) > 0 || r.Text != "" {
				t.Errorf("after the take: got %s/%s (%s), %d image bytes, %d text bytes; want denied/user_has_control and nothing read",
					r.Outcome, r.Reason, r.Message, len(r.Image), len(r.Text))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the wait, the screenshot and the snapshot did not all answer within 10 s of the take")
		}
	}
}

// waitFor polls cond until it holds, failing the test, with what it
// waited for, when ctx ends first.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}
