package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// steps records the hand-over's steps in order, and fails the ones named
// in fail ("frames user", "window true", "screen 390x844", ...).
type steps struct {
	log       []string
	fail      map[string]bool
	noScanner bool // the frame's document has no marks script
	// inFrame is the hand-over's step in each frame, which frames runs
	// right after the frame reads the new holder, as the injector does:
	// its error is logged, not the switch's.
	inFrame func(ctx context.Context, f browser.Frame, c spec.Controller) error
}

func (s *steps) do(step string) error {
	s.log = append(s.log, step)
	if s.fail[step] {
		return errors.New(step + " failed")
	}
	return nil
}

func (s *steps) Set(ctx context.Context, c spec.Controller) error {
	if err := s.do("frames " + string(c)); err != nil {
		return err
	}
	if s.inFrame != nil {
		if err := s.inFrame(ctx, browser.Frame{}, c); err != nil {
			s.log = append(s.log, "frames logged: "+err.Error())
		}
	}
	return nil
}

func (s *steps) StandDown(_ context.Context, _ browser.Frame) error {
	if err := s.do("guard down"); err != nil {
		return err
	}
	if s.noScanner {
		return fmt.Errorf("standing the guard down: %w", browser.ErrNoObject)
	}
	return nil
}

func (s *steps) SetWindowInput(_ context.Context, allowed bool) error {
	return s.do(fmt.Sprint("window ", allowed))
}

func (s *steps) EmulateDevice(_ context.Context, d *browser.Device) error {
	if d == nil {
		return s.do("screen agent")
	}
	return s.do(fmt.Sprintf("screen %dx%d", d.Width, d.Height))
}

var (
	testPhone     = control.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}
	testLandscape = control.Device{Width: 844, Height: 390, Scale: 3, Mobile: true, Touch: true}
)

// TestHandoverSteps drives the hand-over alone: the steps of a take and
// of a return in order, what a failed step puts back, which failures fail
// the take, and what the audit log records.
func TestHandoverSteps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		guarded bool     // the window's own input is guarded
		noGuard bool     // the pages have no in-page guard
		noMarks bool     // the frame's document has no marks script
		device  bool     // the take is made on a phone
		fail    []string // the steps that fail
		ops     []string // after the take: "resize", "return"
		want    []string // every step, in order
		takeErr bool     // the take fails
		shown   bool     // the take reports the phone shown
		errors  []string // the audit log's error lines
		retErr  bool     // the return fails
	}{
		{name: "take and return", guarded: true, device: true, ops: []string{"resize", "return"}, shown: true,
			want: []string{"window false", // open: the agent holds the browser
				"frames user", "guard down", "window true", "screen 390x844", // take
				"screen 844x390",                                 // resize
				"screen agent", "window false", "frames agent"}}, // return
		{name: "headless", device: true, ops: []string{"return"}, shown: true,
			want: []string{"frames user", "guard down", "screen 390x844", "screen agent", "frames agent"}},
		{name: "no screen", guarded: true, ops: []string{"return"},
			want: []string{"window false", "frames user", "guard down", "window true", "window false", "frames agent"}},
		{name: "frames fail", guarded: true, device: true, fail: []string{"frames user"}, takeErr: true,
			want: []string{"window false", "frames user", "window false", "frames agent"}},
		{name: "window fails", guarded: true, device: true, fail: []string{"window true"}, takeErr: true,
			want: []string{"window false", "frames user", "guard down", "window true", "window false", "frames agent"}},
		{name: "put-back fails", guarded: true, fail: []string{"frames user", "frames agent"}, takeErr: true,
			want:   []string{"window false", "frames user", "window false", "frames agent"},
			errors: []string{"restoring the agent after a failed take: frames agent failed"}},
		{name: "screen fails", guarded: true, device: true, fail: []string{"screen 390x844"}, ops: []string{"return"},
			want:   []string{"window false", "frames user", "guard down", "window true", "screen 390x844", "screen agent", "window false", "frames agent"},
			errors: []string{"showing the pages on the user's screen: screen 390x844 failed"}},
		{name: "return's frames fail", guarded: true, device: true, fail: []string{"frames agent"}, ops: []string{"return"}, shown: true, retErr: true,
			want: []string{"window false", "frames user", "guard down", "window true", "screen 390x844", "screen agent", "window false", "frames agent"}},
		{name: "stand-down fails", guarded: true, fail: []string{"guard down"}, ops: []string{"return"},
			want: []string{"window false", "frames user", "guard down", "frames logged: guard down failed", "window true", "window false", "frames agent"}},
		{name: "no marks script", guarded: true, noMarks: true, ops: []string{"return"},
			want: []string{"window false", "frames user", "guard down", "window true", "window false", "frames agent"}},
		{name: "no guard", guarded: true, noGuard: true, ops: []string{"return"},
			want: []string{"window false", "frames user", "window true", "window false", "frames agent"}},
		{name: "return's screen fails", device: true, fail: []string{"screen agent"}, ops: []string{"return"}, shown: true,
			want:   []string{"frames user", "guard down", "screen 390x844", "screen agent", "frames agent"},
			errors: []string{"showing the pages on the agent's viewport: screen agent failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			s := &steps{fail: map[string]bool{}, noScanner: tc.noMarks}
			for _, f := range tc.fail {
				s.fail[f] = true
			}
			var buf bytes.Buffer
			var window windowInput
			if tc.guarded {
				window = s
			}
			var guard frameGuard = s
			if tc.noGuard {
				guard = nil
			}
			h := newHandover(guard, window, s, audit.New(&buf, nil))
			s.inFrame = h.inFrame
			if err := h.open(ctx, s); err != nil {
				t.Fatal(err)
			}
			var d *control.Device
			if tc.device {
				d = &testPhone
			}
			shown, err := h.Take(ctx, d)
			if (err != nil) != tc.takeErr {
				t.Errorf("take: %v, want an error: %v", err, tc.takeErr)
			}
			if (shown != nil) != tc.shown {
				t.Errorf("take shows %v, want a screen: %v", shown, tc.shown)
			}
			for _, op := range tc.ops {
				switch op {
				case "resize":
					if err := h.Resize(ctx, &testLandscape); err != nil {
						t.Errorf("resize: %v", err)
					}
				case "return":
					if err := h.Return(ctx); (err != nil) != tc.retErr {
						t.Errorf("return: %v, want an error: %v", err, tc.retErr)
					}
				}
			}
			if diff := cmp.Diff(tc.want, s.log); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			entries, err := audit.Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			var errs []string
			for _, e := range entries {
				if e.Event == audit.EventError {
					errs = append(errs, e.Message)
				}
			}
			if diff := cmp.Diff(tc.errors, errs); diff != "" {
				t.Errorf("audit errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHandoverInChromium drives the Session's hand-over in a real
// Chromium on the demo airline's check-in page (with a partner's frame):
// a take on a phone makes every Company frame read "user", lets the
// window's own click reach the page and shows the page on the phone's
// screen; a resize follows a rotation; the return brings back the agent's
// screen, blocks the window's click and every Company frame reads "agent"
// again, while the partner's frame never gets navigator.poppy. A failed
// take leaves the page as the agent holds it.
func TestHandoverInChromium(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, err := testsite.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	chromium := browsertest.New(&browsertest.Options{Args: site.BrowserArgs()})
	t.Cleanup(func() {
		if err := chromium.Close(); err != nil {
			t.Error(err)
		}
	})
	b := chromium.Browser(t)
	in, err := injector.New(&injector.Options{Domain: testsite.CompanyDomain, Browser: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Install(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	ran := make(chan error, 1)
	go func() { ran <- in.Run(runCtx) }()
	t.Cleanup(func() { stopRun(); <-ran })
	p := chromium.NewPage(t)
	if _, err := p.Navigate(ctx, testsite.CheckInURL()); err != nil {
		t.Fatal(err)
	}
	if _, err := site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool { return f.Host == testsite.PartnerHost }); err != nil {
		t.Fatal(err)
	}
	// A person's clicks at the window, counted by the page.
	if err := p.MainFrame().Call(ctx, "", `function(){ window.clicks = 0; addEventListener("click", () => window.clicks++, true) }`, nil); err != nil {
		t.Fatal(err)
	}
	clicked := func() bool {
		t.Helper()
		var before, after int
		if err := p.MainFrame().Call(ctx, "", "() => window.clicks", &before); err != nil {
			t.Fatal(err)
		}
		if err := browsertest.WindowClick(ctx, p, 5, 5); err != nil {
			t.Fatal(err)
		}
		if err := p.MainFrame().Call(ctx, "", "() => window.clicks", &after); err != nil {
			t.Fatal(err)
		}
		return after > before
	}
	width := func() int {
		t.Helper()
		var w int
		if err := p.MainFrame().Call(ctx, "", "() => screen.width", &w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	// reads is what navigator.poppy.controller reads in the Company's
	// frames (about:blank and srcdoc ones included) and in the partner's.
	reads := func() (company, others string) {
		t.Helper()
		var cs, os []string
		for _, f := range p.Frames() {
			var v string
			if err := f.Call(ctx, "", `function(){ return "poppy" in navigator ? String(navigator.poppy.controller) : "absent" }`, &v); err != nil {
				t.Fatalf("reading frame %s: %v", f.URL, err)
			}
			if strings.Contains(f.URL, "://"+testsite.PartnerHost) {
				os = append(os, v)
			} else {
				cs = append(cs, v)
			}
		}
		if len(cs) == 0 || len(os) == 0 {
			t.Fatalf("%d Company frames and %d others, want both", len(cs), len(os))
		}
		return strings.Join(slices.Compact(cs), " "), strings.Join(slices.Compact(os), " ")
	}
	check := func(when, wantCompany string, wantClick bool, wantWidth int) {
		t.Helper()
		company, others := reads()
		if company != wantCompany || others != "absent" {
			t.Errorf("%s: Company frames read %q, others %q; want %q and absent", when, company, others, wantCompany)
		}
		if got := clicked(); got != wantClick {
			t.Errorf("%s: the window's click reached the page: %v, want %v", when, got, wantClick)
		}
		if wantWidth != 0 {
			if got := width(); got != wantWidth {
				t.Errorf("%s: the page's screen is %d CSS pixels wide, want %d", when, got, wantWidth)
			}
		}
	}

	var buf bytes.Buffer
	h := newHandover(nil, b, b, audit.New(&buf, nil))
	if err := h.open(ctx, in); err != nil {
		t.Fatal(err)
	}
	desktop := width()
	if desktop == testPhone.Width {
		t.Fatalf("the agent's viewport is already the phone's width %d", desktop)
	}
	check("before the take", "agent", false, desktop)

	shown, err := h.Take(ctx, &testPhone)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&testPhone, shown); diff != "" {
		t.Errorf("the take's screen (-want +got):\n%s", diff)
	}
	check("after the take", "user", true, testPhone.Width)
	if err := h.Resize(ctx, &testLandscape); err != nil {
		t.Fatal(err)
	}
	if got := width(); got != testLandscape.Width {
		t.Errorf("after a rotation the page's screen is %d wide, want %d", got, testLandscape.Width)
	}
	if err := h.Return(ctx); err != nil {
		t.Fatal(err)
	}
	check("after the return", "agent", false, desktop)

	// A take whose frames fail is put back: frames, window and width are
	// the agent's.
	failing := &failingFrames{in: in}
	h.frames = failing
	if _, err := h.Take(ctx, &testPhone); err == nil {
		t.Fatal("a take whose frames failed succeeded")
	}
	check("after a failed take", "agent", false, desktop)
	if buf.Len() != 0 {
		t.Errorf("the hand-over recorded failures it did not absorb:\n%s", buf.String())
	}
}

// failingFrames sets every frame, then fails a switch to "user" (as when
// one frame of many could not be reached).
type failingFrames struct{ in *injector.Injector }

func (f *failingFrames) Set(ctx context.Context, c spec.Controller) error {
	if err := f.in.Set(ctx, c); err != nil {
		return err
	}
	if c == spec.ControllerUser {
		return errors.New("setting controller in frame 3: target closed")
	}
	return nil
}
