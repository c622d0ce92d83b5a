package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
)

// The package's shared fixtures, set up once in TestMain: one Chromium
// (started by the first test that needs it) and one plain HTTP server for
// every *.test host.
var (
	chromium *browsertest.Browser
	testSite *site
	// siteHosts maps the *.test names to the test site, for a second
	// Chromium (files_test.go's pool).
	siteHosts string
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	testSite = newSite()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ui tests: listening:", err)
		return 1
	}
	srv := &http.Server{Handler: testSite}
	go srv.Serve(ln)
	defer srv.Close()
	pin, err := makeTestTLSKey()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ui tests: a TLS key:", err)
		return 1
	}
	siteHosts = "--host-resolver-rules=MAP *.test " + ln.Addr().String()
	chromium = browsertest.New(&browsertest.Options{
		Args: []string{siteHosts,
			// The live view over TLS (remote_test.go): certificates of the
			// test's own key are trusted, no other.
			"--ignore-certificate-errors-spki-list=" + pin},
	})
	return browsertest.Run(m, chromium)
}

// site serves the test pages and collects what pages report back.
type site struct {
	mu      sync.Mutex
	reports map[string]chan string // by report id
}

func newSite() *site { return &site{reports: map[string]chan string{}} }

// report returns the channel that receives the bodies posted to
// /report?id=id.
func (s *site) report(id string) chan string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.reports[id]
	if !ok {
		ch = make(chan string, 16)
		s.reports[id] = ch
	}
	return ch
}

const formPage = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>empty</title>
<style>@keyframes spin { to { transform: rotate(360deg) } } #spin { width: 20px; height: 20px; background: teal; animation: spin 1s linear infinite }</style>
<div style="height: 300px"></div>
<label>Name <input id="name" autocomplete="off"></label>
<button id="go" onclick="document.title = 'clicked:' + document.getElementById('name').value">Go</button>
<div id="spin"></div>
<script>document.getElementById("name").addEventListener("input", e => { document.title = "value:" + e.target.value })</script>`

// checkinPage is a Company's check-in page, laid out for a desktop and a
// phone alike, with its marked step (Check in) below some reading and
// more page below it to scroll.
const checkinPage = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>Check in</title>
<style>body { font: 15px/1.4 sans-serif; margin: 0; } main { max-width: 36em; margin: 0 auto; padding: 12px 16px; }
h1 { font-size: 22px; margin: 0 0 8px; } label { display: block; margin: 10px 0; } input { font-size: 16px; width: 100%; max-width: 20em; }
#go { font-size: 17px; padding: 10px 22px; background: #1d4ed8; color: #fff; border: 0; border-radius: 6px; }</style>
<main><h1>Online check-in</h1>
<p>Booking bkg_4Rt9, flight PA 1234 from Lisbon to Oslo, 12:10 UTC. Check the passenger's name, then check in: your boarding pass follows by email.</p>
<label>Passenger name <input id="name" autocomplete="off"></label>
<form onsubmit="event.preventDefault(); document.title = 'checked in:' + document.getElementById('name').value" data-poppy-user-step="submission">
<button id="go">Check in</button></form>
<div style="height: 1600px; background: linear-gradient(#fff, #dbeafe)"></div></main>
<script>document.getElementById("name").addEventListener("input", e => { document.title = "value:" + e.target.value })</script>`

// desktopPage is a page made for desktops only: no viewport meta, so a
// phone lays it out 980 px wide and shows it zoomed out to fit its
// screen. Its field is far to the right.
const desktopPage = `<!doctype html><title>desktop</title>
<body style="margin:0"><div style="height:400px"></div>
<input id="far" autocomplete="off" style="margin-left:600px;width:300px;font-size:32px">
<script>document.getElementById("far").addEventListener("input", e => { document.title = "value:" + e.target.value })</script>`

const toggleP = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>toggle</title>
<body style="margin:0;height:100vh;background:#f00" onpointerdown="document.body.style.background = document.body.style.background === 'rgb(0, 0, 255)' ? '#f00' : '#00f'">`

// attackPage tries to reach the live view from another origin and reports
// what it got. The URLs come in the query: ws and fetch are lists.
const attackPage = `<!doctype html><title>partner</title><script>
const q = new URLSearchParams(location.search);
function tryWS(url) {
  return new Promise(done => {
    let ws;
    try { ws = new WebSocket(url); } catch (e) { done("throw"); return; }
    ws.onopen = () => done("open");
    ws.onmessage = e => done("message:" + e.data.slice(0, 40));
    ws.onerror = () => done("error");
    ws.onclose = () => done("closed");
  });
}
async function tryFetch(url, mode) {
  try {
    const r = await fetch(url, {mode, credentials: "include"});
    const t = await r.text();
    return "status:" + r.status + ":" + t.length;
  } catch (e) { return "error"; }
}
(async () => {
  const out = [];
  for (const u of q.getAll("ws")) out.push("ws " + (await tryWS(u)));
  for (const u of q.getAll("fetch")) {
    out.push("fetch " + (await tryFetch(u, "cors")));
    out.push("fetch-no-cors " + (await tryFetch(u, "no-cors")));
  }
  await fetch("/report?id=" + q.get("id"), {method: "POST", body: out.join("\n")});
})();
</script>`

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case r.URL.Path == "/report" && r.Method == http.MethodPost:
		b, _ := io.ReadAll(r.Body)
		select { // bounded by the request: a full channel never hangs the server
		case s.report(r.URL.Query().Get("id")) <- string(b):
		case <-r.Context().Done():
		}
	case r.Host == "company.test" && r.URL.Path == "/passport":
		io.WriteString(w, passportPage) // files_test.go
	case r.Host == "company.test" && r.URL.Path == "/upload" && r.Method == http.MethodPost:
		b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		select {
		case s.report("upload:" + r.URL.Query().Get("name")) <- string(b):
		case <-r.Context().Done():
		}
	case r.Host == "company.test" && r.URL.Path == "/boarding":
		io.WriteString(w, boardingPage) // downloads_test.go
	case r.Host == "company.test" && r.URL.Path == "/boarding-pass.pdf":
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", `attachment; filename="boarding-pass.pdf"`)
		w.Write(boardingPass)
	case r.Host == "company.test" && r.URL.Path == "/form":
		io.WriteString(w, formPage)
	case r.Host == "company.test" && r.URL.Path == "/checkin":
		io.WriteString(w, checkinPage)
	case r.Host == "company.test" && r.URL.Path == "/desktop":
		io.WriteString(w, desktopPage)
	case r.Host == "company.test" && r.URL.Path == "/confirm":
		io.WriteString(w, `<!doctype html><title>confirm</title><body style="margin:0"><button style="position:fixed;left:0;top:0;width:300px;height:200px" onclick="document.title = 'answer:' + confirm('Cancel the booking?')">go</button>`)
	case r.Host == "company.test" && r.URL.Path == "/toggle":
		// Each press flips the whole page between red and blue: the
		// latency benchmark watches the picture for the flip.
		io.WriteString(w, toggleP)
	case r.Host == "company.test" && r.URL.Path == "/red":
		io.WriteString(w, `<!doctype html><title>red</title><body style="background: #f00">`)
	case r.Host == "partner.test" && r.URL.Path == "/attack":
		io.WriteString(w, attackPage)
	default:
		http.NotFound(w, r)
	}
}

// testContext bounds a test.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newPage opens a fresh tab (its own browser context, closed at cleanup)
// on url.
func newPage(ctx context.Context, t *testing.T, url string) *browser.Page {
	t.Helper()
	p := chromium.NewPage(t)
	if _, err := p.Navigate(ctx, url); err != nil {
		t.Fatalf("navigating to %s: %v", url, err)
	}
	return p
}

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startLive starts a live view on page (nil: no page) with debug logs in
// logs, and shuts it down at cleanup, checking no log line holds the token.
// It runs with --insecure-take-by-link, explicitly: these tests are about
// the view, its links and input, and take with the token or a link; the
// proof of presence has its own tests (presence_test.go), which start
// theirs with startLivePasskeys.
func startLive(t *testing.T, ctl *control.Control, page *browser.Page, hook func(*Live)) (*Live, *logBuffer) {
	t.Helper()
	return startLiveWith(t, ctl, page, hook, &LiveOptions{InsecureTakeByLink: true})
}

// startLiveWith is startLive with opts (Control, Page and Logger are set
// here).
func startLiveWith(t *testing.T, ctl *control.Control, page *browser.Page, hook func(*Live), opts *LiveOptions) (*Live, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	o := *opts
	o.Control, o.Page = ctl, func() *browser.Page { return page }
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l, err := NewLive(&o)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		hook(l)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := l.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if strings.Contains(logs.String(), l.token.Reveal()) {
			t.Error("the token is in the logs")
		}
		t.Log(logs.String())
	})
	return l, logs
}

// liveAddr is host:port of a started live view.
func liveAddr(l *Live) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return urlHost(l.ln.Addr())
}

// dial opens the User channel with token and origin ("" sends none).
func dial(ctx context.Context, l *Live, token, origin string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return websocket.DefaultDialer.DialContext(ctx, "ws://"+liveAddr(l)+"/live/ws?token="+token, h)
}

// connect opens the User channel as the live page would, closing it at cleanup.
func connect(ctx context.Context, t *testing.T, l *Live) *websocket.Conn {
	t.Helper()
	c, resp, err := dial(ctx, l, l.token.Reveal(), "http://"+liveAddr(l))
	if err != nil {
		t.Fatalf("dialing the User channel: %v (response %v)", err, resp)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// message is any message from the runtime.
type message struct {
	Type       string         `json:"type"`
	Controller string         `json:"controller"`
	Offer      *control.Offer `json:"offer"`
	Data       []byte         `json:"data"`
	Width      float64        `json:"width"`
	Height     float64        `json:"height"`
	X          float64        `json:"x"`
	Y          float64        `json:"y"`
	Selector   string         `json:"selector"`
	Message    string         `json:"message"`
	URL        string         `json:"url"`
	Viewer     string         `json:"viewer"`
	Tabs       []tabMsg       `json:"tabs"`
	Dialog     *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"dialog"`
	Presence *presenceMsg    `json:"presence"`
	Options  json.RawMessage `json:"options"`
}

// next reads messages until one is not a frame (or, with frames, until one
// is a frame), failing the test at ctx's deadline.
func next(ctx context.Context, t *testing.T, c *websocket.Conn, frames bool) message {
	t.Helper()
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(time.Minute) // never read without a bound
	}
	c.SetReadDeadline(dl)
	for {
		var m message
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("reading the User channel (waiting for a %s message until %s): %v", map[bool]string{true: "frame", false: "non-frame"}[frames], dl.Format(time.TimeOnly), err)
		}
		if (m.Type == "frame") == frames {
			return m
		}
	}
}

func send(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	if err := c.WriteJSON(v); err != nil {
		t.Fatalf("writing to the User channel: %v", err)
	}
}

// poll waits until cond holds or ctx ends.
func poll(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}
