package gate

import (
	"reflect"
	"testing"
)

// TestActionsOnAnElementTakeARef: every action of the catalogue that
// gives input to an element it names by its ref (a Ref field, marks to
// check) says how a probe gives it one (onElement), and gives it: a new
// action on an element is probed like the rest without touching the
// prober. Reads (a snapshot or screenshot of one element) are not probes.
func TestActionsOnAnElementTakeARef(t *testing.T) {
	for _, e := range Catalogue() {
		a, err := e.Action(nil)
		if err != nil {
			t.Fatalf("%s: %v", e.Tool, err)
		}
		_, hasRef := reflect.TypeOf(a).FieldByName("Ref")
		hasRef = hasRef && a.plan().touch != nil
		on, ok := a.(onElement)
		if hasRef != ok {
			t.Errorf("%s (%T): a Ref field %v, but onElement %v", e.Tool, a, hasRef, ok)
			continue
		}
		if ok {
			if got := reflect.ValueOf(on.withRef("e42")).FieldByName("Ref").String(); got != "e42" {
				t.Errorf("%s: withRef(e42) left Ref %q", e.Tool, got)
			}
		}
	}
}

// TestEveryActionTellsTheUser: each action of the catalogue declares the
// words the User's feed tells it in (what it did, and its name in a
// refusal); without them the feed could only say "acted".
func TestEveryActionTellsTheUser(t *testing.T) {
	for _, e := range Catalogue() {
		if e.User.Did == "" || e.User.Refused == "" {
			t.Errorf("%s declares no words for the User (Decl.User): %+v", e.Tool, e.User)
		}
	}
}

// TestActionsAnswerToTheirTool: the action each entry builds names the
// entry's tool (the audit log names an action by it).
func TestActionsAnswerToTheirTool(t *testing.T) {
	for _, e := range Catalogue() {
		a, err := e.Action(nil)
		if err != nil {
			t.Fatalf("%s: %v", e.Tool, err)
		}
		if a.Tool() != e.Tool {
			t.Errorf("the action of %s (%T) answers to %s", e.Tool, a, a.Tool())
		}
	}
}
