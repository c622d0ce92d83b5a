package control

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestNoTimerEndsUserControl leaves the User in control for a (fake) day.
func TestNoTimerEndsUserControl(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(nil)
		c.RequestUser("check in", nil)
		if err := c.User().Take(t.Context()); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 24*time.Hour)
		defer cancel()
		_, err := c.WaitForAgent(ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForAgent after 24h idle: %v, want deadline exceeded", err)
		}
		if got := time.Since(start); got != 24*time.Hour {
			t.Errorf("waited %v, want 24h", got)
		}
		s := c.Status()
		if s.Controller != spec.ControllerUser || s.Offer == nil || s.Epoch != 0 {
			t.Errorf("after 24h idle: %+v, want the User still in control with the offer open", s)
		}
	})
}

func TestWaitForAgent(t *testing.T) {
	t.Run("at once when the agent holds", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c := New(nil)
			start := time.Now()
			s, err := c.WaitForAgent(t.Context())
			if err != nil || s.Controller != spec.ControllerAgent || time.Since(start) != 0 {
				t.Errorf("WaitForAgent = %+v, %v after %v; want agent at once", s, err, time.Since(start))
			}
		})
	})
	for _, how := range []How{HowHandedBack, HowCancelled} {
		t.Run("returns on "+string(how), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New(nil)
				if err := c.User().Take(t.Context()); err != nil {
					t.Fatal(err)
				}
				type result struct {
					s   Status
					err error
				}
				done := make(chan result, 1)
				go func() {
					s, err := c.WaitForAgent(t.Context())
					done <- result{s, err}
				}()
				time.Sleep(time.Hour) // fake time: the waiter must still be waiting
				synctest.Wait()
				select {
				case r := <-done:
					t.Fatalf("WaitForAgent returned while the User holds control: %+v", r)
				default:
				}
				at := time.Now()
				var err error
				if how == HowHandedBack {
					err = c.User().HandBack(t.Context())
				} else {
					err = c.User().Cancel(t.Context())
				}
				if err != nil {
					t.Fatal(err)
				}
				r := <-done
				want := Status{Controller: spec.ControllerAgent, LastReturn: &Return{How: how, At: at}, MustReobserve: true, Epoch: 1}
				if r.err != nil {
					t.Fatal(r.err)
				}
				if diff := cmp.Diff(want, r.s); diff != "" {
					t.Errorf("status (-want +got):\n%s", diff)
				}
			})
		})
	}
}
