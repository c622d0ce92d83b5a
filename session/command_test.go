package session

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCommandSource(t *testing.T) {
	req := CredentialRequest{
		Endpoint: "https://airline.test/poppy/browser-session",
		ReturnTo: "https://airline.test/bookings/bkg_4Rt9",
		Domain:   "airline.test",
	}
	tests := []struct {
		name    string
		command string
		want    Secret
		wantErr string
	}{
		{name: "one line", command: `printf 'tok.en.sig\n'`, want: NewSecret("tok.en.sig")},
		{name: "trimmed", command: `printf '  tok.en.sig  \n\n'`, want: NewSecret("tok.en.sig")},
		{name: "environment", command: `printf '%s|%s|%s' "$POPPY_ENDPOINT" "$POPPY_RETURN_TO" "$POPPY_DOMAIN"`,
			want: NewSecret(req.Endpoint + "|" + req.ReturnTo + "|" + req.Domain)},
		{name: "empty output", command: `printf ''`, wantErr: "credential command: printed no credential"},
		{name: "blank output", command: `printf '  \n'`, wantErr: "credential command: printed no credential"},
		{name: "two lines", command: `printf 'SECRET-ONE\nSECRET-TWO\n'`, wantErr: "credential command: printed more than one line"},
		{name: "failure", command: `printf 'SECRET-OUT'; printf 'first\nno session for airline.test\n\n' >&2; exit 3`,
			wantErr: `credential command: exit status 3 (stderr: "no session for airline.test")`},
		{name: "stderr echoes stdout", command: `printf 'SECRET-OUT'; echo 'bad token SECRET-OUT' >&2; exit 3`,
			wantErr: `credential command: exit status 3 (stderr: "bad token [redacted]")`},
		{name: "stderr holds a jwt", command: `echo 'rejected eyJhbGciOiJFZERTQSJ9.eyJTRUNSRVQiOjF9.c2lnbmF0dXJl' >&2; exit 1`,
			wantErr: `credential command: exit status 1 (stderr: "rejected [redacted]")`},
		{name: "stderr control characters", command: `printf 'a\033[31mred\tb\n' >&2; exit 1`,
			wantErr: `credential command: exit status 1 (stderr: "a [31mred b")`},
		{name: "no output, stderr", command: `echo 'not signed in' >&2`,
			wantErr: `credential command: printed no credential (stderr: "not signed in")`},
		{name: "no command", command: " ", wantErr: "credential command: no command given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CommandSource{Command: tc.command}.Credential(testContext(t), req)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("Credential() = %v, want error %q", got, tc.wantErr)
				}
				if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if strings.Contains(err.Error(), "SECRET") {
					t.Errorf("error holds the command's output: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Credential(): %v", err)
			}
			if diff := cmp.Diff(tc.want.Reveal(), got.Reveal()); diff != "" {
				t.Errorf("credential (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandSourceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	_, err := CommandSource{Command: "printf x"}.Credential(ctx, CredentialRequest{})
	if err == nil || !strings.HasPrefix(err.Error(), "credential command: context canceled") {
		t.Errorf("Credential() error = %v, want credential command: context canceled", err)
	}
}

func TestCommandSourceLongStderrLine(t *testing.T) {
	_, err := CommandSource{Command: `printf 'é%.0s' $(seq 1 500) >&2; exit 1`}.Credential(t.Context(), CredentialRequest{})
	if err == nil {
		t.Fatal("no error")
	}
	if len(err.Error()) > 300 || !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), "é…") {
		t.Errorf("error is not a bounded, valid line: %d bytes %q", len(err.Error()), err)
	}
}

// TestCommandSourceOutputCap: a command that prints 300 MB is stopped at the
// cap, at once, and the runtime's heap does not grow with the output.
func TestCommandSourceOutputCap(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := CommandSource{Command: `head -c 300000000 /dev/zero | tr '\0' 'A'`, Timeout: time.Minute}.Credential(t.Context(), CredentialRequest{})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != "credential command: output is larger than 65536 bytes" {
		t.Fatalf("error = %v, want the output cap", err)
	}
	if elapsed > 20*time.Second {
		t.Errorf("took %s to fail; the cap should stop it at once", elapsed)
	}
	if grew := int64(after.TotalAlloc - before.TotalAlloc); grew > 64<<20 {
		t.Errorf("allocated %d MiB while reading the command's output", grew>>20)
	}
}

// TestCommandSourceTimeout: a command that sleeps fails at its timeout, and
// its process group (sh and the sleep it started) is gone.
func TestCommandSourceTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	_, err := CommandSource{
		Command: `sleep 100 & echo $! > ` + pidFile + `; wait; echo x`,
		Timeout: 500 * time.Millisecond,
	}.Credential(t.Context(), CredentialRequest{})
	elapsed := time.Since(start)
	if err == nil || err.Error() != "credential command: timed out after 500ms" {
		t.Fatalf("error = %v, want the timeout", err)
	}
	if elapsed > 10*time.Second {
		t.Errorf("took %s for a 500ms timeout", elapsed)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The kill is synchronous but reaping by init is not: poll, bounded.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for syscall.Kill(pid, 0) == nil {
		if state, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(state), ") Z ") {
			break // a zombie waiting for init: it is dead
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the command's child %d (sleep 100) still runs after the timeout", pid)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestCommandEnv: the command gets the allowlist and nothing secret.
func TestCommandEnv(t *testing.T) {
	got := CommandEnv([]string{
		"PATH=/bin", "HOME=/h", "LANG=C", "LC_ALL=C", "TMPDIR=/t", "USER=u",
		"OPENAI_API_KEY=sk-1", "POPPY_MCP_TOKEN=t", "POPPY_API_KEY=k", "POPPY_PROFILE=p",
		"AWS_SECRET_ACCESS_KEY=a", "SSH_AUTH_SOCK=/s", "HTTPS_PROXY=http://x",
	})
	want := []string{"PATH=/bin", "HOME=/h", "LANG=C", "LC_ALL=C", "TMPDIR=/t", "USER=u", "POPPY_PROFILE=p"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CommandEnv (-want +got):\n%s", diff)
	}
	t.Setenv("OPENAI_API_KEY", "sk-SECRET")
	t.Setenv("POPPY_MCP_TOKEN", "SECRET-mcp")
	cred, err := CommandSource{Command: `env | tr '\n' ' '`}.Credential(t.Context(), CredentialRequest{Domain: "airline.test"})
	if err != nil {
		t.Fatal(err)
	}
	if env := cred.Reveal(); strings.Contains(env, "SECRET") || !strings.Contains(env, "POPPY_DOMAIN=airline.test") {
		t.Errorf("the command's environment is %q", env)
	}
}
