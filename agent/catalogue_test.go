package agent

import (
	"encoding/json"
	"testing"

	"github.com/poppy-browser/poppy-browser/gate"
)

// TestRegistryReadsTheCatalogue: the loop's browser actions are the gate's
// catalogue, with its schemas, not a second list.
func TestRegistryReadsTheCatalogue(t *testing.T) {
	set := DefaultActions().snapshot()
	n := 0
	for _, e := range gate.Catalogue() {
		if e.Loop.Name == "" {
			continue
		}
		n++
		a, ok := set[e.Loop.Name]
		if !ok {
			t.Errorf("the catalogue's %s (%s) is not in the loop's registry", e.Loop.Name, e.Tool)
			continue
		}
		want, _ := json.Marshal(e.Input)
		got, _ := json.Marshal(a.def.Input)
		if string(got) != string(want) {
			t.Errorf("%s: the loop's schema %s differs from the catalogue's %s", e.Loop.Name, got, want)
		}
	}
	if n == 0 {
		t.Fatal("the catalogue offers the loop no action")
	}
}
