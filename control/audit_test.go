package control_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestAuditGolden runs a whole hand-over, including a failed take, and
// compares the JSONL the control package writes with testdata.
func TestAuditGolden(t *testing.T) {
	ctx := control.TestContext(t)
	clock := &control.StepClock{}
	var buf bytes.Buffer
	log := audit.New(&buf, clock.Now).WithRun("run-1")
	var observed []audit.Entry
	defer log.Observe(func(e audit.Entry) { observed = append(observed, e) })()
	failTake := true
	c := control.New(&control.Options{Audit: log, Now: clock.Now, Handover: &control.Hooks{Apply: func(_ context.Context, to spec.Controller) error {
		if to == spec.ControllerUser && failTake {
			failTake = false
			return errors.New("setting controller in frame 3: target closed")
		}
		return nil
	}}})
	c.RequestUser("the airline asks you to check in yourself", &control.Step{Ref: "e12", Kind: "submission", Text: "Check in"})
	if err := c.User().Take(ctx); err == nil {
		t.Fatal("first take succeeded, want the apply failure")
	}
	control.RunOps(ctx, t, c, "take", "handback", "request", "cancel", "take", "cancel")
	if err := log.Record(audit.Entry{Event: audit.EventDenied, Tool: "browser_click", Ref: "e3", Reason: "user_step",
		Mark: &audit.Mark{Kind: spec.Submission, Marked: "e2", Touches: "e3"}}); err != nil {
		t.Fatal(err)
	}

	golden.Check(t, filepath.Join("testdata", "audit.golden.jsonl"), buf.Bytes())
	if strings.Contains(buf.String(), "Check in") {
		t.Error("audit log holds page text from the step")
	}

	// Read gives back what observers saw.
	read, err := audit.Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(observed, read); diff != "" {
		t.Errorf("audit.Read (-observed +read):\n%s", diff)
	}
}
