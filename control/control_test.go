package control

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/spec"
)

var t0 = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// stepClock returns t0, t0+1s, t0+2s, ... one step per call.
type stepClock struct {
	mu sync.Mutex
	n  int
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := t0.Add(time.Duration(c.n) * time.Second)
	c.n++
	return t
}

func fixedNow() time.Time { return t0 }

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type step struct {
	op      string // request, take, handback, cancel, observed
	wantErr error
}

func run(ctx context.Context, t *testing.T, c *Control, steps []step) {
	t.Helper()
	for i, s := range steps {
		var err error
		switch s.op {
		case "request":
			c.RequestUser("check in", &Step{Ref: "e7", Kind: "submission"})
		case "take":
			err = c.User().Take(ctx)
		case "handback":
			err = c.User().HandBack(ctx)
		case "cancel":
			err = c.User().Cancel(ctx)
		case "observed":
			c.Observed()
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
		if !errors.Is(err, s.wantErr) || (err == nil) != (s.wantErr == nil) {
			t.Fatalf("step %d (%s): error %v, want %v", i, s.op, err, s.wantErr)
		}
	}
}

func TestStateMachine(t *testing.T) {
	offer := func(n string) *Offer {
		return &Offer{ID: "offer-" + n, Reason: "check in", Step: &Step{Ref: "e7", Kind: "submission"}, At: t0}
	}
	handedBack := &Return{How: HowHandedBack, At: t0}
	cancelled := &Return{How: HowCancelled, At: t0}
	agent, user := spec.ControllerAgent, spec.ControllerUser
	tests := []struct {
		name  string
		steps []step
		want  Status
	}{
		{"new", nil, Status{Controller: agent}},
		{"offer", []step{{op: "request"}}, Status{Controller: agent, Offer: offer("1")}},
		{"newer offer replaces older", []step{{op: "request"}, {op: "request"}},
			Status{Controller: agent, Offer: offer("2")}},
		{"take with offer keeps it open", []step{{op: "request"}, {op: "take"}},
			Status{Controller: user, Offer: offer("1")}},
		{"take without offer", []step{{op: "take"}}, Status{Controller: user}},
		{"take twice is a no-op", []step{{op: "take"}, {op: "take"}}, Status{Controller: user}},
		{"offer while user holds keeps user", []step{{op: "take"}, {op: "request"}},
			Status{Controller: user, Offer: offer("1")}},
		{"observed while user holds changes nothing", []step{{op: "take"}, {op: "observed"}},
			Status{Controller: user}},
		{"hand back", []step{{op: "request"}, {op: "take"}, {op: "handback"}},
			Status{Controller: agent, LastReturn: handedBack, MustReobserve: true, Epoch: 1}},
		{"cancel", []step{{op: "request"}, {op: "take"}, {op: "cancel"}},
			Status{Controller: agent, LastReturn: cancelled, MustReobserve: true, Epoch: 1}},
		{"observed after hand back", []step{{op: "take"}, {op: "handback"}, {op: "observed"}},
			Status{Controller: agent, LastReturn: handedBack, Epoch: 1}},
		{"epoch counts every return", []step{{op: "take"}, {op: "handback"}, {op: "observed"}, {op: "take"}, {op: "cancel"}},
			Status{Controller: agent, LastReturn: cancelled, MustReobserve: true, Epoch: 2}},
		{"hand back while agent holds", []step{{op: "request"}, {op: "handback", wantErr: ErrNotHeld}},
			Status{Controller: agent, Offer: offer("1")}},
		{"hand back twice", []step{{op: "take"}, {op: "handback"}, {op: "handback", wantErr: ErrNotHeld}},
			Status{Controller: agent, LastReturn: handedBack, MustReobserve: true, Epoch: 1}},
		{"cancel without offer while agent holds", []step{{op: "cancel", wantErr: ErrNotHeld}},
			Status{Controller: agent}},
		{"cancel declines an open offer", []step{{op: "request"}, {op: "cancel"}},
			Status{Controller: agent, Declined: &Decline{Offer: "offer-1", At: t0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(&Options{Now: fixedNow})
			run(testContext(t), t, c, tc.steps)
			got := c.Status()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if c.Holder() != got.Controller {
				t.Errorf("Holder() = %q, Status().Controller = %q", c.Holder(), got.Controller)
			}
		})
	}
}

// TestOnlyTheUserEndsControl calls everything the agent side has while the
// User holds control; the User must keep it.
func TestOnlyTheUserEndsControl(t *testing.T) {
	ctx := testContext(t)
	c := New(nil)
	if err := c.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	c.RequestUser("another step", nil)
	c.Observed()
	_, cancel := c.Subscribe()
	cancel()
	short, stop := context.WithCancel(ctx)
	stop()
	if _, err := c.WaitForAgent(short); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitForAgent with a cancelled ctx: %v, want context.Canceled", err)
	}
	if got := c.Holder(); got != spec.ControllerUser {
		t.Errorf("holder after agent-side calls = %q, want user", got)
	}
}

func TestObservedAt(t *testing.T) {
	ctx := testContext(t)
	c := New(nil)
	run(ctx, t, c, []step{{op: "take"}, {op: "handback"}})
	if c.ObservedAt(0) {
		t.Error("a snapshot from epoch 0 cleared MustReobserve at epoch 1")
	}
	if !c.Status().MustReobserve {
		t.Error("MustReobserve cleared by a stale snapshot")
	}
	if !c.ObservedAt(1) || c.Status().MustReobserve {
		t.Error("a snapshot from the current epoch did not clear MustReobserve")
	}
}

func TestStatusIsACopy(t *testing.T) {
	c := New(&Options{Now: fixedNow})
	o := c.RequestUser("r", &Step{Ref: "e1"})
	o.Step.Ref = "changed"
	s := c.Status()
	s.Offer.Reason = "changed"
	if got := c.Status().Offer; got.Reason != "r" || got.Step.Ref != "e1" {
		t.Errorf("offer changed through a returned copy: %+v %+v", got, got.Step)
	}
}

// TestApplyBeforeHolder checks that the Handover runs before Holder reads
// the new value, in both directions, and that Status does not wait for it.
func TestApplyBeforeHolder(t *testing.T) {
	ctx := testContext(t)
	type call struct {
		Applied, HolderDuring spec.Controller
	}
	var (
		calls   []call
		entered = make(chan struct{})
		release = make(chan struct{})
		c       *Control
	)
	c = New(&Options{Handover: &Hooks{Apply: func(ctx context.Context, to spec.Controller) error {
		calls = append(calls, call{to, c.Holder()})
		entered <- struct{}{}
		<-release
		return nil
	}}})

	done := make(chan error, 1)
	go func() { done <- c.User().Take(ctx) }()
	<-entered
	// Apply is running: Status and Holder answer at once, with the old holder.
	if got := c.Status().Controller; got != spec.ControllerAgent {
		t.Errorf("holder during take's Apply = %q, want agent", got)
	}
	release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := c.Holder(); got != spec.ControllerUser {
		t.Errorf("holder after take = %q, want user", got)
	}

	go func() { done <- c.User().HandBack(ctx) }()
	<-entered
	if got := c.Holder(); got != spec.ControllerUser {
		t.Errorf("holder during hand back's Apply = %q, want user", got)
	}
	release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []call{
		{spec.ControllerUser, spec.ControllerAgent},
		{spec.ControllerAgent, spec.ControllerUser},
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("apply calls (-want +got):\n%s", diff)
	}
}

func TestApplyFails(t *testing.T) {
	ctx := testContext(t)
	errFrames := errors.New("frame gone")
	var fail bool
	c := New(&Options{Now: fixedNow, Handover: &Hooks{Apply: func(context.Context, spec.Controller) error {
		if fail {
			return errFrames
		}
		return nil
	}}})
	events, cancel := c.Subscribe()
	defer cancel()

	fail = true
	if err := c.User().Take(ctx); !errors.Is(err, errFrames) {
		t.Fatalf("take with failing apply: %v, want %v", err, errFrames)
	}
	if got := c.Status(); got.Controller != spec.ControllerAgent || got.Epoch != 0 {
		t.Errorf("after failed take: %+v, want agent at epoch 0", got)
	}

	fail = false
	if err := c.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	fail = true
	if err := c.User().HandBack(ctx); !errors.Is(err, errFrames) {
		t.Fatalf("hand back with failing apply: %v, want %v", err, errFrames)
	}
	want := Status{Controller: spec.ControllerAgent, LastReturn: &Return{How: HowHandedBack, At: t0}, MustReobserve: true, Epoch: 1}
	if diff := cmp.Diff(want, c.Status()); diff != "" {
		t.Errorf("after failed hand back (-want +got):\n%s", diff)
	}
	// Only the two real changes were reported; the failed take was not.
	for _, kind := range []Kind{Taken, HandedBack} {
		select {
		case e := <-events:
			if e.Kind != kind {
				t.Errorf("event kind = %s, want %s", e.Kind, kind)
			}
		case <-ctx.Done():
			t.Fatalf("waiting for %s event: %v", kind, ctx.Err())
		}
	}
}

func TestTakeHonoursContextWhileAnotherTransitionRuns(t *testing.T) {
	ctx := testContext(t)
	entered, release := make(chan struct{}), make(chan struct{})
	c := New(&Options{Handover: &Hooks{Apply: func(context.Context, spec.Controller) error {
		entered <- struct{}{}
		<-release
		return nil
	}}})
	done := make(chan error, 1)
	go func() { done <- c.User().Take(ctx) }()
	<-entered
	short, stop := context.WithCancel(ctx)
	stop()
	if err := c.User().Cancel(short); !errors.Is(err, context.Canceled) {
		t.Errorf("cancel while a take is applied: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := c.Holder(); got != spec.ControllerUser {
		t.Errorf("holder = %q, want user", got)
	}
}
