package supervisor

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestTUIGetsTheActionsWords: the User's terminal gets the words each
// action of gate's catalogue declares, so its feed says "clicked", not
// "acted".
func TestTUIGetsTheActionsWords(t *testing.T) {
	words := actionWords()
	if w := words[spec.ToolClick]; w.Did != "clicked" || w.Refused != "click" {
		t.Errorf("the TUI's words for %s: %+v; want clicked, click", spec.ToolClick, w)
	}
}
