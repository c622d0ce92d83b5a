package check_test

import (
	"bytes"
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

// TestBehindLogin: a page behind a login is checked with Playwright's
// storage state (its cookie and local storage both reach the page), a
// page behind a header with --header's value, and no credential reaches
// any report; without them the pages cannot be checked.
func TestBehindLogin(t *testing.T) {
	dir := t.TempDir()
	statePath := filepath.Join(dir, "state.json")
	state := map[string]any{
		"cookies": []map[string]any{{"name": testsite.CheckLoginCookie, "value": testsite.CheckLoginValue, "domain": testsite.CompanyDomain,
			"path": "/", "expires": -1, "httpOnly": true, "secure": true, "sameSite": "Lax"}},
		"origins": []map[string]any{{"origin": "https://" + testsite.CompanyDomain, "localStorage": []map[string]string{{"name": testsite.CheckLoginStorage, "value": "member"}}}},
	}
	data, _ := json.Marshal(state)
	write(t, statePath, string(data))
	st, err := check.LoadStorageState(statePath)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "key")
	write(t, keyFile, testsite.CheckStagingKey+"\n")
	name, value, err := check.ParseHeader(testsite.CheckStagingHeader+"=@"+keyFile, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	pages := testsite.CheckLoginURLs()
	urls := []string{pages["members"], pages["staff"]}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()

	c := newChecker(t, check.Options{StorageState: st, Headers: map[string]string{name: value}})
	rep, err := c.Run(ctx, urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Pages {
		if p.Status != check.StatusChecked {
			t.Fatalf("%s: %s: %s", p.URL, p.Status, p.Error)
		}
		if !hasError(p, check.CheckSubmitPaths) {
			t.Errorf("%s: no escape route found behind the login: %+v", p.URL, p.Findings)
		}
	}
	if m := rep.Pages[0].Marks; len(m) != 1 || m[0].Kind != "interaction" {
		t.Errorf("members: marks %+v, want Pay marked by the script that reads the local storage", m)
	}
	files := check.Files{JSON: filepath.Join(dir, "r.json"), JUnit: filepath.Join(dir, "r.xml"), HTML: filepath.Join(dir, "r.html"),
		SARIF: filepath.Join(dir, "r.sarif"), Lighthouse: filepath.Join(dir, "r.lhr.json")}
	if err := rep.WriteFiles(files, check.Error, nil); err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	rep.WriteText(&text, check.Error)
	outputs := map[string][]byte{"terminal": text.Bytes()}
	for _, p := range []string{files.JSON, files.JUnit, files.HTML, files.SARIF, files.Lighthouse} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outputs[filepath.Base(p)] = b
	}
	for what, b := range outputs {
		for _, secret := range []string{testsite.CheckLoginValue, testsite.CheckStagingKey} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds a credential", what)
			}
		}
	}

	// Without the login, neither page can be checked.
	bare := newChecker(t, check.Options{NoProbe: true})
	rep, err = bare.Run(ctx, urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Pages {
		if p.Status != check.StatusFailed || !strings.Contains(p.Error, "HTTP 401") {
			t.Errorf("%s without a login: %s %q, want it not checked (HTTP 401)", p.URL, p.Status, p.Error)
		}
	}
}

func hasError(p check.PageReport, chk string) bool {
	for _, f := range p.Findings {
		if f.Severity == check.Error && f.Check == chk {
			return true
		}
	}
	return false
}

// TestParseHeader: a header's value comes from a file or the environment,
// never the command line, and an error never shows it.
func TestParseHeader(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	write(t, file, "Bearer s3cr3t\n")
	env := map[string]string{"STAGING_TOKEN": "Bearer s3cr3t"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		in, name, value, err string
	}{
		{"Authorization=@" + file, "Authorization", "Bearer s3cr3t", ""},
		{"x-staging-key=$STAGING_TOKEN", "X-Staging-Key", "Bearer s3cr3t", ""},
		{"Authorization=Bearer s3cr3t", "", "", "not on the command line"},
		{"Authorization=$MISSING", "", "", "is not set"},
		{"Authorization=@" + filepath.Join(dir, "none"), "", "", "reading its value"},
		{"Bad Name=$STAGING_TOKEN", "", "", "not a header name"},
		{"Authorization", "", "", "want NAME=@FILE"},
	} {
		name, value, err := check.ParseHeader(tc.in, getenv)
		switch {
		case tc.err == "" && (err != nil || name != tc.name || value != tc.value):
			t.Errorf("%q: %q %q %v", tc.in, name, value, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.err)
		case err != nil && strings.Contains(err.Error(), "s3cr3t"):
			t.Errorf("%q: the error shows the value: %v", tc.in, err)
		}
	}
}
