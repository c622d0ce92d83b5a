package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestChromiumFileChosenByUser: a file the User chose in their turn is
// named in the agent's next look, with its size, and none of its bytes.
func TestChromiumFileChosenByUser(t *testing.T) {
	g, ctl, p, ctx := tabsGate(t)
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/files"}), spec.OutcomeDone, "")
	must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	// The User clicks the input (in their live view) and picks a file.
	r, err := p.Locate(ctx, "input[type=file]")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
		t.Fatal(err)
	}
	var req browser.FileRequest
	for ok := false; !ok; {
		if req, ok = p.FileRequest(); !ok {
			select {
			case <-ctx.Done():
				t.Fatal("no file chooser")
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	secret := bytes.Repeat([]byte("PASSPORT-BYTES-"), 100)
	if err := p.ChooseFiles(ctx, req.ID, []browser.PickedFile{{Name: "passport.png", Type: "image/png", Data: secret}}); err != nil {
		t.Fatal(err)
	}
	if err := ctl.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	if !strings.Contains(snap.Text, `A file was chosen by the User for "Passport scan": "passport.png" (1500 bytes)`) {
		t.Errorf("the agent's look does not name the User's file:\n%s", snap.Text)
	}
	if strings.Contains(snap.Text, "PASSPORT-BYTES") {
		t.Errorf("the agent's look holds the file's bytes:\n%s", snap.Text)
	}
}

// TestChromiumDownloadForAgent: with --downloads-for-agent, a download an
// agent's click starts is fetched through the browser and saved in the
// folder, a new file each time, mode 0600; the result names it and its
// size, the audit line its SHA-256.
func TestChromiumDownloadForAgent(t *testing.T) {
	g, _, p, ctx, log := tabsGateAudit(t)
	dir := t.TempDir()
	g.saveTo = dir
	must(t, g.Do(ctx, Navigate{URL: "http://airline.test/files"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	link := refByName(t, snap, "link", "Download the ticket").Ref
	var saved []string
	for try := 0; try < 5 && len(saved) < 2; try++ {
		n := len(p.Downloads())
		res := must(t, g.Do(ctx, Click{Ref: link}), spec.OutcomeDone, "")
		if strings.Contains(res.Message, "saved for you as") {
			saved = append(saved, res.Message)
			continue
		}
		// The download's event came after the click's result: wait for
		// it, and click again.
		for len(p.Downloads()) == n {
			select {
			case <-ctx.Done():
				t.Fatalf("no download: %s", res.Message)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	if len(saved) < 2 {
		t.Fatalf("no two clicks said the download was saved: %q", saved)
	}
	for i, name := range []string{"ticket.pdf", "ticket (2).pdf"} {
		path := filepath.Join(dir, name)
		if !strings.Contains(saved[i], fmt.Sprintf("%q (8 bytes)", path)) {
			t.Errorf("result %d = %q, want it to name %s and its size", i, saved[i], path)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != "%PDF-1.4" {
			t.Errorf("%s = %q, %v; want the ticket's bytes", name, b, err)
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
	sum := sha256.Sum256([]byte("%PDF-1.4"))
	if !strings.Contains(log.String(), `"event":"file"`) || !strings.Contains(log.String(), hex.EncodeToString(sum[:])) {
		t.Errorf("no audit line with the download's sha256:\n%s", log.String())
	}
}
