package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestSection7Flow is the example of browser-control v1 section 7, end to end:
// a model over MCP, the airline over HTTPS, and a scripted User on the live
// view's websocket who proves presence with the passkey they paired (no
// --insecure-take-by-link).
func TestSection7Flow(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	d := startDemoWith(t, ctx, func(o *supervisor.Options) { o.Live.InsecureTakeByLink = false })
	dev := pairDevice(t, ctx, d.sv)

	// 1. The agent opens the booking and goes to check-in.
	if r := d.call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r.Outcome != "done" {
		t.Fatalf("navigate: %+v", r)
	}
	snap := d.snapshot(ctx)
	link := ref(t, snap, "link", "Check in")
	if r := d.call(ctx, "browser_click", map[string]any{"ref": link.Ref}); r.Outcome != "done" {
		t.Fatalf("click check-in link: %+v", r)
	}
	waitUntil(t, ctx, "the check-in page loads", func() bool { return strings.HasSuffix(d.sv.Page().URL(), "/check-in") })
	snap = d.snapshot(ctx)

	// It chooses an aisle seat, which the submission mark allows.
	seat := ref(t, snap, "combobox", "Seat")
	if r := d.call(ctx, "browser_select", map[string]any{"ref": seat.Ref, "values": []string{"aisle"}}); r.Outcome != "done" {
		t.Fatalf("select aisle: %+v", r)
	}

	// 2. It does not take the marked step, however it tries.
	form := ""
	for _, e := range snap.Elements {
		if e.Role == "form" && e.Marked != nil {
			form = e.Ref
		}
	}
	checkIn := ref(t, snap, "button", "Check in")
	upgrade := ref(t, snap, "button", "Upgrade seat")
	passport := ref(t, snap, "textbox", "Passport number")
	denials := []struct {
		name    string
		tool    string
		args    map[string]any
		kind    string
		marked  string
		touches string
	}{
		{"click Check in", "browser_click", map[string]any{"ref": checkIn.Ref}, "submission", form, checkIn.Ref},
		{"click Upgrade seat (form= outside the form)", "browser_click", map[string]any{"ref": upgrade.Ref}, "submission", form, upgrade.Ref},
		{"Enter in the seat field", "browser_press_key", map[string]any{"key": "Enter", "ref": seat.Ref}, "submission", form, ""},
		{"type into the passport field", "browser_type", map[string]any{"ref": passport.Ref, "text": "X1234567"}, "interaction", passport.Ref, passport.Ref},
	}
	for _, c := range denials {
		r := d.call(ctx, c.tool, c.args)
		if r.Outcome != "denied" || r.Reason != "user_step" || r.Mark == nil {
			t.Fatalf("%s: want denied user_step with a mark, got %+v", c.name, r)
		}
		if r.Mark.Kind != c.kind || (c.marked != "" && r.Mark.Marked != c.marked) || (c.touches != "" && r.Mark.Touches != c.touches) {
			t.Errorf("%s: mark = %+v, want kind %s marked %s touches %s", c.name, *r.Mark, c.kind, c.marked, c.touches)
		}
	}
	if got := d.site.CheckIns(); len(got) != 0 {
		t.Fatalf("the airline recorded a check-in the agent was refused: %+v", got)
	}

	// It asks for the User, and the answer comes at once.
	r := d.call(ctx, "browser_request_user_control", map[string]any{"reason": "The airline asks you to check in yourself", "ref": checkIn.Ref})
	if r.Outcome != "done" || r.Offer == nil || r.Offer.ID == "" {
		t.Fatalf("request user control: %+v", r)
	}

	// 3. The User takes control: the live view's token alone is refused;
	// after the passkey's ceremony in that view, the take is theirs.
	u := connectUser(t, ctx, d.sv.LiveURL())
	u.controller(ctx, "agent")
	u.send(map[string]any{"type": "take"})
	if m := u.await(ctx, "error", nil); !strings.Contains(fmt.Sprint(m["message"]), "prove it's you") {
		t.Fatalf("a take with the token alone: %v", m)
	}
	if h := d.sv.Control().Holder(); h != "agent" {
		t.Fatalf("the token alone took control: %s", h)
	}
	u.prove(ctx, dev)
	u.send(map[string]any{"type": "take"})
	u.controller(ctx, "user")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_snapshot", nil},
		{"browser_click", map[string]any{"ref": checkIn.Ref}},
		{"browser_select", map[string]any{"ref": seat.Ref, "values": []string{"window"}}},
		{"browser_navigate", map[string]any{"url": testsite.BookingURL()}},
	} {
		if r := d.call(ctx, c.tool, c.args); r.Outcome != "denied" || r.Reason != "user_has_control" {
			t.Errorf("%s while the User holds control: got %+v", c.tool, r)
		}
	}
	if !strings.HasSuffix(d.sv.Page().URL(), "/check-in") {
		t.Fatalf("the agent's refused navigation moved the page to %s", d.sv.Page().URL())
	}

	// The User types a passport number and presses Check in, once the page
	// has taken the change in (it hides its notice: the layout moves).
	if _, err := d.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool {
		return f.Host == testsite.CompanyDomain && f.Controller == "user"
	}); err != nil {
		t.Fatalf("the check-in page never read user: %v", err)
	}
	u.clickOn(ctx, `input[name="passport_number"]`)
	u.send(map[string]any{"type": "text", "text": "X1234567"})
	u.clickOn(ctx, `#check-in button[type="submit"]`)
	checkIns, err := d.site.WaitCheckIns(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := checkIns[0]; c.Controller != "user" || c.Seat != "aisle" || !c.PassportGiven {
		t.Fatalf("the airline recorded %+v, want controller=user seat=aisle with a passport", c)
	}

	// 4. The User hands back; old refs are stale and the agent looks again.
	u.send(map[string]any{"type": "hand_back"})
	u.controller(ctx, "agent")
	if st := d.call(ctx, "browser_control_status", nil); st.Controller != "agent" || !st.MustReobserve {
		t.Errorf("status after hand back: %+v", st)
	}
	if r := d.call(ctx, "browser_click", map[string]any{"ref": checkIn.Ref}); r.Outcome != "denied" || r.Reason != "stale_ref" {
		t.Errorf("old ref after hand back: %+v", r)
	}
	snap = d.snapshot(ctx)
	if !strings.Contains(snap.Text, "Your boarding pass is ready") {
		t.Errorf("after hand back the snapshot does not show the boarding pass:\n%s", snap.Text)
	}
	if strings.Contains(snap.Text, "X1234567") {
		t.Errorf("the passport number reached the model")
	}
	if takes := auditTakes(t, d.audit); len(takes) != 1 || takes[0].Proof == nil || takes[0].Proof.Kind != "passkey" || takes[0].Proof.Credential != dev.ID {
		t.Errorf("takes in the audit log: %+v, want one, proved by the passkey %s", takes, dev.ID)
	}
}

// TestUnmarkedClickRecordsAgent shows what the marks prevent: on a page
// without them the agent's click goes through and the airline reads "agent".
func TestUnmarkedClickRecordsAgent(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	if r := d.call(ctx, "browser_navigate", map[string]any{"url": "https://airline.test/fixtures/check-in-unmarked"}); r.Outcome != "done" {
		t.Fatalf("navigate: %+v", r)
	}
	snap := d.snapshot(ctx)
	seat := ref(t, snap, "combobox", "Seat")
	if r := d.call(ctx, "browser_select", map[string]any{"ref": seat.Ref, "values": []string{"window"}}); r.Outcome != "done" {
		t.Fatalf("select: %+v", r)
	}
	if r := d.call(ctx, "browser_click", map[string]any{"ref": ref(t, snap, "button", "Check in").Ref}); r.Outcome != "done" {
		t.Fatalf("click Check in on the unmarked page: %+v", r)
	}
	checkIns, err := d.site.WaitCheckIns(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c := checkIns[0]; c.Controller != "agent" || c.Seat != "window" {
		t.Fatalf("recorded %+v, want controller=agent seat=window", c)
	}
}

// TestHeadersAndController checks sections 3 and 6 on the wire and in every
// frame: the header on every Company request after the join and on no other,
// and navigator.poppy in the Company's frames only, in step with control.
func TestHeadersAndController(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	const want = `"browser-control";v="1"`
	if r := d.call(ctx, "browser_navigate", map[string]any{"url": testsite.CheckInURL()}); r.Outcome != "done" {
		t.Fatalf("navigate: %+v", r)
	}
	top := func(ev string) func(testsite.FrameReport) bool {
		return func(f testsite.FrameReport) bool { return f.Host == testsite.PayHost && f.Controller == ev }
	}
	if _, err := d.site.WaitFrameReport(ctx, top("agent")); err != nil {
		t.Fatalf("pay.airline.test frame never read agent: %v", err)
	}
	if _, err := d.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool { return f.Host == testsite.PartnerHost }); err != nil {
		t.Fatal(err)
	}

	// Take and hand back: the Company frames follow, the partner frame never sees it.
	user := d.sv.Control().User()
	if err := user.Take(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.site.WaitFrameReport(ctx, top("user")); err != nil {
		t.Fatalf("pay.airline.test frame never read user: %v", err)
	}
	var topUser bool
	for _, f := range d.site.FrameReports() {
		if f.Host == testsite.CompanyDomain && f.Controller == "user" {
			topUser = true
		}
	}
	if err := user.HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool {
		return f.Host == testsite.PayHost && f.Controller == "agent" && f.Event != "load"
	}); err != nil {
		t.Fatalf("pay frame did not return to agent: %v", err)
	}
	_ = topUser
	for _, f := range d.site.FrameReports() {
		if f.Host == testsite.PartnerHost && (f.HasPoppy || f.Controller != "") {
			t.Errorf("partner.test frame saw navigator.poppy: %+v", f)
		}
	}

	// Headers: every request to the airline's hosts after the join carried
	// the declaration, the join included; partner.test got none.
	for _, host := range []string{testsite.CompanyDomain, testsite.PayHost} {
		reqs := d.site.Requests(host)
		if len(reqs) == 0 {
			t.Errorf("%s received no request", host)
		}
		for _, r := range reqs {
			if r.Path == "/.well-known/poppy.json" {
				continue // discovery is the Personal Agent's own fetch, before the join
			}
			if got := r.Header.Get("Poppy-Extensions"); got != want {
				t.Errorf("%s %s %s: Poppy-Extensions = %q, want %q", host, r.Method, r.Path, got, want)
			}
		}
	}
	joined := slices.ContainsFunc(d.site.Requests(testsite.CompanyDomain), func(r testsite.Request) bool {
		return r.Method == "POST" && r.Path == "/poppy/browser-session" && r.Header.Get("Poppy-Extensions") == want
	})
	if !joined {
		t.Error("the join request did not declare browser-control")
	}
	partner := d.site.Requests(testsite.PartnerHost)
	if len(partner) == 0 {
		t.Error("partner.test received no request; the test proves nothing")
	}
	for _, r := range partner {
		if v := r.Header.Values("Poppy-Extensions"); len(v) > 0 {
			t.Errorf("partner.test %s %s got Poppy-Extensions %q", r.Method, r.Path, v)
		}
	}
}

// TestControllerCannotBeTampered: section 6, "a read-only string".
func TestControllerCannotBeTampered(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	if r := d.call(ctx, "browser_navigate", map[string]any{"url": "https://airline.test/fixtures/poppy-tamper"}); r.Outcome != "done" {
		t.Fatalf("navigate: %+v", r)
	}
	rep, err := d.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool { return f.Event == "tamper" })
	if err != nil {
		t.Fatal(err)
	}
	if rep.After != "agent" || rep.Controller != "agent" || !rep.HasPoppy {
		t.Fatalf("after the page's tampering it reads %+v, want agent", rep)
	}
}
