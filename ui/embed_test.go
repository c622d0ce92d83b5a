package ui

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// appServer serves, over TLS with the test's trusted key, a page that
// frames ?src at the top left of the page (the Personal Agent's app).
func appServer(t *testing.T) *httptest.Server {
	t.Helper()
	certFile, keyFile := selfSignedFiles(t)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>app</title><body style="margin:0">`+
			`<iframe id=f style="position:fixed;left:0;top:0;width:1000px;height:800px;border:0" src="%s"></iframe>`+
			`<script>document.getElementById("f").onload = () => { document.title = "loaded" }</script>`, html.EscapeString(r.URL.Query().Get("src")))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// liveFrame is the frame of p that shows the live view of l, if any.
func liveFrame(p *browser.Page, l *Live) (browser.Frame, bool) {
	for _, f := range p.Frames() {
		if strings.HasPrefix(f.URL, "https://"+liveAddr(l)+"/live") {
			return f, true
		}
	}
	return browser.Frame{}, false
}

// clickInFrame clicks, with real input, the element id of the live view's
// frame (placed at the page's top left), once the frame has drawn it: the
// browser routes a click to an out-of-process frame by what that frame
// last drew, and a frame that has not drawn yet under load gives the
// click to the page around it (as a person, who clicks what is on screen,
// never meets).
func clickInFrame(ctx context.Context, t *testing.T, p *browser.Page, l *Live, id string) {
	t.Helper()
	f, ok := liveFrame(p, l)
	if !ok {
		t.Fatal("no live view frame")
	}
	var raw string
	if err := f.Call(ctx, browser.UtilityWorld, `function(){ return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
		const r = document.getElementById("`+id+`").getBoundingClientRect();
		done(JSON.stringify([r.x + r.width/2, r.y + r.height/2]));
	}))) }`, &raw); err != nil {
		t.Fatal(err)
	}
	var xy [2]float64
	if err := json.Unmarshal([]byte(raw), &xy); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, xy[0], xy[1]); err != nil {
		t.Fatal(err)
	}
}

// TestFramedByTheAgentsApp: the live view over TLS, framed by a page of an
// allowed origin, opens its link there (its page in the frame; the login
// kept in the frame's own sessionStorage), the User takes control by a
// click on the link's button in the frame and hands back by a click in the
// frame; framed by another origin it does not load.
func TestFramedByTheAgentsApp(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	app := appServer(t)
	appOrigin := strings.Replace(app.URL, "127.0.0.1", "localhost", 1) // another site than the live view's 127.0.0.1
	certFile, keyFile := selfSignedFiles(t)
	l, _ := startLive(t, ctl, agentPage, func(l *Live) {
		r, err := newRemote("127.0.0.1:0", &LiveOptions{TLSCert: certFile, TLSKey: keyFile, EmbedOrigins: []string{appOrigin}})
		if err != nil {
			t.Fatal(err)
		}
		l.remote = r
	})
	offer := ctl.RequestUser("check in yourself", nil)
	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}

	framer := chromium.NewPage(t)
	if _, err := framer.Navigate(ctx, appOrigin+"/?src="+link.URL); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the link's button in the frame", func() bool {
		f, ok := liveFrame(framer, l)
		var s string
		return ok && f.Call(ctx, browser.UtilityWorld, `function(){ const b = document.getElementById("go"); return b ? b.textContent : "" }`, &s) == nil && s == "Take control"
	})
	clickInFrame(ctx, t, framer, l, "go")
	poll(ctx, t, "the framed live view connected with its login", func() bool {
		return ctl.Status().Viewers == 1
	})
	poll(ctx, t, "the User holding control after a click in the frame", func() bool { return ctl.Holder() == spec.ControllerUser })
	poll(ctx, t, "Hand back shown in the frame", func() bool {
		f, ok := liveFrame(framer, l)
		var s string
		return ok && f.Call(ctx, browser.UtilityWorld, `function(){ return String(document.getElementById("hand_back").hidden) }`, &s) == nil && s == "false"
	})
	clickInFrame(ctx, t, framer, l, "hand_back")
	poll(ctx, t, "the agent holding control after Hand back in the frame", func() bool { return ctl.Holder() == spec.ControllerAgent })
	// The login was the offer's turn's: it ended with it, as a turn done.
	poll(ctx, t, "the frame saying the turn is done, and no viewer left", func() bool {
		f, ok := liveFrame(framer, l)
		var s string
		return ok && f.Call(ctx, browser.UtilityWorld, `function(){ return document.getElementById("banner").textContent }`, &s) == nil &&
			s == "You handed back: the agent continues." && ctl.Status().Viewers == 0
	})

	// Another origin (the live view's own host name on the app's port is
	// not in the list) may not frame it, even with the token.
	other := chromium.NewPage(t)
	if _, err := other.Navigate(ctx, app.URL+"/?src="+l.URL()); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the other origin's frame to finish loading", func() bool { return other.Title(ctx) == "loaded" })
	if f, ok := liveFrame(other, l); ok {
		var s string
		if f.Call(ctx, browser.UtilityWorld, `function(){ return String(!!document.getElementById("take")) }`, &s) == nil && s == "true" {
			t.Error("the live view loaded in a frame of an origin not in --live-embed-origin")
		}
	}
	if n := ctl.Status().Viewers; n != 0 {
		t.Errorf("%d viewers connected, want none (the allowed app's frame's login ended; no other origin's frame may connect)", n)
	}
}
