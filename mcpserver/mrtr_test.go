package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/spec"
)

// tapTransport is a client transport that keeps every message the client
// reads, as bytes, and may rewrite the protocol version the client asks
// for in initialize (as a client of another SDK would ask).
type tapTransport struct {
	mcp.Transport
	askVersion string // "" leaves initialize alone

	mu       sync.Mutex
	read     []string
	requests []string // the methods of the requests and notifications read
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, t: t}, nil
}

// received says whether the server sent the client a request or
// notification of method.
func (t *tapTransport) received(method string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Contains(t.requests, method)
}

func (t *tapTransport) bytes() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.read, "\n")
}

type tapConn struct {
	mcp.Connection
	t *tapTransport
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err == nil {
		b, _ := jsonrpc.EncodeMessage(m)
		c.t.mu.Lock()
		c.t.read = append(c.t.read, string(b))
		if r, ok := m.(*jsonrpc.Request); ok {
			c.t.requests = append(c.t.requests, r.Method)
		}
		c.t.mu.Unlock()
	}
	return m, err
}

func (c *tapConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "initialize" && c.t.askVersion != "" {
		var p map[string]any
		if err := json.Unmarshal(r.Params, &p); err == nil {
			p["protocolVersion"] = c.t.askVersion
			r.Params, _ = json.Marshal(p)
		}
	}
	return c.Connection.Write(ctx, m)
}

// mrtrClient is a go-sdk client declaring URL elicitation, connected over
// in-memory transports to srv at version, its bytes tapped. With manual
// set it answers input-required results itself (the SDK's retry loop is
// off); elicitations the server sends as requests are answered accept.
type mrtrClient struct {
	cs    *mcp.ClientSession
	ss    *mcp.ServerSession // its session on the server
	tap   *tapTransport
	asked chan *mcp.ElicitParams
}

func connectMRTR(t *testing.T, ctx context.Context, srv *Server, version, askVersion string, manual bool) *mrtrClient {
	t.Helper()
	c := &mrtrClient{asked: make(chan *mcp.ElicitParams, 8)}
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.asked <- req.Params
			return &mcp.ElicitResult{Action: ElicitAccept}, nil
		},
	}
	if manual {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c.tap = &tapTransport{Transport: ct, askVersion: askVersion}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mrtr", Version: "v0"}, opts).Connect(ctx, c.tap, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	c.cs, c.ss = cs, ss
	return c
}

// offer asks for the User and returns the raw result.
func (c *mrtrClient) offer(t *testing.T, ctx context.Context) *mcp.CallToolResult {
	t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolRequestUserControl, Arguments: map[string]any{"reason": "check in yourself"}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// retry answers an input-required result with action and state.
func (c *mrtrClient) retry(t *testing.T, ctx context.Context, state, action string) OfferResult {
	t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolRequestUserControl,
		Arguments:      map[string]any{"reason": "check in yourself"},
		InputResponses: mcp.InputResponseMap{elicitInputKey: &mcp.ElicitResult{Action: action}},
		RequestState:   state})
	if err != nil {
		t.Fatal(err)
	}
	var out OfferResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("retry: %v in %s", err, b)
	}
	return out
}

func (c *mrtrClient) status(t *testing.T, ctx context.Context) ControlStatus {
	t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolControlStatus})
	if err != nil {
		t.Fatal(err)
	}
	var st ControlStatus
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &st)
	return st
}

func linkedServer(t *testing.T) (*Server, *fakeRuntimes) {
	rts := newFakeRuntimes()
	srv := NewServer(func(ctx context.Context, id string) (Runtime, error) {
		rt, err := rts.open(ctx, id)
		return linkedRuntime{rt.(fakeRuntime)}, err
	}, nil)
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	return srv, rts
}

// TestRequestStateSingleUseAndOpaque: over 2026-07-28 an offer's URL
// elicitation is an input-required result whose requestState names
// neither the offer nor an elicitation id, and whose input request has no
// elicitationId; the retry with it is answered once; the same retry again,
// the state altered in any byte, a state made up, and another session's
// state are refused (failed, bad_request_state), and the answer stands.
// When the User's turn ends, no notifications/elicitation/complete
// reaches the client.
func TestRequestStateSingleUseAndOpaque(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	srv, rts := linkedServer(t)
	c := connectMRTR(t, ctx, srv, "2026-07-28", "", true)
	res := c.offer(t, ctx)
	fx := rts.fixture(sessionOf(t, srv, c)) // before another in-memory session (its id is "" too) opens
	other := connectMRTR(t, ctx, srv, "2026-07-28", "", true)

	in, ok := res.InputRequests[elicitInputKey].(*mcp.ElicitParams)
	if !res.NeedsInput() || !ok || res.RequestState == "" {
		b, _ := json.Marshal(res)
		t.Fatalf("offer over 2026-07-28: want an input-required result with a requestState, got %s", b)
	}
	if in.Mode != "url" || in.URL != secretLink || in.ElicitationID != "" {
		t.Errorf("input request = %+v, want a url elicitation without elicitationId", in)
	}
	state := res.RequestState
	st := c.status(t, ctx)
	if st.Offer == nil {
		t.Fatalf("status after the offer: %+v", st)
	}
	offerID := st.Offer.ID
	if strings.Contains(state, offerID) || strings.Contains(state, base64.RawURLEncoding.EncodeToString([]byte(offerID))) ||
		strings.Contains(state, "poppy-") {
		t.Errorf("requestState %q holds the offer %s or an elicitation id in clear", state, offerID)
	}

	// Another session's state, for its own offer, is refused here.
	ores := other.offer(t, ctx)
	if !ores.NeedsInput() {
		t.Fatal("the other session's offer needs no input")
	}
	refused := func(what string, got OfferResult) {
		t.Helper()
		if got.Outcome != spec.OutcomeFailed || got.Reason != spec.ReasonBadRequestState || got.Message == "" {
			t.Errorf("%s: outcome %s reason %s (%q), want failed/bad_request_state", what, got.Outcome, got.Reason, got.Message)
		}
	}
	refused("another session's state", c.retry(t, ctx, ores.RequestState, ElicitDecline))
	altered := []byte(state)
	altered[len(altered)/2] ^= 1
	if altered[len(altered)/2] == '-'^1 || altered[len(altered)/2] == '_'^1 {
		altered[len(altered)/2] = 'A'
	}
	refused("an altered state", c.retry(t, ctx, string(altered), ElicitDecline))
	refused("a made-up state", c.retry(t, ctx, base64.RawURLEncoding.EncodeToString(make([]byte, 48)), ElicitDecline))
	refused("a state that is the offer id", c.retry(t, ctx, offerID, ElicitDecline))
	if st := c.status(t, ctx); st.Elicitation == nil || st.Elicitation.Action != ElicitPending || st.Offer == nil {
		t.Fatalf("a refused retry changed the elicitation: %+v", st)
	}

	got := c.retry(t, ctx, state, ElicitAccept)
	if got.Outcome != spec.OutcomeDone || got.Elicitation == nil || got.Elicitation.Action != ElicitAccept || got.Offer == nil || got.Offer.ID != offerID {
		t.Fatalf("the retry: %+v", got)
	}
	refused("the same retry again", c.retry(t, ctx, state, ElicitDecline))
	if st := c.status(t, ctx); st.Elicitation == nil || st.Elicitation.Action != ElicitAccept || st.Declined != nil || st.Offer == nil {
		t.Fatalf("a replayed retry changed the answer: %+v", st)
	}

	// The User's turn, taken and handed back: nothing tells the client.
	if err := fx.Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fx.Control.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "the elicitation is over", func() bool {
		srv.elicit.mu.Lock()
		defer srv.elicit.mu.Unlock()
		se := srv.elicit.by[c.ss]
		return se != nil && se.offer == offerID && se.done
	})
	c.status(t, ctx) // a round trip after the watch's turn
	if b := c.tap.bytes(); c.tap.received("notifications/elicitation/complete") || strings.Contains(b, "elicitationId") {
		t.Errorf("over 2026-07-28 the client read an elicitationId or a complete notification: %.400s", b)
	}
	if b := c.tap.bytes(); !strings.Contains(b, "requestState") {
		t.Errorf("the tap saw no requestState: it recorded nothing")
	}
}

// sessionOf is the runtime id of the client's session on srv.
func sessionOf(t *testing.T, srv *Server, c *mrtrClient) string {
	t.Helper()
	e := srv.reg.lookup(c.ss)
	if e == nil {
		t.Fatal("no session for the client")
	}
	return e.id
}

// TestNegotiatedVersionDecides: a client that asks for 2026-07-28 in
// initialize agrees to 2025-11-25, and is served as such: the offer's URL
// elicitation is an elicitation/create request with an elicitationId, and
// the tool result is a plain result, never input-required. A client
// that negotiated 2026-07-28 gets the input-required result.
func TestNegotiatedVersionDecides(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	srv, _ := linkedServer(t)

	down := connectMRTR(t, ctx, srv, "2025-11-25", "2026-07-28", false)
	if v := down.cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s, want 2025-11-25", v)
	}
	res := down.offer(t, ctx)
	if res.NeedsInput() || res.RequestState != "" || res.InputRequests != nil {
		b, _ := json.Marshal(res)
		t.Fatalf("a 2025-11-25 session got an input-required result: %s", b)
	}
	var asked *mcp.ElicitParams
	select {
	case asked = <-down.asked:
	case <-ctx.Done():
		t.Fatal("no elicitation/create reached the client")
	}
	if asked.Mode != "url" || asked.ElicitationID == "" || asked.URL != secretLink {
		t.Errorf("elicitation/create = %+v, want url mode with an elicitationId", asked)
	}
	if b := down.tap.bytes(); !down.tap.received("elicitation/create") || strings.Contains(b, "inputRequests") || strings.Contains(b, "input_required") {
		t.Errorf("the 2025-11-25 session's bytes: %.600s", b)
	}

	up := connectMRTR(t, ctx, srv, "2026-07-28", "", true)
	if res := up.offer(t, ctx); !res.NeedsInput() || res.RequestState == "" {
		b, _ := json.Marshal(res)
		t.Fatalf("a 2026-07-28 session: want input-required, got %s", b)
	}
	if up.tap.received("elicitation/create") {
		t.Errorf("a 2026-07-28 session was sent elicitation/create")
	}
}

// TestRequestStateTamper: a state verifies only for its session, offer
// and nonce, and not after any change of a byte.
func TestRequestStateTamper(t *testing.T) {
	s := newRequestStates()
	state, nonce := s.mint("sess-1", "offer-1")
	if !s.verify(state, "sess-1", "offer-1", nonce) {
		t.Fatal("a fresh state does not verify")
	}
	b, _ := base64.RawURLEncoding.DecodeString(state)
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x80
		if s.verify(base64.RawURLEncoding.EncodeToString(c), "sess-1", "offer-1", nonce) {
			t.Fatalf("a state with byte %d changed verifies", i)
		}
	}
	for _, c := range []struct{ state, session, offer string }{
		{state, "sess-2", "offer-1"},
		{state, "sess-1", "offer-2"},
		{state + "A", "sess-1", "offer-1"},
		{"", "sess-1", "offer-1"},
		{"not base64!", "sess-1", "offer-1"},
	} {
		if s.verify(c.state, c.session, c.offer, nonce) {
			t.Errorf("verify(%q, %s, %s) = true", c.state, c.session, c.offer)
		}
	}
	if other := newRequestStates(); other.verify(state, "sess-1", "offer-1", nonce) {
		t.Error("another server's key verifies the state")
	}
	if _, n2 := s.mint("sess-1", "offer-1"); s.verify(state, "sess-1", "offer-1", n2) {
		t.Error("an older round's state verifies for the newer round")
	}
}
