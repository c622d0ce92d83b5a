package session

import (
	"context"
	"strings"
	"testing"

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
		{name: "one line", command: `printf 'tok.en.sig\n'`, want: "tok.en.sig"},
		{name: "trimmed", command: `printf '  tok.en.sig  \n\n'`, want: "tok.en.sig"},
		{name: "environment", command: `printf '%s|%s|%s' "$POPPY_ENDPOINT" "$POPPY_RETURN_TO" "$POPPY_DOMAIN"`,
			want: Secret(req.Endpoint + "|" + req.ReturnTo + "|" + req.Domain)},
		{name: "empty output", command: `printf ''`, wantErr: "credential command: printed no credential"},
		{name: "blank output", command: `printf '  \n'`, wantErr: "credential command: printed no credential"},
		{name: "two lines", command: `printf 'SECRET-ONE\nSECRET-TWO\n'`, wantErr: "credential command: printed more than one line"},
		{name: "failure", command: `printf 'SECRET-OUT'; printf 'SECRET-ERR' >&2; exit 3`, wantErr: "credential command: exit status 3"},
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
