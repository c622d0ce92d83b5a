package check_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestLoginCommandErrors: a login command that fails, prints nothing,
// prints what is not a storage state or runs too long gets a one-line
// error saying so, which never quotes what it printed on stdout (a
// credential); its last stderr line is named.
func TestLoginCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		timeout       time.Duration
		want          string
	}{
		{"fails", "echo s3cr3t-cookie; echo 'wrong password' >&2; exit 3", 0, `login command: exit status 3 (stderr: "wrong password")`},
		{"nothing", "true", 0, "login command: printed no storage state on stdout"},
		{"not json", "echo s3cr3t-cookie", 0, "not Playwright's storage-state JSON"},
		{"no cookie name", `echo '{"cookies":[{"value":"s3cr3t-cookie","domain":"airline.test"}]}'`, 0, "cookie 1 has no name or domain"},
		{"too long", "sleep 30", 300 * time.Millisecond, "login command: timed out after 300ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := check.StorageStateFromCommand(t.Context(), tc.command, "https://airline.test/", tc.timeout)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q and nothing printed on stdout", err, tc.want)
			}
		})
	}
}

// TestBehindLoginByCommand: a login command (here one that prints the
// storage state a login gave) runs once, with the first page's URL, and
// the page behind the login is checked as the member sees it: its Pay,
// marked by a script that reads the login's local storage.
func TestBehindLoginByCommand(t *testing.T) {
	dir := t.TempDir()
	state := map[string]any{
		"cookies": []map[string]any{{"name": testsite.CheckLoginCookie, "value": testsite.CheckLoginValue, "domain": testsite.CompanyDomain,
			"path": "/", "expires": -1, "httpOnly": true, "secure": true, "sameSite": "Lax"}},
		"origins": []map[string]any{{"origin": "https://" + testsite.CompanyDomain, "localStorage": []map[string]string{{"name": testsite.CheckLoginStorage, "value": "member"}}}},
	}
	data, _ := json.Marshal(state)
	statePath, urlPath := filepath.Join(dir, "state.json"), filepath.Join(dir, "url")
	write(t, statePath, string(data))
	members := testsite.CheckLoginURLs()["members"]
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	st, err := check.StorageStateFromCommand(ctx, `printf %s "$POPPY_CHECK_URL" > `+urlPath+`; cat `+statePath, members, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(urlPath); err != nil || string(got) != members {
		t.Errorf("the login command got POPPY_CHECK_URL=%q, want the first page %q", got, members)
	}
	c := newChecker(t, check.Options{StorageState: st, NoProbe: true})
	rep, err := c.Run(ctx, []string{members})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pages[0]
	if p.Status != check.StatusChecked {
		t.Fatalf("%s: %s: %s", p.URL, p.Status, p.Error)
	}
	if m := p.Marks; len(m) != 1 || m[0].Kind != "interaction" {
		t.Errorf("members: marks %+v, want Pay marked by the script that reads the local storage", m)
	}
}
