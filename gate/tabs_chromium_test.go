package gate

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// tabsGate opens a fresh page and a gate over its active tab, as the
// supervisor wires it.
func tabsGate(t *testing.T) (*Gate, *control.Control, *browser.Page, context.Context) {
	g, ctl, p, ctx, _ := tabsGateAudit(t)
	return g, ctl, p, ctx
}

// syncBuffer is an audit log's output, read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func tabsGateAudit(t *testing.T) (*Gate, *control.Control, *browser.Page, context.Context, *syncBuffer) {
	t.Helper()
	if suite == nil {
		t.Skip("no Chromium (-short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	p, err := suite.b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = p.Close(cctx)
	})
	ctl := control.New(nil)
	var log syncBuffer
	g := New(&Options{Page: func() *browser.Page { return p.Tabs().Active() }, Control: ctl,
		Audit: audit.New(&log, nil), CompanyHost: func(h string) bool { return h == "airline.test" }})
	return g, ctl, p, ctx, &log
}

// TestChromiumTabs: a link that opens a tab says so (tabs_opened), the
// agent's next look is at the new tab, and browser_tabs lists, selects and
// closes tabs, refused while the User holds control.
func TestChromiumTabs(t *testing.T) {
	g, ctl, _, ctx, log := tabsGateAudit(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/tabs"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	link := refByName(t, snap, "link", "Help in a new tab")
	res := must(t, g.Do(ctx, Click{Ref: link.Ref}), spec.OutcomeDone, "")
	if len(res.TabsOpened) != 1 || res.TabsOpened[0].Index != 1 {
		t.Fatalf("tabs_opened = %+v, want the new tab 1 (%s)", res.TabsOpened, res.Message)
	}
	// The next look is at the new tab, once it has loaded.
	deadline := time.Now().Add(20 * time.Second)
	for {
		snap = must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
		if snap.Page.URL == "http://airline.test/help" || time.Now().After(deadline) {
			break
		}
		must(t, g.Do(ctx, Wait{Seconds: 0.2}), spec.OutcomeDone, "")
	}
	if snap.Page.URL != "http://airline.test/help" || snap.Page.Tab == nil || *snap.Page.Tab != 1 {
		t.Fatalf("snapshot after the click: page %+v, want the new tab at /help", snap.Page)
	}
	list := must(t, g.Do(ctx, Tabs{Action: "list"}), spec.OutcomeDone, "")
	if len(list.Tabs) != 2 || !list.Tabs[1].Active || list.Tabs[1].Opener == nil || *list.Tabs[1].Opener != 0 {
		t.Fatalf("tabs = %+v", list.Tabs)
	}
	zero, one := 0, 1
	sel := must(t, g.Do(ctx, Tabs{Action: "select", Index: &zero}), spec.OutcomeDone, "")
	if sel.Page.URL != "http://airline.test/tabs" || sel.Page.Epoch <= snap.Page.Epoch {
		t.Errorf("after select: page %+v, want tab 0 in a new epoch", sel.Page)
	}
	// A ref of the other tab is stale here.
	must(t, g.Do(ctx, Click{Ref: refByName(t, snap, "link", "Back to check-in").Ref}), spec.OutcomeDenied, spec.ReasonStaleRef)

	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	must(t, g.Do(ctx, Tabs{Action: "close", Index: &one}), spec.OutcomeDenied, spec.ReasonUserHasControl)
	if err := ctl.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	closed := must(t, g.Do(ctx, Tabs{Action: "close", Index: &one}), spec.OutcomeDone, "")
	if len(closed.Tabs) != 1 {
		t.Errorf("after close: tabs %+v", closed.Tabs)
	}
	must(t, g.Do(ctx, Tabs{Action: "select", Index: &one}), spec.OutcomeFailed, spec.ReasonNoSuchTab)
	must(t, g.Do(ctx, Tabs{Action: "shuffle"}), spec.OutcomeFailed, spec.ReasonBadArgument)
	if !strings.Contains(log.String(), `"event":"tab","tool":"browser_click","url":"http://airline.test/help"`) {
		t.Errorf("the audit log has no tab line for the opened tab:\n%s", log.String())
	}
}

// TestChromiumDialogs: a click that opens an alert returns at once with the
// dialog; nothing else runs until browser_handle_dialog answers it; a
// confirm answered Cancel reaches the page as false.
func TestChromiumDialogs(t *testing.T) {
	g, _, _, ctx, log := tabsGateAudit(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/alert"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	start := time.Now()
	res := must(t, g.Do(ctx, Click{Ref: refByName(t, snap, "button", "Warn me").Ref}), spec.OutcomeDone, "")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the click took %s", d)
	}
	if res.Dialog == nil || res.Dialog.Type != "alert" || res.Dialog.Message != "Your session ends soon" {
		t.Fatalf("dialog = %+v (%s)", res.Dialog, res.Message)
	}
	blocked := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeFailed, spec.ReasonDialogOpen)
	if blocked.Dialog == nil {
		t.Error("the refused snapshot does not say which dialog is open")
	}
	must(t, g.Do(ctx, HandleDialog{Accept: true}), spec.OutcomeDone, "")
	must(t, g.Do(ctx, HandleDialog{Accept: true}), spec.OutcomeFailed, spec.ReasonNoDialog)
	must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")

	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/confirm"}), spec.OutcomeDone, "")
	snap = must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	res = must(t, g.Do(ctx, Click{Ref: refByName(t, snap, "button", "Cancel booking").Ref}), spec.OutcomeDone, "")
	if res.Dialog == nil || res.Dialog.Type != "confirm" {
		t.Fatalf("dialog = %+v", res.Dialog)
	}
	must(t, g.Do(ctx, HandleDialog{Accept: false}), spec.OutcomeDone, "")
	if snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, ""); snap.Page.Title != "answer:false" {
		t.Errorf("title %q, want the page to have got false", snap.Page.Title)
	}
	if l := log.String(); !strings.Contains(l, `"event":"dialog","tool":"browser_click"`) || !strings.Contains(l, `"message":"confirm"`) || strings.Contains(l, "Cancel the booking") {
		t.Errorf("the audit log's dialog lines (type only, never the page's text):\n%s", l)
	}
}

// TestChromiumDialogWhileLoading: a page that opens an alert while it
// loads was opened: the navigation is done, with the dialog to answer
// (not a failed navigation), and after the answer the page reads.
func TestChromiumDialogWhileLoading(t *testing.T) {
	g, _, _, ctx, _ := tabsGateAudit(t)
	start := time.Now()
	res := must(t, g.Do(ctx, Navigate{URL: "http://airline.test/alert-on-load"}), spec.OutcomeDone, "")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the navigation took %s", d)
	}
	if res.Dialog == nil || res.Dialog.Message != "Prices have changed" || !strings.Contains(res.Message, "browser_handle_dialog") {
		t.Fatalf("dialog = %+v (%s)", res.Dialog, res.Message)
	}
	must(t, g.Do(ctx, HandleDialog{Accept: true}), spec.OutcomeDone, "")
	if seen := g.DoAndSee(ctx, Navigate{URL: "http://airline.test/alert-on-load"}); seen.Outcome != spec.OutcomeDone || seen.Dialog == nil || seen.Text != "" {
		t.Errorf("with a dialog open, a navigation brings no snapshot: %s %s %+v %q", seen.Outcome, seen.Reason, seen.Dialog, seen.Text)
	}
	must(t, g.Do(ctx, HandleDialog{Accept: true}), spec.OutcomeDone, "")
	if snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, ""); !strings.Contains(snap.Text, "Fares changed") {
		t.Errorf("after the answer the page does not read:\n%s", snap.Text)
	}
}

// TestChromiumCrashAndGone: a crashed tab fails with crashed and a navigate
// recovers it; a closed browser fails every action at once with
// browser_gone, never an empty done.
func TestChromiumCrashAndGone(t *testing.T) {
	if suite == nil {
		t.Skip("no Chromium (-short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, &browser.Options{Args: []string{"--host-resolver-rules=MAP *.test " + suite.site.addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The scanner, as the runtime installs it: without it no snapshot can
	// read a page (it would fail page_busy waiting for its world).
	if err := b.SetScript(ctx, "marks", marks.Script()); err != nil {
		t.Fatal(err)
	}
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := New(&Options{Page: func() *browser.Page { return p.Tabs().Active() }, Control: control.New(nil)})
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/help"}), spec.OutcomeDone, "")
	_ = p.Goto(ctx, "chrome://crash")
	for !p.Crashed() {
		select {
		case <-ctx.Done():
			t.Fatal("the crash was never reported")
		case <-time.After(10 * time.Millisecond):
		}
	}
	must(t, g.Do(ctx, Snapshot{}), spec.OutcomeFailed, spec.ReasonCrashed)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/help"}), spec.OutcomeDone, "")
	if r := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, ""); !strings.Contains(r.Text, "Back to check-in") {
		t.Errorf("the snapshot after the crash's recovery does not show the page:\n%s", r.Text)
	}

	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !g.BrowserGone() {
		t.Error("BrowserGone is false after the browser closed")
	}
	start := time.Now()
	must(t, g.Do(ctx, Snapshot{}), spec.OutcomeFailed, spec.ReasonBrowserGone)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/help"}), spec.OutcomeFailed, spec.ReasonBrowserGone)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("two actions on a closed browser took %s", d)
	}
}

// TestChromiumDownloadsAndFileChoosers: a click that starts a download or
// opens a file chooser says so (refused; the User's step), instead of a
// bare "Clicked".
func TestChromiumDownloadsAndFileChoosers(t *testing.T) {
	g, _, p, ctx := tabsGate(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/files"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	res := must(t, g.Do(ctx, Click{Ref: refByName(t, snap, "link", "Download the ticket").Ref}), spec.OutcomeDone, "")
	for len(p.Downloads()) == 0 && !strings.Contains(res.Message, "download") {
		// The download may be reported just after the click settles.
		select {
		case <-ctx.Done():
			t.Fatalf("no download reported: %s", res.Message)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if !strings.Contains(res.Message, `download ("ticket.pdf")`) {
		t.Logf("the click's message did not mention the download (it came after): %s", res.Message)
	} else if !strings.Contains(res.Message, "who can take it in their turn") {
		t.Errorf("the refused download's message does not say the User can take it in their turn: %s", res.Message)
	}
	var file ElementInfo
	for _, e := range snap.Elements {
		if e.Type == "file" {
			file = e
		}
	}
	if file.Ref == "" {
		t.Fatalf("no file input in the snapshot:\n%s", snap.Text)
	}
	res = must(t, g.Do(ctx, Click{Ref: file.Ref}), spec.OutcomeDone, "")
	if !strings.Contains(res.Message, "file chooser") {
		t.Errorf("a click on a file input: %q, want it to say a file chooser opened", res.Message)
	}
}
