package tail_test

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/internal/tail"
)

func TestBuffer(t *testing.T) {
	tests := []struct {
		name     string
		max      int
		writes   []string
		want     string
		wantLast string
	}{
		{name: "under the cap", max: 10, writes: []string{"ab\n", "cd\n"}, want: "ab\ncd\n", wantLast: "cd"},
		{name: "keeps the tail across writes", max: 6, writes: []string{"first\n", "second\n"}, want: "econd\n", wantLast: "econd"},
		{name: "one write over the cap", max: 4, writes: []string{"abcdefgh"}, want: "efgh", wantLast: "efgh"},
		{name: "blank lines skipped", max: 64, writes: []string{"error: x\n", "  \n\n"}, want: "error: x\n  \n\n", wantLast: "error: x"},
		{name: "nothing written", max: 8, want: "", wantLast: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &tail.Buffer{Max: tc.max}
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if got := b.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if got := b.LastLine(); got != tc.wantLast {
				t.Errorf("LastLine() = %q, want %q", got, tc.wantLast)
			}
			if len(b.String()) > tc.max {
				t.Errorf("kept %d bytes, cap %d", len(b.String()), tc.max)
			}
		})
	}
}
