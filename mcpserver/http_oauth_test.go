package mcpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/oauth"
	"github.com/poppy-browser/poppy-browser/oauth/oauthtest"
)

// oauthServer is a Server over Streamable HTTP on loopback whose endpoint
// is an OAuth resource server trusting one test issuer, with the runtime
// of each session recording the subject it was opened for.
type oauthServer struct {
	endpoint string
	issuer   *oauthtest.Issuer
	rs       *oauth.ResourceServer
	stderr   *syncBuffer

	mu       sync.Mutex
	subjects map[string]oauth.Subject // session id -> the subject its runtime opened for
}

func serveOAuth(t *testing.T, ctx context.Context, scopes ...string) *oauthServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &oauthServer{endpoint: "http://" + l.Addr().String() + "/", issuer: oauthtest.New(t), stderr: &syncBuffer{},
		subjects: map[string]oauth.Subject{}}
	if o.rs, err = oauth.New(&oauth.Options{Issuers: []string{o.issuer.URL}, Audience: o.endpoint, Scopes: scopes}); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(func(ctx context.Context, id string) (Runtime, error) {
		sub, ok := SubjectOf(ctx)
		if !ok {
			t.Errorf("session %s opened without a subject", id)
		}
		o.mu.Lock()
		o.subjects[id] = sub
		o.mu.Unlock()
		return fixed{gatetest.New().Gate}, nil
	}, &Options{MaxSessions: -1})
	done := make(chan error, 1)
	sctx, stop := context.WithCancel(ctx)
	go func() { done <- srv.ServeHTTP(sctx, l, &HTTPOptions{Auth: o.rs, Messages: o.stderr}) }()
	t.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the HTTP server did not stop within 10s")
		}
	})
	waitUntil(t, ctx, "the endpoint is announced", func() bool { return strings.Contains(o.stderr.String(), "MCP (Streamable HTTP) at") })
	return o
}

func (o *oauthServer) token(sub string, scopes ...string) string {
	return o.issuer.Mint(oauthtest.Token{Sub: sub, Audience: o.endpoint, Scopes: scopes})
}

// connect is a go-sdk client whose every request carries the token
// token() gives at that moment.
func (o *oauthServer) connect(ctx context.Context, token func() string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: o.endpoint,
		HTTPClient: &http.Client{Transport: &oauthtest.Bearer{Token: token}}, MaxRetries: -1}, nil)
}

func (o *oauthServer) subjectOf(id string) oauth.Subject {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.subjects[id]
}

// do sends one request and returns its status, WWW-Authenticate and body.
func (o *oauthServer) do(t *testing.T, ctx context.Context, method, path, token, session, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(o.endpoint, "/")+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set(sessionHeader, session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

// TestOAuthRefusesBadTokens: an attacker's tokens never open a session:
// each gets 401 with WWW-Authenticate naming the resource metadata, the
// answer never repeats the token, and the static-token scheme is gone.
func TestOAuthRefusesBadTokens(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	o := serveOAuth(t, ctx)
	is := o.issuer
	is.AddKey("rogue", false)
	other := oauthtest.New(t)
	good := o.token("alice")
	wantChallenge := `Bearer resource_metadata="` + o.rs.MetadataURL() + `"`
	for _, tc := range []struct{ name, token string }{
		{"none", ""},
		{"expired", is.Mint(oauthtest.Token{Sub: "alice", Audience: o.endpoint, Expiry: time.Now().Add(-time.Hour)})},
		{"another audience", is.Mint(oauthtest.Token{Sub: "alice", Audience: "https://elsewhere.example/mcp"})},
		{"unknown key", is.Mint(oauthtest.Token{Sub: "alice", Audience: o.endpoint, KeyID: "rogue"})},
		{"alg none", is.Unsigned(oauthtest.Token{Sub: "alice", Audience: o.endpoint})},
		{"swapped sub", oauthtest.SwapSub(t, good, "bob")},
		{"another issuer", other.Mint(oauthtest.Token{Sub: "alice", Audience: o.endpoint})},
		{"a static token", "planted-static-token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, challenge, body := o.do(t, ctx, http.MethodPost, "/", tc.token, "", initializeBody)
			if status != http.StatusUnauthorized {
				t.Errorf("HTTP %d, want 401: %s", status, body)
			}
			if challenge != wantChallenge {
				t.Errorf("WWW-Authenticate %q, want %q", challenge, wantChallenge)
			}
			if tc.token != "" && strings.Contains(body, tc.token) {
				t.Error("the answer repeats the token")
			}
		})
	}
	if status, _, body := o.do(t, ctx, http.MethodPost, "/", good, "", initializeBody); status != http.StatusOK {
		t.Errorf("the good token: HTTP %d: %s", status, body)
	}
	if strings.Contains(o.stderr.String(), good[:20]) {
		t.Error("a token reached the server's messages")
	}
	// /metrics takes an access token too.
	if status, challenge, _ := o.do(t, ctx, http.MethodGet, "/metrics", "", "", ""); status != http.StatusUnauthorized || challenge != wantChallenge {
		t.Errorf("/metrics without a token: HTTP %d, %q", status, challenge)
	}
}

// TestOAuthProtectedResourceMetadata: the metadata a client discovers
// the issuer by is served without a token, at the URL the challenge names.
func TestOAuthProtectedResourceMetadata(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	o := serveOAuth(t, ctx, "poppy")
	meta, err := oauthex.GetProtectedResourceMetadata(ctx, o.rs.MetadataURL(), o.endpoint, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Resource != o.endpoint || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != o.issuer.URL ||
		len(meta.ScopesSupported) != 1 || meta.ScopesSupported[0] != "poppy" {
		t.Errorf("metadata %+v", meta)
	}
	// A token without the scope: 403 naming the scope it needs.
	status, challenge, _ := o.do(t, ctx, http.MethodPost, "/", o.token("alice"), "", initializeBody)
	if status != http.StatusForbidden || !strings.Contains(challenge, `scope="poppy"`) || !strings.Contains(challenge, "resource_metadata=") {
		t.Errorf("no scope: HTTP %d, %q", status, challenge)
	}
	if status, _, body := o.do(t, ctx, http.MethodPost, "/", o.token("alice", "poppy"), "", initializeBody); status != http.StatusOK {
		t.Errorf("with the scope: HTTP %d: %s", status, body)
	}
}

// TestOAuthSessionBelongsToItsSubject: two Users on one endpoint each get
// their own session, opened for their own subject; Bob holding Alice's
// session id can neither call in it, listen to it, nor end it, and Alice's
// client whose token turns into Bob's is refused in her own session.
func TestOAuthSessionBelongsToItsSubject(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	o := serveOAuth(t, ctx)
	aliceTok, bobTok := o.token("alice"), o.token("bob")
	var current atomic.Value
	current.Store(aliceTok)
	alice, err := o.connect(ctx, func() string { return current.Load().(string) })
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	bob, err := o.connect(ctx, func() string { return bobTok })
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	for _, cs := range []*mcp.ClientSession{alice, bob} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := o.subjectOf(alice.ID()); got != (oauth.Subject{Issuer: o.issuer.URL, Sub: "alice"}) {
		t.Errorf("Alice's session opened for %+v", got)
	}
	if got := o.subjectOf(bob.ID()); got.Sub != "bob" {
		t.Errorf("Bob's session opened for %+v", got)
	}

	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"browser_control_status","arguments":{}}}`
	cancelCall := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`
	for _, tc := range []struct{ name, method, body string }{
		{"a call", http.MethodPost, call},
		{"a cancellation", http.MethodPost, cancelCall},
		{"the event stream", http.MethodGet, ""},
		{"the end", http.MethodDelete, ""},
	} {
		status, challenge, body := o.do(t, ctx, tc.method, "/", bobTok, alice.ID(), tc.body)
		if status != http.StatusForbidden || !strings.Contains(challenge, "resource_metadata=") {
			t.Errorf("Bob's %s in Alice's session: HTTP %d, %q: %s", tc.name, status, challenge, body)
		}
	}
	// Alice's session is whole: her next call works.
	if _, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
		t.Fatalf("Alice's session after Bob's tries: %v", err)
	}
	// A valid token of another subject, mid-session: refused.
	current.Store(bobTok)
	if _, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err == nil {
		t.Error("Alice's session took a call with Bob's token")
	}

	// /metrics names the subjects by hash only.
	status, _, metrics := o.do(t, ctx, http.MethodGet, "/metrics", aliceTok, "", "")
	if status != http.StatusOK {
		t.Fatalf("/metrics: HTTP %d", status)
	}
	for _, sub := range []string{"alice", "bob"} {
		if !strings.Contains(metrics, `poppy_mcp_sessions_total{subject="`+oauth.SubjectHash(sub)+`"} 1`) {
			t.Errorf("/metrics does not count %s's session by its hash:\n%s", sub, grepLines(metrics, "poppy_mcp_sessions_total"))
		}
		if strings.Contains(metrics, `"`+sub+`"`) {
			t.Errorf("/metrics names %s", sub)
		}
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
