package control

import (
	"strings"
	"testing"
)

func TestCleanUserMessage(t *testing.T) {
	long := strings.Repeat("é", 100<<10)
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "done, I picked 14C", "done, I picked 14C"},
		{"trimmed", "  ok \n", "ok"},
		{"line breaks become spaces", "no visa\nnumber\tfor me", "no visa number for me"},
		{"CSI colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"OSC title", "a\x1b]0;owned\x07b", "ab"},
		{"C1 and DEL", "a\u0085\u009bb\x7fc", "abc"},
		{"bidi override", "pay \u202eevil", "pay evil"},
		{"invalid UTF-8", "ok\xff!", "ok!"},
		{"capped", long, strings.Repeat("é", MaxUserMessage)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CleanUserMessage(tc.in); got != tc.want {
				t.Errorf("CleanUserMessage(%.40q) = %.60q, want %.60q", tc.in, got, tc.want)
			}
		})
	}
}
