package gate

import (
	"fmt"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
)

// chosenFiles is the line of a look that says which files the User chose
// for the page in their turn: its label, the file's name and size, never
// its bytes (the agent never holds them). "" when none.
func chosenFiles(files []ChosenFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	for _, f := range files {
		label := ""
		if f.Label != "" {
			label = " for " + quote(pagetext.Line(f.Label))
		}
		fmt.Fprintf(&b, "A file was chosen by the User%s: %s (%d bytes); its content stays with the page.\n", label, quote(pagetext.Line(f.Name)), f.Size)
	}
	return b.String()
}
