package demoscript

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/poppy-browser/poppy-browser/agent"
)

var (
	seatWord    = regexp.MustCompile(`(?i)\b(aisle|window|middle)\b`)
	bookingWord = regexp.MustCompile(`(?i)\b(bkg[_-]?[a-z0-9]+)\b`)
)

// CheckIn is the demo agent's script for agent.Scripted: open
// check-in from the booking, choose the seat the task names, call the
// airline's check_in WebMCP tool (which leaves Check in to the User), and report the boarding pass once the page shows it. It
// lives with the demo airline because it knows the airline's pages.
func CheckIn(task string) agent.Script {
	seat := strings.ToLower(seatWord.FindString(task))
	booking := bookingWord.FindString(task)
	s := agent.Script{
		Success: "Your boarding pass is ready",
		Memory:  fmt.Sprintf("Task: check in (booking %s, seat %s).", orNone(booking), orNone(seat)),
		Intents: []agent.Intent{{
			Goal: "open the check-in page", Role: "link", Name: "Check in", Action: agent.ActClick,
			Until: agent.Match{Role: "combobox", Name: "Seat"},
		}},
		Summary: func(p *agent.SeenPage) string {
			got := p.After("Seat")
			if got == "" {
				return "Your boarding pass is ready."
			}
			return fmt.Sprintf("You are checked in: your boarding pass is ready, seat %s.", got)
		},
	}
	if seat != "" {
		s.Intents = append(s.Intents, agent.Intent{Goal: "choose the " + seat + " seat", Role: "combobox", Name: "Seat", Action: agent.ActSelect, Value: seat})
	}
	// Check in through the airline's own WebMCP tool (the check-in form,
	// toolname="check_in"): its submission mark makes the gate fill the
	// seat and leave the submission to the User (user_step), as a press
	// of Check in would.
	args := map[string]any{}
	if seat != "" {
		args["seat"] = seat
	}
	s.Intents = append(s.Intents, agent.Intent{Goal: "check in (a step the airline leaves to the User)", Role: "button", Name: "Check in",
		Action: agent.ActWebMCPCall, Tool: "check_in", Args: args, ForUser: true})
	return s
}

func orNone(s string) string {
	if s == "" {
		return "not given"
	}
	return s
}
