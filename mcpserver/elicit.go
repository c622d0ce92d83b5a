package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
)

// The channels an offer reached the User by, in offer.reached.
const (
	ReachedOnOffer     = "on_offer"    // the --on-offer command
	ReachedTerminal    = "terminal"    // the User's terminal UI
	ReachedElicitation = "elicitation" // a URL elicitation to this MCP client
	ReachedApp         = "app"         // the MCP App in this client's conversation
)

// Elicitation answers, as browser_control_status reports them.
const (
	ElicitPending = "pending" // the client has not answered yet
	ElicitAccept  = "accept"  // the User opened the link
	ElicitDecline = "decline" // the User declined the offer (it is declined)
	ElicitCancel  = "cancel"  // the User dismissed it; the offer stays open
	ElicitFailed  = "failed"  // the client answered with an error
)

// elicitInputKey is the input request id of an offer's URL elicitation in
// an input-required result (protocol 2026-07-28).
const elicitInputKey = "poppy_offer_link"

// protocolStateless is the first MCP revision without server-initiated
// requests: the elicitation travels in an input-required result.
const protocolStateless = "2026-07-28"

// The optional parts of a [Runtime] that reach the User through the MCP
// client (supervisor.Session has them all). Without linker no client gets
// a URL elicitation.
type (
	// linker gives the User's single-use control link for the open offer
	// id: a secret for the User alone, sent only in a URL elicitation.
	linker interface {
		OfferLinkURL(id string) (string, time.Time, error)
	}
	// decliner declines the open offer id for the User, who said no in
	// the client.
	decliner interface {
		DeclineOffer(ctx context.Context, id, message string) error
	}
	companyNamer  interface{ CompanyName() string }
	offerChannels interface{ OfferChannels() []string }
)

// Elicitation is the state of the URL elicitation of an offer, in
// browser_control_status.
type Elicitation struct {
	Offer  string `json:"offer"`
	Action string `json:"action" jsonschema:"pending, accept (the User opened the link), decline (the offer is declined), cancel (dismissed; the offer stays open) or failed"`
}

// elicits keeps, for each MCP session, the URL elicitation of its latest
// offer, and sends notifications/elicitation/complete when that offer's
// turn is over.
type elicits struct {
	mu sync.Mutex
	by map[*mcp.ServerSession]*sessionElicit
}

// sessionElicit is one session's latest elicitation.
type sessionElicit struct {
	offer, id string // the offer and its elicitation's id (sent as elicitationId before 2026-07-28)
	action    string
	declining bool // the client's decline is being applied
	done      bool // complete sent, or not to be sent (a decline)
	watching  bool
	// stateless: the elicitation travels in an input-required result
	// (2026-07-28), which has no elicitationId and no complete
	// notification. nonce is its requestState's (mrtr.go), spent once the
	// retry that answers it has been taken.
	stateless bool
	nonce     []byte
	spent     bool
	// stop ends the elicitation/create request still waiting for the
	// client's answer: once the offer's turn is over, or a newer offer
	// replaces it, nobody waits for that answer any more.
	stop context.CancelFunc
	// result is the offer's result, for the retry that answers its
	// input-required result (protocol 2026-07-28).
	result OfferResult
	meta   mcp.Meta // the app's login for that result, if any
}

// clientWantsURL reports whether the client of req declared URL-mode
// elicitation.
func clientWantsURL(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// runtimeOf is the open runtime of the calling session, or nil.
func (s *Server) runtimeOf(ss *mcp.ServerSession) Runtime {
	e := s.reg.lookup(ss)
	if e == nil {
		return nil
	}
	select {
	case <-e.ready:
		if e.err == nil {
			return e.rt
		}
	default:
	}
	return nil
}

// offerChannelsOf names the channels rt brings each offer to the User by.
func offerChannelsOf(rt Runtime) []string {
	if c, ok := rt.(offerChannels); ok {
		return c.OfferChannels()
	}
	return nil
}

// elicitOffer sends the URL elicitation of offer to the calling client
// when it declared URL mode and the runtime mints the User's links. Over
// protocol 2026-07-28 it returns the input request to put in the tool's
// result (the client answers by retrying the call); before it, the
// request goes out in the background and the call does not wait for it.
func (s *Server) elicitOffer(req *mcp.CallToolRequest, offer control.Offer) (sent bool, input *mcp.ElicitParams, state string) {
	ss := req.Session
	rt := s.runtimeOf(ss)
	lk, ok := rt.(linker)
	if !ok || ss == nil || !clientWantsURL(req) {
		return false, nil, ""
	}
	link, expires, err := lk.OfferLinkURL(offer.ID)
	if err != nil {
		s.opts.Logger.Warn("no control link for the URL elicitation", "offer", offer.ID, "err", err)
		return false, nil, ""
	}
	e := s.reg.lookup(ss)
	if e == nil {
		return false, nil, ""
	}
	company := "the Company"
	if c, ok := rt.(companyNamer); ok && c.CompanyName() != "" {
		company = c.CompanyName()
	}
	eid := newElicitationID()
	params := &mcp.ElicitParams{Mode: "url", URL: link,
		Message: fmt.Sprintf("Your agent asks you to take over a step on %s's website: %s. "+
			"The link opens the live view of the browser; it works once, until %s.",
			company, offer.Reason, expires.UTC().Format("15:04 UTC"))}
	// The negotiated revision decides, not the one the client asked for.
	if negotiatedVersion(req) >= protocolStateless {
		// 2026-07-28 removed elicitationId and the complete notification:
		// the retry's requestState names the round instead.
		state, nonce := s.states.mint(e.id, offer.ID)
		s.elicit.begin(ss, offer.ID, eid, nonce)
		s.watchElicits(e, ss, rt.Gate())
		return true, params, state
	}
	params.ElicitationID = eid
	s.elicit.begin(ss, offer.ID, eid, nil)
	s.watchElicits(e, ss, rt.Gate())
	ok = s.reg.goOwned("sending an offer's URL elicitation", func() {
		ctx, stop := context.WithCancel(e.ctx)
		defer stop()
		if !s.elicit.waiting(ss, eid, stop) {
			return
		}
		res, err := ss.Elicit(ctx, params)
		if ctx.Err() != nil && e.ctx.Err() == nil {
			return // the turn is over or replaced: its answer no longer matters
		}
		s.elicitAnswered(e.ctx, ss, rt, eid, res, err)
	})
	return ok, nil, ""
}

// elicitAnswered records the client's answer to elicitation eid; a
// decline declines its offer for the User.
func (s *Server) elicitAnswered(ctx context.Context, ss *mcp.ServerSession, rt Runtime, eid string, res *mcp.ElicitResult, err error) {
	action := ElicitFailed
	if err == nil && res != nil {
		switch res.Action {
		case ElicitAccept, ElicitDecline, ElicitCancel:
			action = res.Action
		}
	}
	s.elicit.mu.Lock()
	se := s.elicit.by[ss]
	if se == nil || se.id != eid {
		s.elicit.mu.Unlock()
		return
	}
	se.action = action
	offer := se.offer
	d, canDecline := rt.(decliner)
	decline := action == ElicitDecline && canDecline && !se.done
	se.declining = decline
	s.elicit.mu.Unlock()
	if err != nil {
		s.opts.Logger.Info("URL elicitation for an offer failed", "offer", offer, "err", err)
	}
	if !decline {
		return
	}
	derr := d.DeclineOffer(ctx, offer, "")
	s.elicit.mu.Lock()
	se.declining = false
	if derr == nil {
		se.done = true // the client knows: no complete to send
	}
	s.elicit.mu.Unlock()
}

// elicitState is the calling session's latest elicitation, or nil.
func (s *Server) elicitState(ss *mcp.ServerSession) *Elicitation {
	s.elicit.mu.Lock()
	defer s.elicit.mu.Unlock()
	se := s.elicit.by[ss]
	if se == nil {
		return nil
	}
	return &Elicitation{Offer: se.offer, Action: se.action}
}

// begin records the elicitation eid of offer as the session's latest; a
// nonce says it travels in an input-required result (its requestState's).
func (el *elicits) begin(ss *mcp.ServerSession, offer, eid string, nonce []byte) {
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.by == nil {
		el.by = map[*mcp.ServerSession]*sessionElicit{}
	}
	prev := el.by[ss]
	if prev != nil && prev.stop != nil {
		prev.stop()
	}
	el.by[ss] = &sessionElicit{offer: offer, id: eid, action: ElicitPending, watching: prev != nil && prev.watching,
		stateless: nonce != nil, nonce: nonce}
}

// waiting records stop as the way to end the request of elicitation eid;
// it reports false (and stops it) when eid is no longer the session's
// current and open one.
func (el *elicits) waiting(ss *mcp.ServerSession, eid string, stop context.CancelFunc) bool {
	el.mu.Lock()
	defer el.mu.Unlock()
	se := el.by[ss]
	if se == nil || se.id != eid || se.done {
		stop()
		return false
	}
	se.stop = stop
	return true
}

// watchElicits starts, once per session, the watch that sends
// notifications/elicitation/complete when an elicited offer's turn is
// over: handed back, cancelled, declined in another channel, or replaced
// by a newer offer. It ends with the session.
func (s *Server) watchElicits(e *entry, ss *mcp.ServerSession, g *gate.Gate) {
	s.elicit.mu.Lock()
	se := s.elicit.by[ss]
	if se == nil || se.watching {
		s.elicit.mu.Unlock()
		return
	}
	se.watching = true
	s.elicit.mu.Unlock()
	stop := control.Watch(e.ctx, g.Control(), func(ev control.Event) {
		if ev.Offer == nil {
			return
		}
		s.elicit.mu.Lock()
		cur := s.elicit.by[ss]
		over := false
		if cur != nil && !cur.done {
			switch ev.Kind {
			case control.Declined:
				over = ev.Offer.ID == cur.offer && !cur.declining
			case control.HandedBack, control.Cancelled:
				over = ev.Offer.ID == cur.offer
			case control.Offered:
				over = ev.Offer.ID != cur.offer
			}
		}
		var id string
		notify := false
		if over {
			cur.done, id, notify = true, cur.id, !cur.stateless
			if cur.stop != nil {
				cur.stop()
			}
		}
		s.elicit.mu.Unlock()
		if notify {
			// A client that has gone only misses the notice.
			_ = ss.NotifyElicitationComplete(e.ctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
		}
	})
	if !s.reg.goOwned("watching an MCP session's elicitations", func() {
		<-e.ctx.Done()
		stop()
		s.elicit.mu.Lock()
		delete(s.elicit.by, ss)
		s.elicit.mu.Unlock()
	}) {
		stop()
	}
}

// newElicitationID is a fresh elicitationId.
func newElicitationID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "poppy-" + hex.EncodeToString(b)
}

// reachedMessage says which of the User's channels an offer reached, for
// the model: the channels' names only, never a link. With none, it says
// where the User's way in is: over HTTP the session's live view (its
// address is on the server's stderr), since live-link reads the URL file
// that only a stdio runtime writes.
func reachedMessage(reached []string, overHTTP bool) string {
	if len(reached) == 0 {
		if overHTTP {
			return " No channel of the User's was reached by this server (no URL elicitation, MCP App or --on-offer): the User takes it in this session's live view, whose address the server printed on its stderr (\"live view for the User of MCP session ...\"), or the operator adds --on-offer to send the User a link; or show them the offer yourself."
		}
		return " It reached none of the User's channels: tell them to run poppy-browser live-link, or show them the offer."
	}
	return fmt.Sprintf(" It reached the User by: %v.", reached)
}

// reachUser brings the offer of res to the User through this client where
// it can (a URL elicitation) and says in the result which channels it
// reached. Over protocol 2026-07-28 with a URL elicitation the answer is
// an input-required result; the retry carrying the client's answer gets
// res (offerRetry).
func (s *Server) reachUser(req *mcp.CallToolRequest, res OfferResult) any {
	rt := s.runtimeOf(req.Session)
	reached := append([]string{}, offerChannelsOf(rt)...)
	sent, input, state := s.elicitOffer(req, res.Offer.Offer)
	if sent {
		reached = append(reached, ReachedElicitation)
	}
	meta := s.appMeta(req, res.Offer.ID)
	if meta != nil {
		reached = append(reached, ReachedApp)
	}
	res.Offer.Reached = reached
	res.Message += reachedMessage(reached, s.overHTTP)
	if input == nil {
		if meta == nil {
			return res
		}
		r, err := resultWithMeta(res, meta)
		if err != nil {
			return res
		}
		return r
	}
	s.elicit.mu.Lock()
	if se := s.elicit.by[req.Session]; se != nil && se.offer == res.Offer.ID && se.stateless {
		se.result, se.meta = res, meta
	}
	s.elicit.mu.Unlock()
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{elicitInputKey: input}, RequestState: state}
}
