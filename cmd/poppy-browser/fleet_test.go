//go:build pooltest && fleettest

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// fleetRuntime is one `poppy-browser mcp --http` process of the fleet.
type fleetRuntime struct {
	name   string
	addr   string // 127.0.0.1:PORT
	offers string // the directory its --on-offer writes each offer to
	cmd    *exec.Cmd
	stderr *syncBuffer
}

// TestFleet is make fleet-test's (deploy/browserless/pool-test.sh fleet):
// Browserless from npm, two runtimes (rt0, rt1) on it, Caddy in front with
// TLS from its internal CA, and everything below through the proxy only:
// 8 MCP sessions spread over both runtimes, each offering the User
// control; the User's link, opened in a real browser at phone size through
// the proxy, takes control of that session only, types into its page (the
// text lands in that session's page only) and hands back; a cookie set in
// one session's browser and a tab it opens are seen by that session only;
// rt1 is killed: its sessions fail, rt0's carry on, a new session lands on rt0;
// the pool is restarted: rt0's /readyz fails, then passes, and a new
// session works.
func TestFleet(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 12*time.Minute)
	defer cancel()
	caddy, err := exec.LookPath("caddy")
	if err != nil {
		t.Skip("no caddy (apt-get install -y caddy; make fleet-test installs it)")
	}
	start, base, token, cdpURL, marker := poolSetup(t)
	stopPool := startPool(t, ctx, start, base+"/json/version?token="+url.QueryEscape(token), "CONCURRENT=6", "QUEUED=4")

	proxyPort := freePort(t)
	public := fmt.Sprintf("https://localhost:%d", proxyPort)
	const mcpToken = "fleet-test-mcp-token"
	bin := buildBinary(t)
	dir := t.TempDir()
	launch := func(name string, port int) *fleetRuntime {
		t.Helper()
		rt := &fleetRuntime{name: name, addr: fmt.Sprintf("127.0.0.1:%d", port), offers: filepath.Join(dir, name+"-offers"), stderr: &syncBuffer{}}
		if err := os.MkdirAll(rt.offers, 0o700); err != nil {
			t.Fatal(err)
		}
		rt.cmd = exec.Command(bin, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", rt.addr,
			"--instance", name, "--live-behind-proxy", public, "--cdp-url", cdpURL, "--live-url-file", "",
			"--max-sessions", "8", "--on-offer", "cat > "+rt.offers+"/offer-$$.json")
		rt.cmd.Env = append(os.Environ(), "POPPY_MCP_TOKEN="+mcpToken)
		rt.cmd.Stderr = rt.stderr
		rt.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := rt.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = rt.cmd.Process.Signal(syscall.SIGTERM)
			_ = rt.cmd.Wait()
			if t.Failed() {
				t.Logf("%s said:\n%s", name, rt.stderr.String())
			}
		})
		return rt
	}
	rts := []*fleetRuntime{launch("rt0", freePort(t)), launch("rt1", freePort(t))}
	readyz := func(rt *fleetRuntime) int {
		resp, err := http.Get("http://" + rt.addr + "/readyz")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, rt := range rts {
		waitUntil(t, ctx, rt.name+"'s /readyz (attached to the pool)", func() bool { return readyz(rt) == http.StatusOK })
	}

	// Caddy with the recipe of docs/fleet.md.
	caddyDir := filepath.Join(dir, "caddy")
	caddyfile := filepath.Join(dir, "Caddyfile")
	cfg := fmt.Sprintf(`{
	admin off
	skip_install_trust
	http_port %d
	https_port %d
	auto_https disable_redirects
}
%s {
	tls internal
	@rt0_live path /live/rt0/*
	handle @rt0_live {
		reverse_proxy %s
	}
	@rt1_live path /live/rt1/*
	handle @rt1_live {
		reverse_proxy %s
	}
	@rt0_mcp header_regexp Mcp-Session-Id ^rt0\.
	handle @rt0_mcp {
		reverse_proxy %s {
			header_up Host {upstream_hostport}
		}
	}
	@rt1_mcp header_regexp Mcp-Session-Id ^rt1\.
	handle @rt1_mcp {
		reverse_proxy %s {
			header_up Host {upstream_hostport}
		}
	}
	handle {
		reverse_proxy %s %s {
			lb_policy least_conn
			lb_try_duration 5s
			health_uri /readyz
			health_interval 1s
			header_up Host {upstream_hostport}
		}
	}
}
`, freePort(t), proxyPort, public, rts[0].addr, rts[1].addr, rts[0].addr, rts[1].addr, rts[0].addr, rts[1].addr)
	if err := os.WriteFile(caddyfile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var caddyOut syncBuffer
	cc := exec.Command(caddy, "run", "--config", caddyfile, "--adapter", "caddyfile")
	cc.Env = append(os.Environ(), "XDG_DATA_HOME="+caddyDir, "XDG_CONFIG_HOME="+caddyDir, "HOME="+caddyDir)
	cc.Stdout, cc.Stderr = &caddyOut, &caddyOut
	cc.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cc.Process.Kill()
		_ = cc.Wait()
		if t.Failed() {
			t.Logf("caddy said:\n%s", caddyOut.String())
		}
	})
	rootPEM := filepath.Join(caddyDir, "caddy", "pki", "authorities", "local", "root.crt")
	waitUntil(t, ctx, "Caddy's internal CA", func() bool { _, err := os.Stat(rootPEM); return err == nil })
	pem, err := os.ReadFile(rootPEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatal("Caddy's root certificate does not parse")
	}
	tlsClient := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}
	waitUntil(t, ctx, "Caddy answers over TLS", func() bool {
		resp, err := (&http.Client{Transport: tlsClient}).Get(public + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	client := &http.Client{Transport: bearer{mcpToken, tlsClient}}
	connect := func() (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "fleet-test", Version: "1"}, nil)
		return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: public + "/", HTTPClient: client, MaxRetries: -1}, nil)
	}

	// 8 sessions through the proxy.
	type fleetSession struct {
		cs *mcp.ClientSession
		d  *demo
		rt *fleetRuntime
	}
	var sessions []*fleetSession
	byRuntime := map[string]int{}
	for i := range 8 {
		cs, err := connect()
		if err != nil {
			t.Fatalf("session %d through the proxy: %v", i, err)
		}
		t.Cleanup(func() { cs.Close() })
		s := &fleetSession{cs: cs, d: &demo{t: t, mcp: cs}}
		for _, rt := range rts {
			if strings.HasPrefix(cs.ID(), rt.name+".") {
				s.rt = rt
			}
		}
		if s.rt == nil {
			t.Fatalf("session id %q names no runtime", cs.ID())
		}
		byRuntime[s.rt.name]++
		if r := s.d.call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r.Outcome != "done" {
			t.Fatalf("session %d (%s) navigates: %+v", i, s.rt.name, r)
		}
		sessions = append(sessions, s)
	}
	t.Logf("sessions by runtime: %v", byRuntime)
	if byRuntime["rt0"] == 0 || byRuntime["rt1"] == 0 {
		t.Fatalf("the proxy put every session on one runtime: %v", byRuntime)
	}

	// Every session's page is the check-in form whose passport field the
	// agent's snapshot shows (no marks): what each User types is seen.
	checkIn := "https://" + testsite.CompanyDomain + "/fixtures/check-in-unmarked"
	for i, s := range sessions {
		if r := s.d.call(ctx, "browser_navigate", map[string]any{"url": checkIn}); r.Outcome != "done" {
			t.Fatalf("session %d (%s) opens the check-in form: %+v", i, s.rt.name, r)
		}
	}
	typed := func(i int) string { return fmt.Sprintf("fleet%dpass", i) }

	// Each session offers its User control; the User opens the link at
	// phone size through the proxy, takes control (of that session only),
	// types a passport number into the page on the picture (a click on the
	// field, then keys) and hands back: the text is in that session's page
	// and in no other.
	viewers, err := browser.Launch(ctx, &browser.Options{Args: []string{"--ignore-certificate-errors"}})
	if err != nil {
		t.Fatal(err)
	}
	defer viewers.Close()
	if err := viewers.SetScript(ctx, "fleet-locate", browser.Script{Source: fleetSocketJS}); err != nil {
		t.Fatal(err)
	}
	read := func(p *browser.Page, fn string) string {
		t.Helper()
		var s string
		if err := p.MainFrame().Call(ctx, browser.UtilityWorld, fn, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for i, s := range sessions {
		r := s.d.call(ctx, "browser_request_user_control", map[string]any{"reason": fmt.Sprintf("fleet test %d: please take over", i)})
		if r.Offer == nil {
			t.Fatalf("session %d offers no control: %+v", i, r)
		}
		// Offer ids count per session: the link is the one under this
		// session's live view path.
		m := regexp.MustCompile(`live view for the User of MCP session ` + regexp.QuoteMeta(s.cs.ID()) + `: (https://[^?\s]+)`).FindStringSubmatch(s.rt.stderr.String())
		if m == nil {
			t.Fatalf("session %d's live view is not on %s's stderr", i, s.rt.name)
		}
		var link string
		waitUntil(t, ctx, fmt.Sprintf("session %d's link from --on-offer", i), func() bool {
			link = fleetOfferLink(t, s.rt.offers, m[1]+"/link/", r.Offer.ID)
			return link != ""
		})
		if !strings.HasPrefix(link, public+"/live/"+s.rt.name+"/") {
			t.Fatalf("session %d's link %s is not on the proxy under its runtime's path", i, strings.SplitN(link, "/link/", 2)[0])
		}
		bc, err := viewers.NewContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := bc.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := browsertest.SetViewport(ctx, p, 390, 844); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Navigate(ctx, link); err != nil {
			t.Fatal(err)
		}
		if got := read(p, `function(){ return document.getElementById("go") ? "ok" : document.title + ": " + document.body.innerText }`); got != "ok" {
			t.Fatalf("session %d's link page through the proxy has no button; it shows %q", i, got)
		}
		read(p, `function(){ document.getElementById("go").click(); return "" }`)
		waitUntil(t, ctx, fmt.Sprintf("session %d's User holds control", i), func() bool {
			return s.d.call(ctx, "browser_control_status", nil).Controller == "user"
		})
		for j, o := range sessions {
			if j != i && o.d.call(ctx, "browser_control_status", nil).Controller != "agent" {
				t.Errorf("session %d's controller after session %d's User took control: not the agent", j, i)
			}
		}
		waitUntil(t, ctx, fmt.Sprintf("session %d's viewer offers the hand back", i), func() bool {
			return read(p, `function(){ return String(document.getElementById("hand_back").hidden) }`) == "false"
		})
		x, y := fleetLocate(t, ctx, p, `input[name="passport_number"]`)
		if err := p.Click(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		for _, k := range typed(i) {
			if err := p.Press(ctx, string(k)); err != nil {
				t.Fatal(err)
			}
		}
		read(p, `function(){ document.getElementById("hand_back").click(); return "" }`)
		waitUntil(t, ctx, fmt.Sprintf("session %d back with its agent", i), func() bool {
			return s.d.call(ctx, "browser_control_status", nil).Controller == "agent"
		})
		_ = bc.Close(ctx)
		waitUntil(t, ctx, fmt.Sprintf("session %d's page shows what its User typed", i), func() bool {
			return strings.Contains(s.d.call(ctx, "browser_snapshot", map[string]any{"since": 0}).Text, typed(i))
		})
		for j, o := range sessions {
			if j != i && strings.Contains(o.d.call(ctx, "browser_snapshot", map[string]any{"since": 0}).Text, typed(i)) {
				t.Errorf("session %d's page shows what session %d's User typed", j, i)
			}
		}
	}

	// Cookies: each session's browser gets a cookie of its own value from
	// the airline; each session's page then sees its own, never another's.
	cookiePage := "https://" + testsite.CompanyDomain + testsite.CookieFixturePath
	for i, s := range sessions {
		if r := s.d.call(ctx, "browser_navigate", map[string]any{"url": cookiePage + fmt.Sprintf("?set=fleet-%d", i)}); r.Outcome != "done" {
			t.Fatalf("session %d sets its cookie: %+v", i, r)
		}
	}
	for i, s := range sessions {
		if r := s.d.call(ctx, "browser_navigate", map[string]any{"url": cookiePage}); r.Outcome != "done" {
			t.Fatalf("session %d reads its cookie: %+v", i, r)
		}
		snap := s.d.call(ctx, "browser_snapshot", map[string]any{"since": 0}).Text
		if want := fmt.Sprintf("%s: fleet-%d", testsite.CookieFixtureName, i); !strings.Contains(snap, want) {
			t.Errorf("session %d's page does not show its own cookie %q:\n%s", i, want, snap)
		}
	}
	// Tabs: each session opens a tab of its own; every session lists its
	// first tab and its own new one, never another session's.
	for i, s := range sessions {
		if r := s.d.call(ctx, "browser_tabs", map[string]any{"action": "new", "url": cookiePage + fmt.Sprintf("?tab=%d", i)}); r.Outcome != "done" {
			t.Fatalf("session %d opens a tab: %+v", i, r)
		}
	}
	for i, s := range sessions {
		tabs := fleetTabs(t, ctx, s.cs)
		var urls []string
		for _, tab := range tabs {
			urls = append(urls, tab.URL)
		}
		if len(tabs) != 2 || !strings.HasSuffix(tabs[1].URL, fmt.Sprintf("?tab=%d", i)) {
			t.Errorf("session %d's tabs: %v, want its check-in page and its own new tab", i, urls)
		}
		if r := s.d.call(ctx, "browser_tabs", map[string]any{"action": "close", "index": 1}); r.Outcome != "done" {
			t.Errorf("session %d closes its tab: %+v", i, r)
		}
	}

	// rt1 dies.
	_ = rts[1].cmd.Process.Kill()
	_ = rts[1].cmd.Wait()
	for i, s := range sessions {
		res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot"})
		switch {
		case s.rt.name == "rt1" && err == nil && !res.IsError:
			t.Errorf("session %d on the killed rt1 still answers", i)
		case s.rt.name == "rt0" && (err != nil || res.IsError):
			t.Errorf("session %d on rt0 after rt1 died: %v %v", i, err, res)
		}
	}
	var survivor *mcp.ClientSession
	waitUntil(t, ctx, "a new session through the proxy after rt1 died", func() bool {
		cs, err := connect()
		if err != nil {
			return false
		}
		survivor = cs
		return true
	})
	defer survivor.Close()
	if !strings.HasPrefix(survivor.ID(), "rt0.") {
		t.Errorf("the new session %q is not on the survivor rt0", survivor.ID())
	}
	if r := (&demo{t: t, mcp: survivor}).call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r.Outcome != "done" {
		t.Errorf("the new session on rt0 navigates: %+v", r)
	}

	// The pool restarts.
	stopPool()
	killMarked(marker)
	lost := time.Now()
	waitUntil(t, ctx, "rt0's /readyz fails without the pool", func() bool { return readyz(rts[0]) == http.StatusServiceUnavailable })
	t.Logf("rt0's /readyz failed %v after the pool stopped", time.Since(lost).Round(time.Millisecond))
	startPool(t, ctx, start, base+"/json/version?token="+url.QueryEscape(token), "CONCURRENT=6", "QUEUED=4")
	back := time.Now()
	waitUntil(t, ctx, "rt0's /readyz passes with the pool back", func() bool { return readyz(rts[0]) == http.StatusOK })
	t.Logf("rt0's /readyz passed %v after the pool was back", time.Since(back).Round(time.Millisecond))
	// The proxy sends new sessions to rt0 again after its own next health
	// check (every second) has seen /readyz pass.
	passed := time.Now()
	var cs *mcp.ClientSession
	waitUntil(t, ctx, "a new session through the proxy once rt0 is ready", func() bool {
		c, err := connect()
		if err != nil {
			return false
		}
		cs = c
		return true
	})
	defer cs.Close()
	t.Logf("a new session through the proxy %v after rt0's /readyz passed", time.Since(passed).Round(time.Millisecond))
	if r := (&demo{t: t, mcp: cs}).call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r.Outcome != "done" {
		t.Errorf("a new session once /readyz passed: %+v", r)
	}
	if strings.Contains(rts[0].stderr.String(), token) {
		t.Error("rt0's stderr shows the pool's token")
	}
}

// fleetOfferLink is the link under prefix that --on-offer wrote for offer
// id into dir, or "".
func fleetOfferLink(t *testing.T, dir, prefix, id string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "offer-*.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var o struct {
			Link  string `json:"link"`
			Offer struct {
				ID string `json:"id"`
			} `json:"offer"`
		}
		if json.Unmarshal(raw, &o) == nil && o.Offer.ID == id && strings.HasPrefix(o.Link, prefix) {
			return o.Link
		}
	}
	return ""
}

// fleetSocketJS runs in the viewers' pages before their own scripts: it
// keeps the live view's websocket, the size of its last picture and the
// runtime's answers to locate, for fleetLocate (the live view's scripts
// keep theirs in a closure).
const fleetSocketJS = `(() => {
	const WS = window.WebSocket;
	globalThis.fleet = { socket: null, frame: null, answers: [] };
	function Recorded(...args) {
		const s = new WS(...args);
		fleet.socket = s;
		s.addEventListener("message", (ev) => {
			let m; try { m = JSON.parse(ev.data); } catch { return; }
			if (m.type === "frame") fleet.frame = { width: m.width, height: m.height };
			else if (m.type === "locate" || m.type === "error") fleet.answers.push(m);
		});
		return s;
	}
	Recorded.prototype = WS.prototype;
	Object.assign(Recorded, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
	window.WebSocket = Recorded;
})();`

// fleetLocate is where the live view page p shows the element selector
// finds on the session's page: the centre of its box, in p's CSS pixels,
// once two answers agree (the page may still lay out after a take). It asks
// the runtime over p's own websocket, as a live view's locate does.
func fleetLocate(t *testing.T, ctx context.Context, p *browser.Page, selector string) (x, y float64) {
	t.Helper()
	call := func(fn string, args ...any) string {
		t.Helper()
		var s string
		if err := p.MainFrame().Call(ctx, "", fn, &s, args...); err != nil {
			t.Fatal(err)
		}
		return s
	}
	last := ""
	for {
		call(`function(sel){ fleet.answers.length = 0; fleet.socket.send(JSON.stringify({type: "locate", selector: sel})); return "" }`, selector)
		var got string
		waitUntil(t, ctx, "the live view's answer to locate "+selector, func() bool {
			got = call(`function(){
				const m = fleet.answers[0];
				if (!m) return "";
				if (m.type !== "locate" || !fleet.frame) return "none";
				const r = document.getElementById("frame").getBoundingClientRect();
				return JSON.stringify({x: r.left + (m.x + m.width / 2) * r.width / fleet.frame.width,
					y: r.top + (m.y + m.height / 2) * r.height / fleet.frame.height});
			}`)
			return got != ""
		})
		if got != "none" && got == last {
			var pt struct{ X, Y float64 }
			if err := json.Unmarshal([]byte(got), &pt); err != nil {
				t.Fatal(err)
			}
			return pt.X, pt.Y
		}
		last = got
		select {
		case <-ctx.Done():
			t.Fatalf("locating %s on the live view: %v", selector, ctx.Err())
		case <-time.After(150 * time.Millisecond):
		}
	}
}

type fleetTab struct {
	URL string `json:"url"`
}

// fleetTabs lists cs's tabs (browser_tabs list).
func fleetTabs(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []fleetTab {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_tabs", Arguments: map[string]any{"action": "list"}})
	if err != nil || res.IsError {
		t.Fatalf("browser_tabs list: %v %v", err, res)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Tabs []fleetTab `json:"tabs"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r.Tabs
}
