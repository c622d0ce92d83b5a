package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/poppy-browser/poppy-browser/internal/loopback"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/poppy-browser/poppy-browser/oauth"
)

// HTTPOptions configures [Server.ServeHTTP].
type HTTPOptions struct {
	// Token is the bearer token every request must carry. "" means a
	// random one, shown once on Messages.
	Token string
	// TokenFromEnv says Token was set by the User (POPPY_MCP_TOKEN): it is
	// theirs and never printed; Messages names the variable instead.
	TokenFromEnv string
	// Messages is where the address, the token and warnings go (stderr).
	// Nil means nowhere.
	Messages io.Writer
	// Ready is what GET /readyz asks besides room for a session: a
	// browser is attached or can be. Nil means always.
	Ready func() bool
	// Collectors are more metrics for GET /metrics (the browser's).
	Collectors []prometheus.Collector
	// IdleTimeout closes a keep-alive connection idle this long between
	// requests. Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Auth, when set, makes the endpoint an OAuth 2.1 resource server
	// (httpauth.go): every request but /healthz, /readyz, the live views
	// and the Protected Resource Metadata needs an access token it
	// verifies, and each MCP session belongs to the subject of the token
	// that began it. Token and TokenFromEnv must then be empty: no static
	// token is accepted. Nil means the static token.
	Auth *oauth.ResourceServer
	// Live, when set, serves every request whose path starts with /live/
	// (the live views of the sessions, ui.Router), ahead of MCP's Origin
	// and token checks: it applies the live view's own.
	Live http.Handler
}

// InstanceHeader is the response header naming the runtime instance
// (Options.Instance); the live view sets the same.
const InstanceHeader = "Poppy-Instance"

// DefaultReadHeaderTimeout bounds reading a request's headers, from the
// connection's start: a connection that sends nothing is closed after it.
const DefaultReadHeaderTimeout = 10 * time.Second

// DefaultIdleTimeout is [HTTPOptions.IdleTimeout]'s default.
const DefaultIdleTimeout = 60 * time.Second

// sessionHeader is the Streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

// ServeHTTP serves s over Streamable HTTP on l until ctx ends. Every
// request must carry no foreign Origin (checked first: 403, whatever the
// method) and the bearer token (401): a page in any browser on this
// machine must not drive the agent's browser (the go-sdk also refuses a
// non-loopback Host on a loopback listener, against DNS rebinding). A
// refused connection is closed after its answer; a connection sends its
// headers within [DefaultReadHeaderTimeout] and is closed after
// HTTPOptions.IdleTimeout idle between requests. At most Options.MaxSessions sessions are open at once, each
// with its own runtime; an initialize beyond is answered with a JSON-RPC
// error (CodeTooManySessions) that names the cap. A session with no request for
// Options.SessionIdle ends (its runtime first, recorded as "idle"), and a
// DELETE ends a session's calls in flight before the session. GET
// /healthz and /readyz answer without the token, GET /metrics with it.
func (s *Server) ServeHTTP(ctx context.Context, l net.Listener, o *HTTPOptions) (err error) {
	if o == nil {
		o = &HTTPOptions{}
	}
	msgs := o.Messages
	if msgs == nil {
		msgs = io.Discard
	}
	token, shown := o.Token, o.TokenFromEnv
	if o.Auth != nil && (token != "" || shown != "") {
		return errors.New("mcp: with --auth-issuer the endpoint takes OAuth access tokens only, not a static token (unset POPPY_MCP_TOKEN)")
	}
	if token == "" && o.Auth == nil {
		var err error
		if token, err = randomToken(); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		shown = token
	} else if shown == "" {
		shown = "(the token you set)"
	}
	WarnIfExposed(msgs, "--http", l.Addr().String())
	// A session's browser context opens at its first tool call: a bare
	// initialize costs no browser.
	s.reg.lazy = true
	s.overHTTP = true
	ctx, cancel := context.WithCancel(ctx)
	var owned sync.WaitGroup // the reaper and the shutdown, waited for below
	defer func() {
		cancel()
		owned.Wait()
		cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer stop()
		err = errors.Join(err, s.Close(cctx))
	}()
	if s.opts.SessionIdle > 0 || s.opts.FirstCallWithin > 0 {
		owned.Go(func() { s.reg.reapIdle(ctx, s.opts.SessionIdle, s.opts.FirstCallWithin) })
	}
	for _, c := range o.Collectors {
		if err := s.metrics.reg.Register(c); err != nil {
			return fmt.Errorf("mcp: metrics: %w", err)
		}
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	door := s.door(s.opts.Instance, o.Auth, sdk)
	var h, metricsAuth http.Handler
	if o.Auth != nil {
		h = s.recoverHTTP(closeRefused(protect(o.Auth, door)))
		metricsAuth = closeRefused(o.Auth.Middleware()(s.metricsHandler()))
	} else {
		h = s.recoverHTTP(requireBearer(token, door))
		metricsAuth = requireBearer(token, s.metricsHandler())
	}
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	// No ReadTimeout or WriteTimeout: a GET's event stream and a long
	// tool call (browser_wait_for_control) outlive any such bound.
	hs := &http.Server{Handler: instanceRoutes(s.opts.Instance, o.Live, refuseForeignOrigin(s.probes(metricsAuth, o.Ready, h))),
		ReadHeaderTimeout: DefaultReadHeaderTimeout, IdleTimeout: idle}
	if o.Auth != nil {
		fmt.Fprintf(msgs, "MCP (Streamable HTTP) at http://%s/ for OAuth access tokens of %s with the audience %s (metadata: %s)\n",
			l.Addr(), strings.Join(o.Auth.Metadata().AuthorizationServers, ", "), o.Auth.Audience(), o.Auth.MetadataURL())
	} else {
		fmt.Fprintf(msgs, "MCP (Streamable HTTP) at http://%s/ with the header: Authorization: Bearer %s\n", l.Addr(), shown)
	}
	owned.Go(func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		// The actions in flight stop first (failed, shutting_down), so
		// their requests answer and Shutdown need not wait for them.
		s.beginShutdown()
		s.reg.closeGates(sctx)
		_ = hs.Shutdown(sctx)
	})
	if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// door is what the server checks before the go-sdk sees a request: the
// session's owner (with OAuth, the subject of the token that began it),
// a call before initialize, activity, a DELETE's calls, and the responses
// of cancelled calls (dropped).
func (s *Server) door(instance string, rs *oauth.ResourceServer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionHeader)
		if id != "" {
			e := s.reg.lookupID(id)
			if e == nil {
				if instance != "" && !strings.HasPrefix(id, instance+".") {
					misdirected(w, instance)
					return
				}
				next.ServeHTTP(w, r)
				return
			}
			if !e.ownedBy(r) {
				refuseOtherSubject(w, rs)
				return
			}
			e.busy(0) // seen now
			switch r.Method {
			case http.MethodDelete:
				s.reg.end(r.Context(), e, EndClosed) // its calls stop before the SDK waits for them
			case http.MethodPost:
				body, ok := readBody(w, r)
				if !ok {
					return
				}
				calls := e.cancels.observe(body)
				defer e.cancels.done(calls)
				w = &dropCancelled{ResponseWriter: w, c: &e.cancels}
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		reqID, forSDK := firstCall(body)
		if !forSDK && r.Header.Get("Mcp-Protocol-Version") < "2026-07-28" {
			writeRPCError(w, http.StatusBadRequest, reqID, errNotInitialized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// instanceRoutes names the instance on every response and sends the live
// views' paths to live, the rest to next.
func instanceRoutes(instance string, live, next http.Handler) http.Handler {
	if instance == "" && live == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if instance != "" {
			w.Header().Set(InstanceHeader, instance)
		}
		if live != nil && strings.HasPrefix(r.URL.Path, "/live/") {
			live.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// misdirected answers a request for a session another runtime instance
// holds (its id names that instance): 421, so the proxy in front can be
// fixed; never a session of ours in its stead.
func misdirected(w http.ResponseWriter, instance string) {
	w.Header().Set("Connection", "close")
	http.Error(w, "misdirected request: this MCP session is not held by runtime instance "+instance+
		"; the reverse proxy must send a session's requests to the instance its Mcp-Session-Id names (before the dot)", http.StatusMisdirectedRequest)
}

// readBody reads a POST body (as bounded as the go-sdk does) and puts it
// back for the next handler.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusRequestEntityTooLarge)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// errNotInitialized answers a request without a session that is not an
// initialize (the go-sdk would answer with code 0).
var errNotInitialized = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the session is not initialized: send initialize first"}

// firstCall reads a POST body without a session: the ID of its first
// request, and whether the go-sdk should see it: an initialize, a
// server/discover, or a request of the sessionless protocol (its _meta
// names a protocol version), which the SDK answers itself (a stateful
// server tells such a client which versions it speaks). A batch counts by
// its first message.
func firstCall(body []byte) (id any, forSDK bool) {
	var one struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
			return nil, false
		}
		trimmed = batch[0]
	}
	if json.Unmarshal(trimmed, &one) != nil {
		return nil, false
	}
	_, sessionless := one.Params.Meta["io.modelcontextprotocol/protocolVersion"]
	return one.ID, one.Method == "initialize" || one.Method == "server/discover" || sessionless
}

func writeRPCError(w http.ResponseWriter, status int, id any, e *jsonrpc.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
}

// requireBearer lets through only requests that carry the token. The
// scheme name is case-insensitive (RFC 9110, section 11.1). A refused
// connection is closed after the answer, not kept alive.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(cred)), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.Header().Set("Connection", "close")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseForeignOrigin answers 403 to any request, whatever its method
// (a GET opening the event stream and a DELETE ending a session too) and
// before its token is looked at, that a browser sent from another origin:
// a Sec-Fetch-Site other than same-origin or none, or an Origin other than
// this server's own (http://HOST as the request names it; "null"
// included). A client that is not a browser sends neither and passes.
// The connection is closed after the answer.
func refuseForeignOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site := r.Header.Get("Sec-Fetch-Site")
		origin := r.Header.Get("Origin")
		foreign := site != "" && site != "same-origin" && site != "none"
		if origin != "" && !strings.EqualFold(origin, "http://"+r.Host) {
			foreign = true
		}
		if foreign {
			w.Header().Set("Connection", "close")
			http.Error(w, "cross-origin request refused", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// WarnIfExposed prints one loud line on w when addr (given to flag) is not
// a loopback address: the listener speaks plain HTTP, so anyone on that
// network can read its traffic, tokens included.
func WarnIfExposed(w io.Writer, flag, addr string) {
	if w == nil || addr == "" || loopback.Addr(addr) {
		return
	}
	fmt.Fprintf(w, "WARNING: %s listens on %s, not on loopback: this is plain HTTP, and anyone on that network can read it, tokens included\n", flag, addr)
}
