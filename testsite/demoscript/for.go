package demoscript

import (
	"regexp"

	"github.com/poppy-browser/poppy-browser/agent"
)

// checkInTask recognises the demo's task in the words people use for it.
var checkInTask = regexp.MustCompile(`(?i)\bcheck(ing)?(\s+(me|us|them|him|her))?[ -]?in\b|\bboarding pass\b`)

// Tasks names the tasks the scripted model has a script for, for the one
// line that turns any other task away.
const Tasks = `checking in at the demo airline (such as "Check me in for booking BKG4RT9 tomorrow, aisle seat")`

// For returns the script for task, and false when the scripted model has
// none: it follows scripts, it does not read tasks, so any other task needs
// a real model.
func For(task string) (agent.Script, bool) {
	if checkInTask.MatchString(task) {
		return CheckIn(task), true
	}
	return agent.Script{}, false
}
