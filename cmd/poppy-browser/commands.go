package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/testsite"
)

func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package would print a parse error and main prints it again:
	// keep its own output quiet; --help still prints the usage.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: poppy-browser %s\n\nflags:\n", synopsis)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", "mcp --company DOMAIN|URL [flags]", stderr)
	var cfg config
	cfg.register(fs)
	cfg.registerCompany(fs)
	httpAddr := fs.String("http", "", "serve MCP over Streamable HTTP on this address (give a loopback one) instead of stdio; every request needs the header Authorization: Bearer TOKEN, the token printed on stderr or set in POPPY_MCP_TOKEN")
	tui := fs.Bool("tui", false, "show the User's terminal UI on the controlling terminal (/dev/tty), beside the MCP transport")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.Company == "" {
		return usageErrorf("mcp: --company is required")
	}
	cfg.UserMessages = stderr
	sv, err := cfg.start(ctx)
	if err != nil {
		return err
	}
	defer sv.Close()
	srv := mcpserver.New(sv.Gate(), nil)
	ctx, stop := startUserSide(ctx, sv, srv, *tui, false, stderr)
	defer stop()
	if *httpAddr != "" {
		return serveMCPHTTP(ctx, srv, *httpAddr, stderr)
	}
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: writeCloser{stdout}})
}

func serveMCPHTTP(ctx context.Context, srv *mcp.Server, addr string, stderr io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return serveMCPListener(ctx, srv, l, stderr)
}

// serveMCPListener serves MCP over Streamable HTTP on l. Every request must
// carry the run's bearer token (POPPY_MCP_TOKEN, or a random one shown once
// on stderr) and no foreign Origin: a page in any browser on this machine
// must not drive the agent's browser. The go-sdk also refuses a non-loopback
// Host on a loopback listener (DNS rebinding).
func serveMCPListener(ctx context.Context, srv *mcp.Server, l net.Listener, stderr io.Writer) error {
	token := os.Getenv("POPPY_MCP_TOKEN")
	shown := "$POPPY_MCP_TOKEN" // a token the User set is theirs: never printed
	if token == "" {
		var err error
		if token, err = randomToken(); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		shown = token
	}
	warnIfExposed(stderr, "--http", l.Addr().String())
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := &http.Server{Handler: requireBearer(token, http.NewCrossOriginProtection().Handler(h)), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "MCP (Streamable HTTP) at http://%s/ with the header: Authorization: Bearer %s\n", l.Addr(), shown)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// requireBearer lets through only requests that carry the token. The
// scheme name is case-insensitive (RFC 9110, section 11.1).
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(cred)), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
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

func runTestsite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("testsite", "testsite [--addr ADDR]", stderr)
	addr := fs.String("addr", "127.0.0.1:8443", "listen address (keep it on loopback)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	site, err := testsite.New(&testsite.Options{Logger: slog.New(slog.NewTextHandler(stderr, nil))})
	if err != nil {
		return err
	}
	if err := site.Start(*addr); err != nil {
		return err
	}
	defer site.Close()
	fmt.Fprintf(stdout, "demo airline on https://%s (hosts %v)\n", site.Addr(), testsite.Hosts())
	fmt.Fprintln(stdout, "point a browser at it with these flags:")
	for _, a := range site.BrowserArgs() {
		fmt.Fprintf(stdout, "  --browser-arg=%q\n", a)
	}
	<-ctx.Done()
	return nil
}

// startDemoSite serves the demo airline on loopback, trusting a fresh demo
// signing key, and returns the Personal Agent's signer for it.
func startDemoSite() (*testsite.Site, *session.KeySigner, error) {
	signer, pub, err := session.NewDemoSigner()
	if err != nil {
		return nil, nil, err
	}
	site, err := testsite.New(&testsite.Options{TrustedKeys: []ed25519.PublicKey{pub}})
	if err != nil {
		return nil, nil, err
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	return site, signer, nil
}

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
