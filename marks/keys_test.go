package marks

import "testing"

func TestCanonicalKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Enter", "Enter"},
		{"\r", "Enter"},
		{"\n", "Enter"},
		{"Return", "Enter"},
		{"NumpadEnter", "Enter"},
		{"Shift+Return", "Shift+Enter"},
		{"Control+Shift+\r", "Control+Shift+Enter"},
		{"Tab", "Tab"},
		{"Shift+Tab", "Shift+Tab"},
		{"+", "+"},
		{"Control++", "Control++"},
		{" ", " "},
		{"a", "a"},
		{"", ""},
		{"enter", "enter"}, // key values are case-sensitive: not Enter
	} {
		if got := CanonicalKey(tc.in); got != tc.want {
			t.Errorf("CanonicalKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
