package ui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

// passportPage asks for a passport scan and uploads what it gets, as a
// Company's page would.
const passportPage = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>Passport</title>
<main style="font: 16px sans-serif; padding: 12px"><h1>Upload your passport</h1>
<p>The airline needs a scan of the passport's photo page before check-in.</p>
<label style="display:block; padding: 12px 0">Passport scan <input id="scan" type="file" accept="image/*,.pdf" style="font-size: 16px"></label>
<p id="got"></p></main>
<script>document.getElementById("scan").addEventListener("change", async (e) => {
  const f = e.target.files[0];
  const r = await fetch("/upload?name=" + encodeURIComponent(f.name), {method: "POST", body: f});
  document.getElementById("got").textContent = "Received " + f.name;
  document.title = "uploaded:" + f.name + ":" + f.size + ":" + r.status;
})</script>`

// scanBytes is a passport scan: n bytes, a PNG's signature first.
func scanBytes(n int) []byte {
	b := make([]byte, n)
	copy(b, "\x89PNG\r\n\x1a\n")
	for i := 8; i < n; i++ {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// pickOnDevice is the User choosing a file in the live view's own picker
// (the OS's dialog, which no test drives): the input's files are set and
// it hears change, as after a pick.
func pickOnDevice(ctx context.Context, t *testing.T, viewer *browser.Page, name, typ string, data []byte) {
	t.Helper()
	if err := viewer.MainFrame().Call(ctx, "", `function(name, type, b64) {
		const bin = atob(b64), bytes = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
		const dt = new DataTransfer();
		dt.items.add(new File([bytes], name, {type}));
		const input = document.getElementById("files-pick");
		input.files = dt.files;
		input.dispatchEvent(new Event("change", {bubbles: true}));
		return "";
	}`, nil, name, typ, base64.StdEncoding.EncodeToString(data)); err != nil {
		t.Fatal(err)
	}
}

// clickThrough clicks, on the live view's picture, where the agent's
// page shows sel: the User's mouse on their desktop.
func clickThrough(ctx context.Context, t *testing.T, viewer, agentPage *browser.Page, sel string) {
	t.Helper()
	a := agentBox(ctx, t, agentPage, sel)
	lk := look(ctx, t, viewer)
	if lk.Frame == nil {
		t.Fatal("no picture to click on")
	}
	k := lk.Frame.Width / a.VW
	x, y := lk.Frame.X+(a.X+a.Width/2)*k, lk.Frame.Y+(a.Y+a.Height/2)*k
	if err := viewer.Click(ctx, x, y); err != nil {
		t.Fatal(err)
	}
}

// TestFileRequestInTurn: in the User's turn, the Company's page asks for a
// passport scan; every live view shows "company.test asks for a file:
// Passport scan", the User picks a file on their device, and the page's
// input gets it (input.files, change) and the Company's server the same
// bytes; the audit line names it with its size and SHA-256, and neither
// it nor the logs hold the bytes. On a desktop and on a phone (touch),
// for a launched Chromium and for one attached as from a pool, where the
// runtime's disk is not the browser's.
func TestFileRequestInTurn(t *testing.T) {
	var pool *browser.Browser
	parent := t
	for _, c := range []struct {
		name     string
		phone    bool
		attached bool
	}{
		{"desktop", false, false},
		{"phone", true, false},
		{"attached-desktop", false, true},
		{"attached-phone", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
			defer cancel()
			var agentPage *browser.Page
			if c.attached {
				if pool == nil {
					// A second Chromium, its own process, attached over CDP
					// as to Browserless: a page's file is set from bytes.
					// It lives for the parent test, for both attached cases.
					chr := browsertest.StartChromium(parent, context.WithoutCancel(ctx), &browsertest.ChromiumOptions{Args: []string{siteHosts}})
					b, err := browser.Launch(context.WithoutCancel(ctx), &browser.Options{CDPURL: chr.URL})
					if err != nil {
						t.Fatal(err)
					}
					pool = b
					parent.Cleanup(func() { _ = b.Close() })
				}
				p, err := pool.NewPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Navigate(ctx, "http://company.test/passport"); err != nil {
					t.Fatal(err)
				}
				agentPage = p
			} else {
				agentPage = newPage(ctx, t, "http://company.test/passport")
			}
			fileTurn(ctx, t, c.name, agentPage, c.phone)
		})
	}
}

func fileTurn(ctx context.Context, t *testing.T, name string, agentPage *browser.Page, onPhone bool) {
	auditLines := &logBuffer{}
	ctl := controlOn(agentPage)
	l, logs := startLiveWith(t, ctl, agentPage, func(l *Live) { l.auditLog = audit.New(auditLines, nil) }, &LiveOptions{InsecureTakeByLink: true})
	var live *browser.Page
	if onPhone {
		live = livePhone(ctx, t, l)
	} else {
		live = newPage(ctx, t, l.URL())
	}
	text := func(id string) string {
		return evalString(ctx, t, live, `function(){ const e = document.getElementById("`+id+`"); return e.hidden || !e.getClientRects().length ? "(hidden)" : e.textContent }`)
	}
	poll(ctx, t, "the live view to connect", func() bool { return strings.HasSuffix(text("banner"), "is using the browser") })

	// Before the User's turn the agent's click opens a chooser: it stays
	// the User's step, and no live view offers to answer it.
	if r, err := agentPage.Locate(ctx, "#scan"); err != nil {
		t.Fatal(err)
	} else if err := agentPage.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the agent's chooser recorded", func() bool { _, ok := agentPage.FileRequest(); return ok })

	if onPhone {
		browsertest.TapOn(ctx, t, live, "#take")
	} else {
		r, err := live.Locate(ctx, "#take")
		if err != nil {
			t.Fatal(err)
		}
		if err := live.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
			t.Fatal(err)
		}
	}
	poll(ctx, t, "the User's turn", func() bool { return text("banner") == "You have control" })
	if got := text("files"); got != "(hidden)" {
		t.Errorf("the agent's chooser from before the turn shows in the live view: %q", got)
	}
	if onPhone {
		poll(ctx, t, "the page at the phone's width", func() bool { return innerWidth(ctx, t, agentPage) == phone.Width })
	}

	// The User opens the page's chooser through the picture.
	poll(ctx, t, "a picture", func() bool {
		return evalString(ctx, t, live, `function(){ return String(document.getElementById("frame").naturalWidth > 0) }`) == "true"
	})
	if onPhone {
		browsertest.TapThrough(ctx, t, live, "#frame", agentPage, "#scan")
	} else {
		clickThrough(ctx, t, live, agentPage, "#scan")
	}
	poll(ctx, t, "the page's request in the live view", func() bool {
		return text("files-ask")+text("files-label") == "company.test asks for a file: Passport scan"
	})
	if got := evalString(ctx, t, live, `function(){ const i = document.getElementById("files-pick"); return i.accept + " " + i.multiple + " " + i.disabled }`); got != "image/*,.pdf false false" {
		t.Errorf("the live view's picker: accept, multiple, disabled = %s, want image/*,.pdf false false", got)
	}
	screenshot(ctx, t, live, "files-"+name+"-1-request")

	file := "passport-" + name + ".png"
	scan := scanBytes(300 << 10)
	pickOnDevice(ctx, t, live, file, "image/png", scan)
	select {
	case got := <-testSite.report("upload:" + file):
		if got != string(scan) {
			t.Errorf("the Company's server got %d bytes, want the %d picked, identical", len(got), len(scan))
		}
	case <-ctx.Done():
		t.Fatalf("the Company's page uploaded nothing (live view: %q)", text("files-note"))
	}
	want := fmt.Sprintf("uploaded:%s:%d:200", file, len(scan))
	poll(ctx, t, "the page's change handler", func() bool { return agentPage.Title(ctx) == want })
	if got := evalString(ctx, t, agentPage, `function(){ const f = document.getElementById("scan").files; return f.length + " " + f[0].name + " " + f[0].type + " " + f[0].size }`); got != fmt.Sprintf("1 %s image/png %d", file, len(scan)) {
		t.Errorf("the page's input.files = %s", got)
	}
	poll(ctx, t, "the live view to say it was sent", func() bool {
		return text("files-done") == "Sent to the page: "+file+" (300.0 KB)"
	})
	poll(ctx, t, "the request gone", func() bool { return text("files") == "(hidden)" })
	screenshot(ctx, t, live, "files-"+name+"-2-sent")
	if got := agentPage.ChosenFiles(); len(got) != 1 || got[0].Name != file || got[0].Size != len(scan) || got[0].Label != "Passport scan" {
		t.Errorf("the tab's chosen files = %+v", got)
	}

	sum := sha256.Sum256(scan)
	var line *audit.Entry
	entries, err := audit.Read(strings.NewReader(auditLines.String()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range entries {
		if entries[i].Event == audit.EventFile {
			line = &entries[i]
		}
	}
	if line == nil || line.How != audit.FileChosen || line.By != audit.ByUser || line.File == nil ||
		*line.File != (audit.File{Name: file, Size: len(scan), SHA256: hex.EncodeToString(sum[:])}) {
		t.Errorf("the audit's file line = %+v, want chosen by the user, %s, %d bytes, its sha256", line, file, len(scan))
	}
	chunk := base64.StdEncoding.EncodeToString(scan[1000:1100])
	if strings.Contains(auditLines.String(), chunk) || strings.Contains(logs.String(), chunk) {
		t.Error("the file's bytes are in the audit log or the logs")
	}
}

// TestFileOverBound: a file over the bound is refused with words, by the
// live view before it sends a byte and by the runtime when a viewer sends
// it anyway; the page gets nothing. A chooser that takes one file is
// refused two, and a file the input does not accept is refused.
func TestFileOverBound(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/passport")
	ctl := controlOn(agentPage)
	l, _ := startLiveWith(t, ctl, agentPage, nil, &LiveOptions{InsecureTakeByLink: true, MaxFileBytes: 64 << 10})
	live := newPage(ctx, t, l.URL())
	text := func(id string) string {
		return evalString(ctx, t, live, `function(){ return document.getElementById("`+id+`").textContent }`)
	}
	poll(ctx, t, "the live view to connect", func() bool { return strings.HasSuffix(text("banner"), "is using the browser") })
	r, err := live.Locate(ctx, "#take")
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the User's turn", func() bool { return text("banner") == "You have control" })
	if r, err := agentPage.Locate(ctx, "#scan"); err != nil {
		t.Fatal(err)
	} else if err := agentPage.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the page's request in the live view", func() bool { return text("files-label") == "Passport scan" })

	pickOnDevice(ctx, t, live, "passport-big.png", "image/png", scanBytes(100<<10))
	poll(ctx, t, "the live view's words on the bound", func() bool {
		return text("files-note") == "\u201cpassport-big.png\u201d is 100.0 KB; the largest file the live view sends is 64.0 KB."
	})
	screenshot(ctx, t, live, "files-over-bound")

	// A viewer that sends it anyway (its own script) is refused by the
	// runtime.
	req, ok := agentPage.FileRequest()
	if !ok {
		t.Fatal("the page's chooser is gone")
	}
	for _, tc := range []struct {
		files []fileMeta
		want  string
	}{
		{[]fileMeta{{Name: "passport-big.png", Type: "image/png", Size: 100 << 10}}, `"passport-big.png" is 100.0 KB; the largest file the live view sends is 64.0 KB`},
		{[]fileMeta{{Name: "a.png", Type: "image/png", Size: 10}, {Name: "b.png", Type: "image/png", Size: 10}}, "the page takes one file here"},
		{[]fileMeta{{Name: "notes.txt", Type: "text/plain", Size: 10}}, `"notes.txt" is not a kind of file the page takes here (image/*,.pdf)`},
		{[]fileMeta{{Name: "../../etc/passwd.png", Type: "image/png", Size: 10}}, "a file's name is not one a page can get"},
	} {
		c := &client{send: make(chan []byte, 4), done: make(chan struct{})}
		l.fileMessage(ctx, c, agentPage, inMsg{Type: "file_begin", Request: req.ID, Files: tc.files})
		var m fileAnswerMsg
		select {
		case b := <-c.send:
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
		default:
		}
		if m.Type != "file_refused" || m.Message != tc.want {
			t.Errorf("files %+v: %+v, want file_refused %q", tc.files, m, tc.want)
		}
	}
	// Chunks past the size announced are refused.
	c := &client{send: make(chan []byte, 4), done: make(chan struct{})}
	l.fileMessage(ctx, c, agentPage, inMsg{Type: "file_begin", Request: req.ID, Files: []fileMeta{{Name: "p.png", Type: "image/png", Size: 4}}})
	l.fileMessage(ctx, c, agentPage, inMsg{Type: "file_chunk", Request: req.ID, Data: []byte("12345")})
	if b := <-c.send; !bytes.Contains(b, []byte(`sent more bytes than its size`)) {
		t.Errorf("too many bytes: %s", b)
	}
	if got := evalString(ctx, t, agentPage, `function(){ return String(document.getElementById("scan").files.length) }`); got != "0" {
		t.Errorf("the page's input has %s files after the refusals, want 0", got)
	}

	// "Not now" closes the request in the live view and on the page.
	r, err = live.Locate(ctx, "#files-cancel")
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the request closed", func() bool {
		_, open := agentPage.FileRequest()
		return !open && evalString(ctx, t, live, `function(){ return String(document.getElementById("files").hidden) }`) == "true"
	})
}
