package audit

import "github.com/poppy-browser/poppy-browser/internal/pagetext"

// Describe returns who acted ("agent", "user", "runtime") and one sentence
// on what happened, as the timeline and the terminal UI show an entry. Both
// are one safe line (package pagetext), even for a log written by hand or
// by an older version.
func Describe(e Entry) (who, what string) {
	who, what = describe(e)
	return pagetext.Line(who), pagetext.Line(what)
}
