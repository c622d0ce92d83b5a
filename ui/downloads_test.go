package ui

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

// boardingPage offers the boarding pass as a download.
const boardingPage = `<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1"><title>Boarding pass</title>
<main style="font: 16px sans-serif; padding: 12px"><h1>You are checked in</h1>
<p>Flight PA 1234 from Lisbon to Oslo, seat 14C.</p>
<p><a id="pass" href="/boarding-pass.pdf?k=dl-link-Zq7" style="display:inline-block; padding: 12px; font-size: 18px">Download your boarding pass</a></p></main>`

// boardingPass is the PDF's bytes: more than one chunk of the live view's.
var boardingPass = func() []byte {
	b := []byte("%PDF-1.4\n% boarding pass PA 1234 seat 14C\n")
	for len(b) < 700<<10 {
		b = append(b, byte(len(b)*31), byte(len(b)/7), '\n')
	}
	return append(b, "%%EOF\n"...)
}()

// TestDownloadInTurn: the boarding pass the page offers during the
// User's turn is offered in the live view (and only there), and saved on
// the User's device with identical bytes; the audit line has its name,
// size and SHA-256, and neither it nor the logs hold its bytes or link.
// On a desktop with a launched Chromium, and on a phone with one attached
// as from a pool (the bytes come over CDP).
func TestDownloadInTurn(t *testing.T) {
	for _, c := range []struct {
		name     string
		phone    bool
		attached bool
	}{{"desktop", false, false}, {"attached-phone", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
			defer cancel()
			var agentPage *browser.Page
			if c.attached {
				chr := browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Args: []string{siteHosts}})
				b, err := browser.Launch(ctx, &browser.Options{CDPURL: chr.URL})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = b.Close() })
				if agentPage, err = b.NewPage(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := agentPage.Navigate(ctx, "http://company.test/boarding"); err != nil {
					t.Fatal(err)
				}
			} else {
				agentPage = newPage(ctx, t, "http://company.test/boarding")
			}
			downloadTurn(ctx, t, c.name, agentPage, c.phone)
		})
	}
}

func downloadTurn(ctx context.Context, t *testing.T, name string, agentPage *browser.Page, onPhone bool) {
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
	press := func(sel string) {
		t.Helper()
		if onPhone {
			browsertest.TapOn(ctx, t, live, sel)
			return
		}
		r, err := live.Locate(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		if err := live.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
			t.Fatal(err)
		}
	}
	poll(ctx, t, "the live view to connect", func() bool { return strings.HasSuffix(text("banner"), "is using the browser") })
	// Outside the User's turn the agent's click starts a download: the
	// browser refuses it, and no live view offers it later.
	if r, err := agentPage.Locate(ctx, "#pass"); err != nil {
		t.Fatal(err)
	} else if err := agentPage.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the agent's download refused", func() bool { return len(agentPage.Downloads()) == 1 })
	press("#take")
	poll(ctx, t, "the User's turn", func() bool { return text("banner") == "You have control" })
	poll(ctx, t, "a picture", func() bool {
		return evalString(ctx, t, live, `function(){ return String(document.getElementById("frame").naturalWidth > 0) }`) == "true"
	})
	if onPhone {
		poll(ctx, t, "the page at the phone's width", func() bool { return innerWidth(ctx, t, agentPage) == phone.Width })
		browsertest.TapThrough(ctx, t, live, "#frame", agentPage, "#pass")
	} else {
		clickThrough(ctx, t, live, agentPage, "#pass")
	}
	if got := text("downloads"); got != "(hidden)" {
		t.Errorf("the agent's download from before the turn is offered in the live view: %q", got)
	}
	want := "company.test: boarding-pass.pdf (" + sizeWords(len(boardingPass)) + ") Save"
	poll(ctx, t, "the download offered in the live view", func() bool { return text("downloads-list") == want })
	if n := strings.Count(text("downloads-list"), "boarding-pass.pdf"); n != 1 {
		t.Errorf("the live view offers %d downloads, want the one of the User's turn", n)
	}
	screenshot(ctx, t, live, "download-"+name+"-1-offer")

	// The device saves what the live view hands it: catch the file it
	// makes (the save itself is the device's).
	if err := live.MainFrame().Call(ctx, "", `function(){ const make = URL.createObjectURL; window.saved = null;
		URL.createObjectURL = (b) => { window.saved = b; return make.call(URL, b) }; return "" }`, nil); err != nil {
		t.Fatal(err)
	}
	press(`#downloads-list button`)
	var saved string
	poll(ctx, t, "the file saved on the device", func() bool {
		var s string
		if err := live.MainFrame().Call(ctx, "", `async function(){ if (!window.saved) return "";
			const b = new Uint8Array(await window.saved.arrayBuffer()); let s = "";
			for (let i = 0; i < b.length; i += 4096) s += String.fromCharCode.apply(null, b.subarray(i, i + 4096));
			return btoa(s) }`, &s); err != nil {
			t.Fatal(err)
		}
		saved = s
		return s != ""
	})
	if got, _ := base64.StdEncoding.DecodeString(saved); string(got) != string(boardingPass) {
		t.Errorf("the saved file has %d bytes, want the %d of the boarding pass, identical", len(got), len(boardingPass))
	}
	poll(ctx, t, "the device's download under the page's name", func() bool {
		for _, d := range live.Downloads() {
			if d.Filename == "boarding-pass.pdf" {
				return true
			}
		}
		return false
	})
	poll(ctx, t, "the button to say saved", func() bool { return strings.HasSuffix(text("downloads-list"), ") Saved") })
	screenshot(ctx, t, live, "download-"+name+"-2-saved")

	sum := sha256.Sum256(boardingPass)
	entries, err := audit.Read(strings.NewReader(auditLines.String()))
	if err != nil {
		t.Fatal(err)
	}
	var line *audit.Entry
	for i := range entries {
		if entries[i].Event == audit.EventFile {
			line = &entries[i]
		}
	}
	if line == nil || line.How != audit.FileDownloaded || line.File == nil ||
		*line.File != (audit.File{Name: "boarding-pass.pdf", Size: len(boardingPass), SHA256: hex.EncodeToString(sum[:])}) {
		t.Errorf("the audit's file line = %+v, want downloaded, boarding-pass.pdf, %d bytes, its sha256", line, len(boardingPass))
	}
	chunk := base64.StdEncoding.EncodeToString(boardingPass[3000:3100])
	for what, s := range map[string]string{"audit log": auditLines.String(), "logs": logs.String()} {
		if strings.Contains(s, chunk) || strings.Contains(s, "dl-link-Zq7") {
			t.Errorf("the %s hold the download's bytes or link", what)
		}
	}
}
