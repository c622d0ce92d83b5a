package supervisor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestUserTakesABusyPage: the agent's input leaves a frame of the page
// busy (a third party's frame, out of process, asked for a long task by a
// key press or by a page's WebMCP tool), and the User takes control while
// it is. The User then types into the Company's field a mark leaves to
// them, in another frame, and presses the marked Send: their text is in
// the field and the server gets it, the agent's action ends with its own
// result, and no audit line blames the User's input on the agent. The
// agent's next action after the hand back is guarded again.
func TestUserTakesABusyPage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "busy.html")
	const phone = "+351 912 345 678"
	for _, tc := range []struct {
		name   string
		action gate.Action
		want   []string // the agent's result ("outcome reason"), whichever way its run ends
	}{
		{"key", gate.PressKey{Key: "Enter"}, []string{"done "}},
		// The tool's call ends as the take comes: done, or stopped by it.
		{"tool", gate.WebMCPCall{Name: "check_number"}, []string{"done ", "denied user_has_control"}},
		// The take stops the tool's call (see gate.WebMCPCall).
		{"tool still running", gate.WebMCPCall{Name: "check_number_slowly"}, []string{"denied user_has_control"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.WebMCPFixtureURL("busy.html")}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("navigate: %+v", r)
			}
			listTools(t, ctx, sv, "check_number", "check_number_slowly")
			page := sv.Page()
			var form browser.Frame
			waitFor(t, 20*time.Second, "both frames", func() bool {
				n := 0
				for _, f := range page.Frames() {
					var s string
					if f.Call(ctx, "", `function(){ return document.readyState }`, &s) != nil || s != "complete" {
						continue
					}
					switch {
					case strings.HasSuffix(f.URL, "/busy-form.html"):
						form = f
						n++
					case strings.HasSuffix(f.URL, "/busy-frame.html"):
						n++
					}
				}
				return n == 2
			})
			field, send := centreIn(ctx, t, page, form, "#phone"), centreIn(ctx, t, page, form, "#send")
			if tc.name == "key" {
				snap := sv.Gate().Do(ctx, gate.Snapshot{})
				if r := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Check the number")}); r.Outcome != spec.OutcomeDone {
					t.Fatalf("click the button: %+v", r)
				}
			}
			site.Reset()
			seen := len(auditLines(t, auditPath))

			agent := make(chan gate.Result, 1)
			go func() { agent <- sv.Gate().Do(ctx, tc.action) }()
			// Take control the moment the partner's frame says it is busy.
			if err := site.WaitFor(ctx, func() bool { return received(site, testsite.PartnerHost, "/fixtures/webmcp/busy-signal") }); err != nil {
				t.Fatal(err)
			}
			if err := sv.Control().User().Take(ctx); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := sv.Control().User().HandBack(ctx); err != nil {
					t.Error(err)
				}
			}()
			// The User's input, as the live view sends it.
			if err := page.Click(ctx, field[0], field[1]); err != nil {
				t.Fatal(err)
			}
			if err := page.InsertText(ctx, phone); err != nil {
				t.Fatal(err)
			}
			if got := frameEval(ctx, t, form, `function(){ return document.getElementById("phone").value + "|" + (document.activeElement && document.activeElement.id) }`); got != phone+"|phone" {
				t.Errorf("the User typed %q in the phone field; the field and the focus read %q", phone, got)
			}
			if err := page.Click(ctx, send[0], send[1]); err != nil {
				t.Fatal(err)
			}
			sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if err := site.WaitFor(sctx, func() bool { return received(site, testsite.CompanyDomain, "/fixtures/webmcp/submitted.html") }); err != nil {
				t.Errorf("the User's Send did not reach the server: %v", err)
			} else {
				waitFor(t, 20*time.Second, "the sent form", func() bool { return sentPhone(page) != "" })
				if got := sentPhone(page); got != phone {
					t.Errorf("the form sent phone=%q, want %q", got, phone)
				}
			}

			var res gate.Result
			select {
			case res = <-agent:
			case <-ctx.Done():
				t.Fatal("the agent's action never ended")
			}
			if got := string(res.Outcome) + " " + string(res.Reason); !slices.Contains(tc.want, got) {
				t.Errorf("the agent's %s: %s (%s), want one of %q", tc.name, got, res.Message, tc.want)
			}
			for _, l := range auditLines(t, auditPath)[seen:] {
				if l.Event == audit.EventDenied && l.Reason == string(spec.ReasonUserStep) {
					t.Errorf("an audit line blames the User's input on the agent: %s %s %s (%s)", l.Tool, l.Event, l.Reason, l.Message)
				}
			}
		})
	}
	if t.Failed() {
		return
	}

	// After the hand back the guard works again: a tool that sets the
	// User's field is stopped, and the field keeps its value.
	if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.WebMCPFixtureURL("silent.html")}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("navigate: %+v", r)
	}
	listTools(t, ctx, sv, "set_passport_silent")
	if res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: "set_passport_silent"}); res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep {
		t.Errorf("set_passport_silent after the hand back: %s %s (%s), want denied user_step", res.Outcome, res.Reason, res.Message)
	}
	if got := eval(ctx, t, sv.Page(), `function(){ return document.getElementById("passport").value }`); got != "" {
		t.Errorf("after the hand back a tool set the User's passport field to %q", got)
	}
}

// sentPhone is the phone number a frame of p sent with the contact form,
// or "" while none has.
func sentPhone(p *browser.Page) string {
	for _, f := range p.Frames() {
		if u, err := url.Parse(f.URL); err == nil && strings.HasSuffix(u.Path, "/submitted.html") {
			return u.Query().Get("phone")
		}
	}
	return ""
}

// refNamed is the ref of the snapshot's element of role and name.
func refNamed(t *testing.T, snap gate.Result, role, name string) string {
	t.Helper()
	for _, e := range snap.Elements {
		if e.Role == role && e.Name == name {
			return e.Ref
		}
	}
	t.Fatalf("no %s %q in the snapshot", role, name)
	return ""
}

// centreIn is where the element sel of frame f (the iframe #form of p's
// top frame) is on p's viewport, in CSS pixels.
func centreIn(ctx context.Context, t *testing.T, p *browser.Page, f browser.Frame, sel string) [2]float64 {
	t.Helper()
	var at, frame, in [2]float64
	// The frame's content box: inside the iframe element's border.
	box := `function(){ const e = document.getElementById("form"), r = e.getBoundingClientRect(); return JSON.stringify([r.x + e.clientLeft, r.y + e.clientTop]) }`
	if err := json.Unmarshal([]byte(eval(ctx, t, p, box)), &frame); err != nil {
		t.Fatal(err)
	}
	mid := fmt.Sprintf(`function(){ const r = document.querySelector(%q).getBoundingClientRect(); return JSON.stringify([r.x + r.width/2, r.y + r.height/2]) }`, sel)
	if err := json.Unmarshal([]byte(frameEval(ctx, t, f, mid)), &in); err != nil {
		t.Fatal(err)
	}
	at[0], at[1] = frame[0]+in[0], frame[1]+in[1]
	return at
}

// frameEval is eval in frame f.
func frameEval(ctx context.Context, t *testing.T, f browser.Frame, fn string) string {
	t.Helper()
	var s string
	if err := f.Call(ctx, browser.UtilityWorld, fn, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// received reports whether host got a request for path.
func received(site *testsite.Site, host, path string) bool {
	for _, r := range site.Requests(host) {
		if r.Path == path {
			return true
		}
	}
	return false
}

// auditLines reads every line of the audit log at path.
func auditLines(t *testing.T, path string) []audit.Entry {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Entry
	for line := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}
