package check

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestCookiesFor: the crawl sends a storage state's cookie where a
// browser would: its domain and subdomains, its path, https for a secure
// one; nowhere else.
func TestCookiesFor(t *testing.T) {
	var st StorageState
	if err := json.Unmarshal([]byte(`{"cookies": [
		{"name": "s", "value": "1", "domain": ".shop.test", "path": "/", "secure": true},
		{"name": "a", "value": "2", "domain": "shop.test", "path": "/account"}]}`), &st); err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]string{
		"https://shop.test/":             "s",
		"https://www.shop.test/x":        "s",
		"http://shop.test/":              "",
		"https://shop.test/account":      "s a",
		"https://shop.test/account/edit": "s a",
		"https://shop.test/accounts":     "s",
		"https://evilshop.test/":         "",
		"https://shop.test.evil/":        "",
	} {
		u, _ := url.Parse(raw)
		var names []string
		for _, c := range st.cookiesFor(u) {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s: cookies %q, want %q", raw, got, want)
		}
	}
	if (*StorageState)(nil).cookiesFor(&url.URL{Host: "shop.test"}) != nil {
		t.Error("no state sends cookies")
	}
}
