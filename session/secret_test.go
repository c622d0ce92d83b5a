package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const testSecret = "eyJhbGciOi.SECRET-PAYLOAD.sig"

func TestSecretRedacts(t *testing.T) {
	s := Secret(testSecret)
	type holder struct {
		Cred Secret
	}
	var logged bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logged, nil))
	logger.Info("join", "credential", s, "holder", holder{s})
	slog.New(slog.NewTextHandler(&logged, nil)).Info("join", "credential", s)
	encoded, err := json.Marshal(holder{s})
	if err != nil {
		t.Fatal(err)
	}

	outputs := map[string]string{
		"%v":     fmt.Sprintf("%v", s),
		"%+v":    fmt.Sprintf("%+v", s),
		"%#v":    fmt.Sprintf("%#v", s),
		"%s":     fmt.Sprintf("%s", s),
		"%q":     fmt.Sprintf("%q", s),
		"%x":     fmt.Sprintf("%x", s),
		"%d":     fmt.Sprintf("%d", s),
		"%#v{}":  fmt.Sprintf("%#v", holder{s}),
		"%+v{}":  fmt.Sprintf("%+v", holder{s}),
		"String": s.String(),
		"slog":   logged.String(),
		"json":   string(encoded),
		"error":  fmt.Errorf("wrapped: %v", s).Error(),
	}
	for name, out := range outputs {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(out, "SECRET") {
				t.Errorf("output holds the secret: %s", out)
			}
			if !strings.Contains(out, "[redacted]") {
				t.Errorf("output does not say [redacted]: %s", out)
			}
		})
	}
	if got := s.Reveal(); got != testSecret {
		t.Errorf("Reveal() = %q, want %q", got, testSecret)
	}
}
