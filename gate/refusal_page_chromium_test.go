package gate

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestChromiumRefusalNamesThePageNow: while the User holds control and has
// moved on from the check-in page, an agent's action is refused with the
// page as it is now (its url and title), not the one the agent last saw.
func TestChromiumRefusalNamesThePageNow(t *testing.T) {
	g, ctl, ctx := chromiumGate(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/check-in"}), spec.OutcomeDone, "")
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	// The User's own navigation, in their turn (the live view drives the
	// page, not the gate).
	if _, err := g.page().Navigate(ctx, "http://airline.test/help"); err != nil {
		t.Fatal(err)
	}
	r := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDenied, spec.ReasonUserHasControl)
	if r.Page.URL != "http://airline.test/help" || r.Page.Title != "Help" || r.Page.Controller != spec.ControllerUser {
		t.Errorf("refused while the User is on the help page: page %+v, want its url and title", r.Page)
	}
}
