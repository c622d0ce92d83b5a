package gate

import (
	"bytes"
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
