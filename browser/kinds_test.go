package browser_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/browser"
)

// tlsSite serves company.test and other.test over HTTPS on loopback and
// records the Poppy-Extensions header of every request, websocket
// handshakes included, by host and path.
type tlsSite struct {
	mu   sync.Mutex
	seen map[string][]string // "host/path" -> the header of each request ("" when absent)
	args []string
}

func newTLSSite(t *testing.T, pages map[string]string) *tlsSite {
	t.Helper()
	s := &tlsSite{seen: map[string][]string{}}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Host + r.URL.Path
		s.mu.Lock()
		s.seen[key] = append(s.seen[key], r.Header.Get("Poppy-Extensions"))
		s.mu.Unlock()
		if r.URL.Path == "/ws" {
			c, err := up.Upgrade(w, r, nil)
			if err == nil {
				c.WriteMessage(websocket.TextMessage, []byte("hello"))
				c.Close()
			}
			return
		}
		body, ok := pages[key]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "text/javascript")
		case strings.HasSuffix(r.URL.Path, ".json"):
			w.Header().Set("Content-Type", "application/speculationrules+json")
		default:
			w.Header().Set("Content-Type", "text/html")
		}
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, body)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(srv.Certificate().RawSubjectPublicKeyInfo)
	s.args = []string{
		"--host-resolver-rules=MAP *.test " + srv.Listener.Addr().String(),
		"--ignore-certificate-errors-spki-list=" + base64.StdEncoding.EncodeToString(sum[:]),
	}
	return s
}

func (s *tlsSite) headers(hostPath string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen[hostPath]...)
}

// TestCompanyHeaderByRequestKind: the Company's own requests of every kind
// the interception sees carry Poppy-Extensions (the document, a <link
// rel=prefetch>, a service worker's script at registration); the browser
// makes no speculative request (speculation-rules prefetch and prerender
// are made by the browser process, unseen, so preloading is off); and no
// request to another host carries it, websocket handshakes included. A wss
// handshake or a service worker's update check to the Company goes without
// it (PROTOCOL.md says why).
func TestCompanyHeaderByRequestKind(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s := newTLSSite(t, map[string]string{
		"company.test/": `<!doctype html><link rel="prefetch" href="/link-prefetch">
<script type="speculationrules">{"prefetch":[{"source":"list","urls":["/spec-prefetch"]}],"prerender":[{"source":"list","urls":["/spec-prerender"]}]}</script>
<script>
new WebSocket("wss://company.test/ws");
new WebSocket("wss://other.test/ws");
fetch("https://other.test/fetched", {mode: "no-cors"});
navigator.serviceWorker.register("/sw.js").then(r => r.update());
</script>`,
		"company.test/sw.js":          `self.addEventListener("fetch", () => {});`,
		"company.test/link-prefetch":  `prefetched`,
		"company.test/spec-prefetch":  `<p>prefetched</p>`,
		"company.test/spec-prerender": `<p>prerendered</p>`,
	})
	b, err := browser.Launch(ctx, &browser.Options{
		Args: s.args,
		CompanyURL: func(u string) bool {
			return strings.HasPrefix(u, "https://company.test/") || strings.HasPrefix(u, "wss://company.test/")
		},
		CompanyHeaders: map[string]string{"Poppy-Extensions": companyHeader},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "https://company.test/"); err != nil {
		t.Fatal(err)
	}
	// The update check of the worker's script comes last of the page's requests.
	poll(t, ctx, "the service worker's update check", func() bool { return len(s.headers("company.test/sw.js")) >= 2 })
	poll(t, ctx, "the link prefetch and the handshakes", func() bool {
		return len(s.headers("company.test/link-prefetch")) > 0 && len(s.headers("company.test/ws")) > 0 &&
			len(s.headers("other.test/ws")) > 0 && len(s.headers("other.test/fetched")) > 0
	})
	for _, k := range []string{"company.test/", "company.test/link-prefetch"} {
		if got := s.headers(k); len(got) != 1 || got[0] != companyHeader {
			t.Errorf("%s carried %q, want the header once", k, got)
		}
	}
	if got := s.headers("company.test/sw.js"); got[0] != companyHeader {
		t.Errorf("the service worker's registration fetched its script with %q, want the header", got[0])
	}
	for _, k := range []string{"company.test/spec-prefetch", "company.test/spec-prerender"} {
		if got := s.headers(k); len(got) != 0 {
			t.Errorf("%s was requested speculatively (%q): preloading is on", k, got)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, hs := range s.seen {
		for _, h := range hs {
			if !strings.HasPrefix(k, "company.test/") && h != "" {
				t.Errorf("%s carried the header %q", k, h)
			}
		}
	}
	t.Logf("wss://company.test/ws carried %q; the worker's update check %q", s.seen["company.test/ws"], s.seen["company.test/sw.js"][1:])
}
