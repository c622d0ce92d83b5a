package demoscript

import "testing"

func TestFor(t *testing.T) {
	for _, tc := range []struct {
		task string
		want bool
	}{
		{"Check me in for booking BKG4RT9 tomorrow, aisle seat", true},
		{"check-in for bkg_4Rt9, window", true},
		{"get my boarding pass", true},
		{"What is the headline?", false},
		{"Book a flight to Lisbon", false},
		{"", false},
		{"check what is in the news", false},
		{"check us in, window seats", true},
	} {
		if _, got := For(tc.task); got != tc.want {
			t.Errorf("For(%q) = %v, want %v", tc.task, got, tc.want)
		}
	}
}
