package ui

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestIdentityViewEndsAtExpiry: a view proved by the operator's signed
// identity (the JWT its websocket's request carried) holds that proof
// only until the identity expires, though the websocket stays open: at
// the expiry (plus the allowed clock skew) the view falls back to the
// offer card, gets no more pictures, and its take and hand back are
// refused. (Revoking a passkey ends a passkey view's proof the same way:
// TestPasskeyRefusals.)
func TestIdentityViewEndsAtExpiry(t *testing.T) {
	ctx := testContext(t)
	idp := newTestIDP(t)
	var ahead atomic.Int64 // how far the identity's clock is ahead of the machine's
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	ctl := control.New(nil)
	l, _ := startLiveWith(t, ctl, newPage(ctx, t, "http://company.test/form"), func(l *Live) {
		l.identity = idp.verifier(t, clock)
	}, &LiveOptions{})
	claims := goodClaims(time.Now()) // expires in 5 minutes
	h := http.Header{"Origin": {"http://" + liveAddr(l)}, "X-Poppy-Identity": {idp.sign("rsa-1", claims)}}
	view, resp, err := websocket.DefaultDialer.DialContext(ctx, "ws://"+liveAddr(l)+"/live/ws?token="+l.token.Reveal(), h)
	if err != nil {
		t.Fatalf("dialing with the User's identity: %v (%v)", err, resp)
	}
	defer view.Close()
	if m := awaitType(ctx, t, view, "state"); m.Presence == nil || !m.Presence.Proved || m.Presence.Kind != "identity" {
		t.Fatalf("first state = %+v, want proved by identity", m)
	}
	ctl.RequestUser("check in yourself", nil)
	send(t, view, map[string]string{"type": "take"})
	poll(ctx, t, "the identity's take", func() bool { return ctl.Holder() == spec.ControllerUser })
	send(t, view, map[string]string{"type": "hand_back"})
	poll(ctx, t, "the identity's hand back", func() bool { return ctl.Holder() == spec.ControllerAgent })
	offer := ctl.RequestUser("check in yourself, again", nil)

	// The identity expires (its clock passes exp and the skew) while the
	// websocket stays open.
	ahead.Store(int64(6 * time.Minute))
	for {
		m := next(ctx, t, view, false)
		if m.Type == "state" && m.Presence != nil && !m.Presence.Proved {
			if m.URL != "" || len(m.Tabs) > 0 {
				t.Fatalf("the expired view's state shows more than the offer card: %+v", m)
			}
			break
		}
	}
	noFrameUntilRefused(ctx, t, "a view whose identity expired", view)
	if h := ctl.Holder(); h != spec.ControllerAgent {
		t.Fatalf("holder = %s after an expired identity's take", h)
	}
	if st := ctl.Status(); st.Offer == nil || st.Offer.ID != offer.ID {
		t.Fatalf("the offer ended after an expired identity's take: %+v", st.Offer)
	}
}
