package ui

import (
	"net/http"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
)

// TestRefusedLinkRequestLogsNoLinkToken: a request for a control link that
// the live view refuses (another origin, another Host, the spend from
// another page) is logged by its path with the link's token left out: the
// token is the User's single-use secret and never reaches a log.
func TestRefusedLinkRequestLogsNoLinkToken(t *testing.T) {
	ctx := testContext(t)
	l, logs := startLive(t, control.New(nil), nil, nil)
	link, err := l.MintLink("", true)
	if err != nil {
		t.Fatal(err)
	}
	tok := link.URL[strings.LastIndex(link.URL, "/")+1:]
	for _, c := range []struct {
		name, method string
		header       http.Header
		host         string
	}{
		{"a fetch from another site", http.MethodGet, http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"cors"}}, ""},
		{"another Host", http.MethodGet, nil, "rebound.example:80"},
		{"the spend from another page", http.MethodPost, http.Header{"Origin": {"https://evil.example"}, "X-Poppy-Link": {"take"}}, ""},
	} {
		req, err := http.NewRequestWithContext(ctx, c.method, link.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.header {
			req.Header[k] = v
		}
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", c.name, resp.StatusCode)
		}
	}
	got := logs.String()
	if !strings.Contains(got, "live view request refused") {
		t.Fatalf("no refusal logged:\n%s", got)
	}
	if strings.Contains(got, tok) {
		t.Errorf("the log holds the control link's token:\n%s", got)
	}
}
