package control

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestLongIdleKeepsUser checks browser-control v1 section 5: "Only the User
// ends their control, by handing it back or cancelling. A timeout ... MUST
// NOT end it." A week of fake time passes, with waiters timing out all
// along; the User still holds control until they hand it back.
func TestLongIdleKeepsUser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(nil)
		c.RequestUser("check in yourself", nil)
		if err := c.User().Take(t.Context()); err != nil {
			t.Fatal(err)
		}
		for range 7 * 24 {
			ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
			_, err := c.WaitForAgent(ctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("WaitForAgent while the User holds control: %v, want the waiter's deadline", err)
			}
		}
		st := c.Status()
		if st.Controller != spec.ControllerUser || st.Offer == nil || st.Epoch != 0 || st.MustReobserve {
			t.Fatalf("after a week idle: %+v, want the User in control with the offer open", st)
		}
		done := make(chan Status)
		go func() {
			st, err := c.WaitForAgent(t.Context())
			if err != nil {
				t.Error(err)
			}
			done <- st
		}()
		synctest.Wait()
		if err := c.User().HandBack(t.Context()); err != nil {
			t.Fatal(err)
		}
		if st := <-done; st.Controller != spec.ControllerAgent || st.Epoch != 1 || !st.MustReobserve {
			t.Fatalf("after hand back: %+v", st)
		}
	})
}
