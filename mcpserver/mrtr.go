package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Multi round-trip requests (protocol 2026-07-28): an offer's URL
// elicitation travels in an input-required result, and the client answers
// by retrying the call with the result's requestState. The state is
// opaque, authenticated and single-use: a retry proves it answers the
// input this server asked of this session for its open offer, once.

// requestStates mints and checks the requestState of input-required
// results. Its key is random for each Server (each runtime process), so a
// state never outlives it and no client can make one.
type requestStates struct{ key [32]byte }

// requestNonceLen is the size of a state's random part.
const requestNonceLen = 16

func newRequestStates() *requestStates {
	var s requestStates
	_, _ = rand.Read(s.key[:]) // crypto/rand.Read never fails
	return &s
}

// mac is the state's tag: HMAC-SHA256 over the session, the offer and the
// nonce, each length-prefixed so no two inputs read the same.
func (s *requestStates) mac(session, offer string, nonce []byte) []byte {
	m := hmac.New(sha256.New, s.key[:])
	for _, part := range [][]byte{[]byte("poppy-browser requestState v1"), []byte(session), []byte(offer), nonce} {
		n := len(part)
		m.Write([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
		m.Write(part)
	}
	return m.Sum(nil)
}

// mint is a fresh state for offer in session, and its nonce (kept by the
// caller to spend it once). The state is the nonce and the tag, in
// base64url: neither the session nor the offer is in it.
func (s *requestStates) mint(session, offer string) (state string, nonce []byte) {
	nonce = make([]byte, requestNonceLen)
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(append(slices.Clone(nonce), s.mac(session, offer, nonce)...)), nonce
}

// verify reports whether state is the one minted for offer in session
// with nonce: a state of another session, another offer, an older round,
// or altered in any byte is not.
func (s *requestStates) verify(state, session, offer string, nonce []byte) bool {
	b, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(b) != requestNonceLen+sha256.Size || len(nonce) != requestNonceLen {
		return false
	}
	got, tag := b[:requestNonceLen], b[requestNonceLen:]
	return hmac.Equal(got, nonce) && hmac.Equal(tag, s.mac(session, offer, got))
}

// negotiatedVersion is the protocol revision the calling session agreed
// with this server, which decides how an elicitation travels: a request
// of the sessionless revision (2026-07-28) names its version in _meta,
// which the SDK refuses unless this server supports it; any other session
// ran initialize, whose params clampInitialize has set to the version
// negotiated there.
func negotiatedVersion(req *mcp.CallToolRequest) string {
	if req.Params != nil {
		if v, ok := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion].(string); ok && v != "" {
			return v
		}
	}
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil {
			return p.ProtocolVersion
		}
	}
	return ""
}

// clampInitialize sets the protocol version of an initialize request to
// the version the handshake negotiates, before the SDK records it. The
// handshake never negotiates the sessionless revision (2026-07-28 has no
// initialize) and answers with the newest older one; but the SDK keeps the
// version the client asked for, and reads it to decide whether the session
// may receive server-initiated requests (elicitation/create) and whether
// a result is input-required. A client that asked for 2026-07-28 and
// agreed to 2025-11-25 is a 2025-11-25 session everywhere.
func clampInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.InitializeParams); ok && method == "initialize" && p != nil && p.ProtocolVersion >= protocolStateless {
			for _, v := range mcp.SupportedProtocolVersions() { // newest first
				if v < protocolStateless {
					p.ProtocolVersion = v
					break
				}
			}
		}
		return next(ctx, method, req)
	}
}

// The verdicts on a retry's requestState (elicitRetry).
type retryVerdict int

const (
	retryTaken   retryVerdict = iota // this session's open round, answered now
	retryUnknown                     // not a state this server gave this session for its open offer
	retrySpent                       // that round was answered already
)

// elicitRetry handles the retry of browser_request_user_control that
// carries the client's answer to the input-required result (protocol
// 2026-07-28): when its requestState is this session's open round, not
// yet answered, it spends the state, records the answer and returns the
// offer it was for.
func (s *Server) elicitRetry(ctx context.Context, req *mcp.CallToolRequest) (offer string, verdict retryVerdict) {
	ss := req.Session
	e := s.reg.lookup(ss)
	if e == nil {
		return "", retryUnknown
	}
	s.elicit.mu.Lock()
	se := s.elicit.by[ss]
	verdict = retryUnknown
	var eid string
	if se != nil && se.nonce != nil && s.states.verify(req.Params.RequestState, e.id, se.offer, se.nonce) {
		verdict = retrySpent
		if !se.spent {
			se.spent, verdict = true, retryTaken
			offer, eid = se.offer, se.id
		}
	}
	s.elicit.mu.Unlock()
	if verdict != retryTaken {
		return "", verdict
	}
	var res *mcp.ElicitResult
	var err error
	if r, isElicit := req.Params.InputResponses[elicitInputKey].(*mcp.ElicitResult); isElicit && r != nil {
		res = r
	} else {
		err = errors.New("no answer to the elicitation")
	}
	s.elicitAnswered(ctx, ss, s.runtimeOf(ss), eid, res, err)
	return offer, retryTaken
}

// offerRetry answers the retry of browser_request_user_control that
// carries the client's answer to its URL elicitation (protocol
// 2026-07-28): the offer's result, with that answer.
func (s *Server) offerRetry(ctx context.Context, req *mcp.CallToolRequest) (any, bool) {
	switch _, v := s.elicitRetry(ctx, req); v {
	case retrySpent:
		return OfferResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadRequestState,
			Message: "This requestState was answered already: each is single-use. browser_control_status shows the offer and the User's answer; call browser_request_user_control again (without inputResponses) for a new offer."}, true
	case retryUnknown:
		return OfferResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadRequestState,
			Message: "This retry's requestState is not one this server gave this session for its open offer (altered, of another session, or of a replaced offer); call browser_request_user_control again without inputResponses."}, true
	}
	s.elicit.mu.Lock()
	se := s.elicit.by[req.Session]
	if se == nil { // the session ended meanwhile
		s.elicit.mu.Unlock()
		return OfferResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBrowserUnavailable, Message: "This MCP session has ended."}, true
	}
	res, meta := se.result, se.meta
	state := &Elicitation{Offer: se.offer, Action: se.action}
	s.elicit.mu.Unlock()
	res.Elicitation = state
	switch state.Action {
	case ElicitDecline:
		res.Message = "The User declined the offer of control in their MCP client; you hold control and the step stays undone. Do not do it for them."
	case ElicitCancel:
		res.Message += " The User dismissed the link in their MCP client; the offer stays open on their other channels."
	}
	if meta != nil && state.Action != ElicitDecline {
		if r, err := resultWithMeta(res, meta); err == nil {
			return r, false
		}
	}
	return res, false
}
