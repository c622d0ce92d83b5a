package secret

import (
	"strings"
	"testing"
)

// TestRedactURL: what may carry a credential (user info, query, fragment,
// a path segment that is not a plain word, or one after a segment naming a
// credential) is gone; the scheme, host and the path's words stay, so a
// reader still knows which endpoint it was.
func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ws://127.0.0.1:3000/chromium?token=tok-7Qz9&launch={}", "ws://127.0.0.1:3000/chromium"},
		{"wss://u:pw@pool.example/chromium/playwright#frag", "wss://pool.example/chromium/playwright"},
		{"ws://127.0.0.1:9222/devtools/browser/3f1c2a9e-7b4d-4e0f-9a51-0c6d2e8b7f10", "ws://127.0.0.1:9222/devtools/browser/[redacted]"},
		{"wss://pool.example/devtools/browser/tok7Qz9distinctive", "wss://pool.example/devtools/browser/[redacted]"},
		{"wss://pool.example/token/abc", "wss://pool.example/token/[redacted]"},
		{"wss://pool.example/apiKey/plainletters/connect", "wss://pool.example/apiKey/[redacted]/connect"},
		{"wss://pool.example/s/QWxhZGRpbjpvcGVuIHNlc2FtZQ", "wss://pool.example/s/[redacted]"},
		{"wss://pool.example/KjHgFdSaQwErTyUiOpLkMn", "wss://pool.example/[redacted]"},
		{"wss://pool.example/a%2Fb", "wss://pool.example/[redacted]"},
		{"http://127.0.0.1:9222", "http://127.0.0.1:9222"},
		{"http://127.0.0.1:9222/", "http://127.0.0.1:9222/"},
		{"https://pool.example/v1/json/version", "https://pool.example/v1/json/version"},
		{"http://127.0.0.1:41234/live?token=abc", "http://127.0.0.1:41234/live"},
		{"::not a url", Redacted},
	}
	for _, tc := range tests {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactText: every URL in a line of text is redacted, and so is a
// bearer credential; the words around stay.
func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"live view for the User of MCP session ab12: http://127.0.0.1:41234/live?token=Zx9_secret-value",
			"live view for the User of MCP session ab12: http://127.0.0.1:41234/live"},
		{"MCP (Streamable HTTP) at http://127.0.0.1:8931/ with the header: Authorization: Bearer Zx9_secret-value",
			"MCP (Streamable HTTP) at http://127.0.0.1:8931/ with the header: Authorization: Bearer [redacted]"},
		{"the agent offers you control (offer-1); take it in the live view: https://live.example/live?token=Zx9_secret-value.",
			"the agent offers you control (offer-1); take it in the live view: https://live.example/live."},
		{"attaching to wss://pool.example/devtools/browser/Zx9secretvalue: refused", "attaching to wss://pool.example/devtools/browser/[redacted]: refused"},
		{"nothing secret here", "nothing secret here"},
	}
	for _, tc := range tests {
		got := RedactText(tc.in)
		if got != tc.want {
			t.Errorf("RedactText(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "Zx9") {
			t.Errorf("RedactText(%q) keeps the secret: %q", tc.in, got)
		}
	}
}
