package session

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
)

// TestJoinBadCompanies: a Company whose endpoint does not answer the 303 to
// return_to with a session cookie gets no joined browser, and one line that
// names it and what it answered. The Companies are real HTTPS servers.
func TestJoinBadCompanies(t *testing.T) {
	var mu sync.Mutex
	var leaked []string // bodies that reached elsewhere.test
	setSession := func(w http.ResponseWriter) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: rand.Text(), Path: "/", Secure: true, HttpOnly: true})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "home") })
	mux.HandleFunc("good.test/join", func(w http.ResponseWriter, r *http.Request) {
		setSession(w)
		http.Redirect(w, r, "https://good.test/home?x=1", http.StatusSeeOther)
	})
	mux.HandleFunc("ok200.test/join", func(w http.ResponseWriter, r *http.Request) {
		setSession(w)
		io.WriteString(w, "welcome")
	})
	mux.HandleFunc("offsite.test/join", func(w http.ResponseWriter, r *http.Request) {
		setSession(w)
		http.Redirect(w, r, "https://elsewhere.test/landing?token=abc", http.StatusSeeOther)
	})
	mux.HandleFunc("temp.test/join", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.test/collect", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("perm.test/join", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://perm.test/other", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("nocookie.test/join", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://nocookie.test/home?x=1", http.StatusSeeOther)
	})
	mux.HandleFunc("elsewhere.test/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		leaked = append(leaked, r.Method+" "+string(b))
		mu.Unlock()
		io.WriteString(w, "elsewhere")
	})
	mux.HandleFunc("perm.test/other", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Method+" perm.test/other")
		mu.Unlock()
	})
	client := redirectServer(t, mux)
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := &KeySigner{Key: priv, Issuer: "https://agent.test", Subject: "u", SessionID: "s"}

	tests := []struct {
		domain  string
		wantErr string // exact; "" means the join succeeds
	}{
		{"good.test", ""},
		{"ok200.test", "joining Air ok200 (ok200.test): the browser-session endpoint answered HTTP 200, not a 303 redirect to return_to"},
		{"offsite.test", "joining Air offsite (offsite.test): the browser-session endpoint redirected to elsewhere.test, not to return_to"},
		{"temp.test", "joining Air temp (temp.test): the browser-session endpoint answered a redirect that re-sends the credential (307 or 308) to elsewhere.test; refused before it was sent"},
		{"perm.test", "joining Air perm (perm.test): the browser-session endpoint answered a redirect that re-sends the credential (307 or 308) to perm.test; refused before it was sent"},
		{"nocookie.test", "joining Air nocookie (nocookie.test): the browser-session endpoint redirected to return_to but set no session cookie"},
	}
	for _, tc := range tests {
		t.Run(tc.domain, func(t *testing.T) {
			mu.Lock()
			leaked = nil
			mu.Unlock()
			jar, _ := cookiejar.New(nil)
			c := *client
			c.Jar = jar
			b := &formBrowser{site: &c}
			company := &Company{Domain: tc.domain, Name: "Air " + strings.TrimSuffix(tc.domain, ".test"), Endpoint: "https://" + tc.domain + "/join"}
			err := Join(t.Context(), b, company, signer, "https://"+tc.domain+"/home?x=1", nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Join: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("Join error = %v\nwant         %s", err, tc.wantErr)
			}
			if b.cleared != 1 {
				t.Errorf("cookies cleared %d times after a failed join, want 1", b.cleared)
			}
			if cookies, _ := b.Cookies(t.Context(), "https://"+tc.domain+"/"); len(cookies) != 0 {
				t.Errorf("the browser holds %d cookies after a failed join", len(cookies))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(leaked) != 0 {
				t.Errorf("the browser went on after the refusal: %q", leaked)
			}
		})
	}
}
