package ui

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

func TestRemoteServingNeedsTLSOrProxy(t *testing.T) {
	cert, key := selfSignedFiles(t)
	for _, tc := range []struct {
		name string
		addr string
		opts LiveOptions
		want string // part of the error; "" for none
	}{
		{"loopback", "127.0.0.1:0", LiveOptions{}, ""},
		{"default", "", LiveOptions{}, ""},
		{"localhost", "localhost:0", LiveOptions{}, ""},
		{"every interface, plain", "0.0.0.0:0", LiveOptions{}, "add --live-tls-cert and --live-tls-key, or --live-behind-proxy"},
		{"LAN address, plain", "192.168.1.5:8080", LiveOptions{}, "add --live-tls-cert"},
		{"every interface, TLS", "0.0.0.0:0", LiveOptions{TLSCert: cert, TLSKey: key}, ""},
		{"every interface, proxy", "0.0.0.0:0", LiveOptions{PublicURL: "https://agent.example.com"}, ""},
		{"cert without key", "0.0.0.0:0", LiveOptions{TLSCert: cert}, "both"},
		{"proxy over http", "0.0.0.0:0", LiveOptions{PublicURL: "http://agent.example.com"}, "public https origin"},
		{"proxy with a path", "0.0.0.0:0", LiveOptions{PublicURL: "https://agent.example.com/live"}, "public https origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newRemote(tc.addr, &tc.opts)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("error is more than one line: %q", err)
			}
		})
	}
}

// testTLSKey is the key of every test certificate; the shared Chromium
// trusts its public key (makeTestTLSKey's pin).
var testTLSKey *ecdsa.PrivateKey

// makeTestTLSKey makes testTLSKey and returns its SPKI pin for Chromium's
// --ignore-certificate-errors-spki-list.
func makeTestTLSKey() (string, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	spki, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return "", err
	}
	testTLSKey = k
	sum := sha256.Sum256(spki)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// selfSignedFiles writes a self-signed certificate for 127.0.0.1 and
// localhost and its key, returning their paths.
func selfSignedFiles(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	k := testTLSKey
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "poppy live view test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestLiveOverTLS: with a self-signed certificate the live view serves
// HTTPS, a link opens over it (no cookie: a login presented on the
// websocket), and the User takes and hands back over wss; the login ends
// with that turn.
func TestLiveOverTLS(t *testing.T) {
	ctx := testContext(t)
	certFile, keyFile := selfSignedFiles(t)
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, nil, func(l *Live) {
		r, err := newRemote("127.0.0.1:0", &LiveOptions{TLSCert: certFile, TLSKey: keyFile})
		if err != nil {
			t.Fatal(err)
		}
		l.remote = r
	})
	if !strings.HasPrefix(l.URL(), "https://") {
		t.Fatalf("URL %q is not https", l.URL())
	}
	pool := x509.NewCertPool()
	pemCert, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(pemCert)
	tlsConf := &tls.Config{RootCAs: pool}

	link, err := l.MintLink("", false)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConf}}
	resp, err := client.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 {
		t.Fatalf("link over TLS: %d, cookies %v, want 200 and none", resp.StatusCode, resp.Cookies())
	}
	status, login, _ := takeLink(ctx, t, client, link.URL)
	if status != http.StatusOK || login == "" {
		t.Fatalf("taking the link over TLS = %d, want 200 and a login", status)
	}

	d := &websocket.Dialer{TLSClientConfig: tlsConf}
	c, wsResp, err := dialLogin(ctx, l, d, login)
	if err != nil {
		t.Fatalf("wss with the login: %v (%v)", err, wsResp)
	}
	defer c.Close()
	if c.Subprotocol() != viewerProtocol {
		t.Errorf("the websocket's subprotocol = %q, want %q (never the secret)", c.Subprotocol(), viewerProtocol)
	}
	send(t, c, map[string]string{"type": "take"})
	poll(ctx, t, "the User's take over wss", func() bool { return ctl.Holder() == spec.ControllerUser })
	send(t, c, map[string]string{"type": "hand_back", "text": "done over TLS"})
	poll(ctx, t, "the hand back over wss", func() bool { return ctl.Holder() == spec.ControllerAgent })
	if m := ctl.Status().UserMessage; m != "done over TLS" {
		t.Errorf("the User's message = %q", m)
	}
	if m := awaitType(ctx, t, c, "ended"); !strings.Contains(m.Message, "new link") {
		t.Errorf("the login's end = %+v, want it says a new link is needed", m)
	}
	if c2, r, err := dialLogin(ctx, l, d, login); err == nil || r == nil || r.StatusCode != http.StatusForbidden {
		if c2 != nil {
			c2.Close()
		}
		t.Errorf("the login after its turn ended = %v %v, want 403", r, err)
	}
	// Plain HTTP to the TLS port gets nothing useful.
	if r, err := http.Get("http://" + liveAddr(l) + "/live?token=" + l.token.Reveal()); err == nil {
		r.Body.Close()
		if r.StatusCode == http.StatusOK {
			t.Error("plain HTTP to the TLS live view was served")
		}
	}
}

// TestLiveBehindProxy: behind a reverse proxy (httputil.ReverseProxy over
// TLS, the Host passed on) links name the proxy's origin; the page and the
// websocket work through it with the public Origin; a forged Origin and a
// request that goes around the proxy are refused.
func TestLiveBehindProxy(t *testing.T) {
	ctx := testContext(t)
	var backend atomic.Pointer[url.URL]
	proxy := httptest.NewUnstartedServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(backend.Load())
		pr.Out.Host = pr.In.Host // as nginx's proxy_set_header Host $host
	}})
	proxy.StartTLS()
	defer proxy.Close()
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, nil, func(l *Live) {
		r, err := newRemote("127.0.0.1:0", &LiveOptions{PublicURL: proxy.URL})
		if err != nil {
			t.Fatal(err)
		}
		l.remote = r
	})
	backend.Store(&url.URL{Scheme: "http", Host: liveAddr(l)})
	if !strings.HasPrefix(l.URL(), proxy.URL+"/live?") {
		t.Fatalf("URL %q does not name the proxy's origin %s", l.URL(), proxy.URL)
	}
	link, err := l.MintLink("", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link.URL, proxy.URL+"/live/link/") {
		t.Fatalf("link %q does not name the proxy's origin", link.URL)
	}
	tlsConf := proxy.Client().Transport.(*http.Transport).TLSClientConfig
	resp, err := proxy.Client().Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("link through the proxy = %d, want 200", resp.StatusCode)
	}
	if status, login, _ := takeLink(ctx, t, proxy.Client(), link.URL); status != http.StatusOK || login == "" {
		t.Fatalf("taking the link through the proxy = %d, want 200 and a login", status)
	}

	proxyHost := strings.TrimPrefix(proxy.URL, "https://")
	d := websocket.Dialer{TLSClientConfig: tlsConf}
	dialVia := func(origin string) (*websocket.Conn, int) {
		h := http.Header{"Origin": {origin}}
		c, r, err := d.DialContext(ctx, "wss://"+proxyHost+"/live/ws?token="+l.token.Reveal(), h)
		if err != nil {
			if r == nil {
				t.Fatalf("dialing through the proxy: %v", err)
			}
			return nil, r.StatusCode
		}
		return c, http.StatusSwitchingProtocols
	}
	if c, code := dialVia("https://evil.example"); code != http.StatusForbidden {
		if c != nil {
			c.Close()
		}
		t.Errorf("forged Origin through the proxy = %d, want 403", code)
	}
	c, code := dialVia(proxy.URL)
	if code != http.StatusSwitchingProtocols {
		t.Fatalf("the public Origin through the proxy = %d, want 101", code)
	}
	defer c.Close()
	send(t, c, map[string]string{"type": "take"})
	poll(ctx, t, "the User's take through the proxy", func() bool { return ctl.Holder() == spec.ControllerUser })

	// Around the proxy: the backend's own Host is not the public one.
	direct, _, err := dial(ctx, l, l.token.Reveal(), "http://"+liveAddr(l))
	if err == nil {
		direct.Close()
		t.Error("a websocket around the proxy, with the backend's Host, was accepted")
	}
}

// TestEmbedAndReadOnly: frame-ancestors lists exactly the embedding
// origins (none: 'none' and X-Frame-Options DENY); no cookie is set then
// either; a read-only link's viewer is refused take, input and returns by
// the server.
func TestEmbedAndReadOnly(t *testing.T) {
	ctx := testContext(t)
	certFile, keyFile := selfSignedFiles(t)
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, nil, func(l *Live) {
		r, err := newRemote("127.0.0.1:0", &LiveOptions{TLSCert: certFile, TLSKey: keyFile,
			EmbedOrigins: []string{"https://app.example.com", "https://agent.example.org:8443"}})
		if err != nil {
			t.Fatal(err)
		}
		l.remote = r
	})
	pool := x509.NewCertPool()
	pemCert, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(pemCert)
	tlsConf := &tls.Config{RootCAs: pool}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConf}}

	link, err := l.MintLink("", true)
	if err != nil {
		t.Fatal(err)
	}
	status, login, out := takeLink(ctx, t, client, link.URL)
	if status != http.StatusOK || login == "" || out["read_only"] != true || out["take"] != false {
		t.Fatalf("taking a read-only link = %d %v, want 200, a login, read_only and no take", status, out)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+liveAddr(l)+"/live", nil)
	page, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	csp := page.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors https://app.example.com https://agent.example.org:8443") || page.Header.Get("X-Frame-Options") != "" {
		t.Errorf("CSP %q, X-Frame-Options %q: want frame-ancestors of exactly the two origins, no X-Frame-Options", csp, page.Header.Get("X-Frame-Options"))
	}

	if len(page.Cookies()) != 0 {
		t.Errorf("the page set cookies %v, want none", page.Cookies())
	}
	c, r, err := dialLogin(ctx, l, &websocket.Dialer{TLSClientConfig: tlsConf}, login)
	if err != nil {
		t.Fatalf("read-only viewer's websocket: %v (%v)", err, r)
	}
	defer c.Close()
	if m := next(ctx, t, c, false); m.Type != "state" {
		t.Fatalf("first message %+v, want the state: a read-only viewer watches", m)
	}
	send(t, c, map[string]string{"type": "take"})
	if m := next(ctx, t, c, false); m.Type != "error" || !strings.Contains(m.Message, "only watches") {
		t.Errorf("read-only take answered %+v, want an error saying it only watches", m)
	}
	send(t, c, map[string]any{"type": "key", "event": "down", "key": "a"})
	if m := next(ctx, t, c, false); m.Type != "error" {
		t.Errorf("read-only key answered %+v, want an error", m)
	}
	if ctl.Holder() != spec.ControllerAgent {
		t.Error("a read-only viewer took control")
	}

	// Without embedding origins nothing may frame it.
	plain, _ := startLive(t, control.New(nil), nil, nil)
	resp, err := http.Get(plain.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("without embedding: CSP %q, X-Frame-Options %q", csp, resp.Header.Get("X-Frame-Options"))
	}
}
