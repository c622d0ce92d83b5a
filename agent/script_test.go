package agent

import (
	"fmt"
	"regexp"
	"strings"
)

// The tests' check-in script: the demo's (cmd/poppy-browser), kept here
// so that the package's tests need no program of their own.

var (
	testSeatWord    = regexp.MustCompile(`(?i)\b(aisle|window|middle)\b`)
	testBookingWord = regexp.MustCompile(`(?i)\b(bkg[_-]?[a-z0-9]+)\b`)
)

// checkInScript is the demo's script: open check-in from the booking,
// choose the seat the task names, leave Check in to the User, and report
// the boarding pass once the page shows it.
func checkInScript(task string) Script {
	seat := strings.ToLower(testSeatWord.FindString(task))
	booking := testBookingWord.FindString(task)
	s := Script{
		Success: "Your boarding pass is ready",
		Memory:  fmt.Sprintf("Task: check in (booking %s, seat %s).", orNone(booking), orNone(seat)),
		Intents: []Intent{{
			Goal: "open the check-in page", Role: "link", Name: "Check in", Action: ActClick,
			Until: Match{Role: "combobox", Name: "Seat"},
		}},
		Summary: func(p *SeenPage) string {
			got := p.After("Seat")
			if got == "" {
				return "Your boarding pass is ready."
			}
			return fmt.Sprintf("You are checked in: your boarding pass is ready, seat %s.", got)
		},
	}
	if seat != "" {
		s.Intents = append(s.Intents, Intent{Goal: "choose the " + seat + " seat", Role: "combobox", Name: "Seat", Action: ActSelect, Value: seat})
	}
	s.Intents = append(s.Intents, Intent{Goal: "check in (a step the airline leaves to the User)", Role: "button", Name: "Check in", Action: ActClick, ForUser: true})
	return s
}

func orNone(s string) string {
	if s == "" {
		return "not given"
	}
	return s
}
