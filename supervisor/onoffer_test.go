package supervisor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestOnOfferGetsTheLink: each offer runs --on-offer with the User's
// single-use link and the offer on stdin, nothing of the link in argv or
// env; the Session keeps the same link for the offer (OfferLink); a
// command that hangs holds no later offer up.
func TestOnOfferGetsTheLink(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, _ := startSite(t)
	dir := t.TempDir()
	t.Setenv("POPPY_TEST_VISIBLE", "yes")
	t.Setenv("OPENAI_API_KEY", "sk-not-for-the-command")
	onOffer := fmt.Sprintf(`printf '%%s\n' "$0" "$@" > %[1]s/argv; env > %[1]s/env; cat > %[1]s/notice.$$; mv %[1]s/notice.$$ %[1]s/notice.json; sleep 60`, dir)
	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join:    supervisor.JoinOptions{Skip: true},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Offers:  supervisor.OfferOptions{Command: onOffer, Timeout: 90 * time.Second},
	})
	if err := sv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer sv.Close()

	offer := sv.Control().RequestUser("check in yourself", nil)
	var notice supervisor.OfferNotice
	waitFor(t, 60*time.Second, "--on-offer's notice on its stdin", func() bool {
		raw, err := os.ReadFile(filepath.Join(dir, "notice.json"))
		return err == nil && json.Unmarshal(raw, &notice) == nil
	})
	link, err := sv.Session().OfferLink(offer.ID)
	if err != nil || link.URL != notice.Link || !link.Expires.Equal(notice.Expires) {
		t.Errorf("the offer's link %q (%v), want --on-offer's %q", link.URL, err, notice.Link)
	}
	if notice.Offer.ID != offer.ID || notice.Offer.Reason != "check in yourself" || notice.Company != testsite.CompanyDomain ||
		!strings.Contains(notice.Link, "/live/link/") || time.Until(notice.Expires) > 10*time.Minute {
		t.Errorf("notice = %+v", notice)
	}
	tok := notice.Link[strings.LastIndex(notice.Link, "/")+1:]
	env, _ := os.ReadFile(filepath.Join(dir, "env"))
	argv, _ := os.ReadFile(filepath.Join(dir, "argv"))
	if strings.Contains(string(env)+string(argv), tok) || strings.Contains(string(env), "sk-not-for-the-command") || !strings.Contains(string(env), "POPPY_TEST_VISIBLE=yes") {
		t.Errorf("--on-offer's environment or argv holds the link or a key, or lacks the allowlisted variables:\n%s\n%s", argv, env)
	}

	// The first command still hangs: a second offer is made at once and
	// reaches the User too.
	asked := time.Now()
	second := sv.Control().RequestUser("pay", nil)
	if d := time.Since(asked); d > time.Second {
		t.Errorf("an offer took %s while --on-offer hangs", d)
	}
	waitFor(t, 60*time.Second, "the second offer's notice", func() bool {
		raw, err := os.ReadFile(filepath.Join(dir, "notice.json"))
		return err == nil && json.Unmarshal(raw, &notice) == nil && notice.Offer.ID == second.ID
	})
}
