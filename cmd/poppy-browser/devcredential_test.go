package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestDevCredential runs dev-credential as --assertion-cmd does (the
// request in POPPY_ENDPOINT and POPPY_RETURN_TO, a fresh config directory):
// it makes the key (0600), prints one line, a credential for that endpoint
// that the key printed by --public verifies, and signs with the same key
// the next time.
func TestDevCredential(t *testing.T) {
	bin := buildBinary(t)
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"POPPY_ENDPOINT=" + testsite.JoinEndpoint(), "POPPY_RETURN_TO=" + testsite.BookingURL()}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"dev-credential"}, args...)...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("dev-credential %v: %v", args, err)
		}
		return string(out)
	}
	first := run()
	key := filepath.Join(home, ".config", "poppy-browser", "dev-agent-key.pem")
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the development key %s: %v; want it made with mode 0600", key, err)
	}
	pub, err := session.ParsePublicKey([]byte(run("--public")))
	if err != nil {
		t.Fatal(err)
	}
	for i, out := range []string{first, run()} {
		if strings.Count(out, "\n") != 1 {
			t.Fatalf("credential %d: %q is not one line", i, out)
		}
		tok, err := jwt.ParseSigned(strings.TrimSpace(out), []jose.SignatureAlgorithm{jose.EdDSA})
		if err != nil {
			t.Fatalf("credential %d: %v", i, err)
		}
		var c jwt.Claims
		if err := tok.Claims(pub, &c); err != nil {
			t.Fatalf("credential %d does not verify with --public's key: %v", i, err)
		}
		if !c.Audience.Contains(testsite.JoinEndpoint()) || c.Subject != session.DevSubject {
			t.Errorf("credential %d: aud %v, sub %q; want the endpoint and %q", i, c.Audience, c.Subject, session.DevSubject)
		}
	}
}
