package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestMarkFixtures runs the fixture table: each case opens its page fresh,
// takes a snapshot as the model would, runs its setup and its action over
// MCP, and checks the outcome, the mark, and what the page itself recorded.
func TestMarkFixtures(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	if len(markCases) < 60 {
		t.Fatalf("the table has %d cases; issue 3 asks for at least 60", len(markCases))
	}
	known := map[string]bool{}
	for _, r := range spec.Requirements() {
		known[r.ID] = true
	}
	for _, tc := range markCases {
		t.Run(tc.name, func(t *testing.T) {
			if id, _, _ := strings.Cut(tc.spec, ":"); !known[id] {
				t.Fatalf("the case cites %q, not a requirement of spec.Requirements", id)
			}
			d.t = t
			cctx, cancel := context.WithTimeout(ctx, 45*time.Second)
			defer cancel()
			snap := d.open(cctx, tc.page, tc.action.target, tc.setup)
			for _, s := range tc.setup {
				if r := d.do(cctx, snap, s); r.Outcome != "done" {
					t.Fatalf("setup %s: %+v", s.tool, r)
				}
			}
			r := d.do(cctx, snap, tc.action)
			if r.Outcome != tc.want || r.Reason != tc.reason {
				t.Fatalf("%s: got %s/%s (%s), want %s/%s\nspec: %s", tc.action.tool, r.Outcome, r.Reason, r.Message, tc.want, tc.reason, tc.spec)
			}
			if tc.reason == "user_step" {
				if r.Mark == nil || r.Mark.Kind != tc.kind || r.Mark.Marked == "" || r.Mark.Touches == "" {
					t.Fatalf("mark = %+v, want kind %s", r.Mark, tc.kind)
				}
				if !tc.anyBearer {
					want := tc.action.target
					if tc.marked != nil {
						want = *tc.marked
					}
					if bearer := find(snap, want); bearer.Ref != r.Mark.Marked {
						t.Errorf("marked = %s, want %s (%s %q)\n%s", r.Mark.Marked, bearer.Ref, want.role, want.name, snap.Text)
					}
				}
			} else if r.Mark != nil {
				t.Errorf("mark = %+v on a %s result", r.Mark, r.Outcome)
			}
			if got := r.CaughtBy == "guard"; got != tc.guard {
				t.Errorf("caught_by = %q, want guard %v (%s)", r.CaughtBy, tc.guard, r.Message)
			}
			if tc.events == "" && len(tc.noEvents) == 0 {
				return
			}
			after := d.snapshot(cctx)
			if tc.events != "" && !strings.Contains(after.Text, tc.events) {
				t.Errorf("the page did not record %q:\n%s", tc.events, after.Text)
			}
			for _, no := range tc.noEvents {
				if strings.Contains(after.Text, no) {
					t.Errorf("the page recorded %q:\n%s", no, after.Text)
				}
			}
		})
	}
	d.t = t
}

// open navigates to a fixture page and returns a snapshot showing every
// element the case names (frames may still be attaching: it polls).
func (d *demo) open(ctx context.Context, page string, target sel, setup []step) result {
	d.t.Helper()
	if r := d.call(ctx, "browser_navigate", map[string]any{"url": testsite.MarkFixtureURL(page)}); r.Outcome != "done" {
		d.t.Fatalf("navigate %s: %+v", page, r)
	}
	need := []sel{target}
	for _, s := range setup {
		need = append(need, s.target)
	}
	for {
		snap := d.snapshot(ctx)
		ok := true
		for _, s := range need {
			if s.role != "" && find(snap, s).Ref == "" {
				ok = false
			}
		}
		if ok {
			return snap
		}
		select {
		case <-ctx.Done():
			d.t.Fatalf("%s never showed %v:\n%s", page, need, snap.Text)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// do runs one step on the element of the snapshot it names.
func (d *demo) do(ctx context.Context, snap result, s step) result {
	d.t.Helper()
	args := map[string]any{}
	for k, v := range s.args {
		args[k] = v
	}
	if s.target.role != "" {
		args["ref"] = find(snap, s.target).Ref
	}
	return d.call(ctx, s.tool, args)
}

// find returns the first element with the role whose name contains name,
// or a zero element.
func find(snap result, s sel) element {
	for _, e := range snap.Elements {
		if e.Role == s.role && strings.Contains(e.Name, s.name) {
			return e
		}
	}
	return element{}
}
