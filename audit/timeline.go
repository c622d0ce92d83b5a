package audit

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/spec"
)

// WriteTimeline prints entries as a timeline a person reads: for each run
// (one process start) and, within it, each MCP session, in the order they
// first appear, a header, one line per entry (time, who, what happened)
// with a new date line whenever the day changes, and a summary of the
// hand-overs and of the agent's actions. Times are printed in UTC. It
// prints only what the entries hold, so it shows no secret the log does
// not hold.
func WriteTimeline(w io.Writer, entries []Entry) error {
	tw := &timelineWriter{w: w}
	if len(entries) == 0 {
		tw.printf("The audit log is empty.\n")
		return tw.err
	}
	groups := groupByRun(entries)
	run, first := "", true
	for _, g := range groups {
		if g.run != run || first {
			run = g.run
			if !first {
				tw.printf("\n")
			}
			if run != "" {
				tw.printf("Run %s\n", pagetext.Line(run))
			}
		}
		if g.session == "" && g.onlyStart() && runHasSessions(groups, g.run) {
			// The run's start line; its sessions follow.
			for _, e := range g.entries {
				_, what := Describe(e)
				tw.printf("  %s  %s\n", e.Time.UTC().Format("2006-01-02 15:04:05.000"), what)
			}
			first = false
			continue
		}
		if !first {
			tw.printf("\n")
		}
		first = false
		tw.group(g)
	}
	return tw.err
}

func (g *runGroup) onlyStart() bool {
	for _, e := range g.entries {
		if e.Event != EventStart {
			return false
		}
	}
	return true
}

func runHasSessions(groups []*runGroup, run string) bool {
	for _, g := range groups {
		if g.run == run && g.session != "" {
			return true
		}
	}
	return false
}

// runGroup is the entries of one run and session.
type runGroup struct {
	run, session string
	entries      []Entry
}

// groupByRun splits entries by run and session, keeping the order in which
// each first appears and the order of entries within each.
func groupByRun(entries []Entry) []*runGroup {
	var out []*runGroup
	index := map[[2]string]*runGroup{}
	for _, e := range entries {
		k := [2]string{e.Run, e.Session}
		g := index[k]
		if g == nil {
			g = &runGroup{run: e.Run, session: e.Session}
			index[k] = g
			out = append(out, g)
		}
		g.entries = append(g.entries, e)
	}
	return out
}

func (tw *timelineWriter) group(g *runGroup) {
	entries := g.entries
	first, last := entries[0].Time.UTC(), entries[len(entries)-1].Time.UTC()
	title := "Session timeline"
	if g.session != "" {
		title = "MCP session " + pagetext.Line(g.session)
	}
	tw.printf("%s: %d entries from %s to %s (UTC)\n", title, len(entries),
		first.Format("2006-01-02 15:04:05"), last.Format("2006-01-02 15:04:05"))
	var day string
	var sum timelineSummary
	for _, e := range entries {
		t := e.Time.UTC()
		if d := t.Format("2006-01-02"); d != day {
			day = d
			tw.printf("\n%s\n", t.Format("Monday 2 January 2006"))
		}
		who, what := Describe(e)
		sum.add(e)
		tw.printf("  %s  %-7s %s\n", t.Format("15:04:05.000"), who, what)
	}
	tw.printf("\n%s\n", sum.String())
}

type timelineWriter struct {
	w   io.Writer
	err error
}

func (tw *timelineWriter) printf(format string, args ...any) {
	if tw.err != nil {
		return
	}
	if _, err := fmt.Fprintf(tw.w, format, args...); err != nil {
		tw.err = fmt.Errorf("writing timeline: %w", err)
	}
}

// describe is Describe before sanitizing.
func describe(e Entry) (who, what string) {
	switch e.Event {
	case EventStart:
		s := "started"
		if e.Message != "" {
			s += " (" + e.Message + ")"
		}
		return "runtime", s
	case EventJoin:
		return "runtime", "joined the Company's Session; the browser landed on " + orDash(e.URL)
	case EventNavigate:
		if e.By == ByUser {
			if e.Reason != "" {
				return ByUser, fmt.Sprintf("navigated to %s, which failed (%s)", orDash(e.URL), e.Reason)
			}
			return ByUser, "navigated to " + orDash(e.URL)
		}
		return "agent", fmt.Sprintf("%s: now on %s", toolName(e), orDash(e.URL))
	case EventAction:
		s := fmt.Sprintf("%s%s on %s", toolName(e), refPart(e.Ref), orDash(e.URL))
		if e.To != "" && e.To != e.URL {
			s += "; it led to " + e.To
		}
		return "agent", s
	case EventDenied:
		return "agent", fmt.Sprintf("%s%s refused: %s%s", toolName(e), refPart(e.Ref), e.Reason, denialDetail(e))
	case EventOffer:
		if e.How == HowDeclined || e.How == HowCancelled { // cancelled: logs before "declined"
			return byOr(e.By, ByUser), fmt.Sprintf("declined the offer of control (%s)", offerPart(e))
		}
		s := "offered control to the User (" + offerPart(e) + ")"
		if e.Reason != "" {
			s += fmt.Sprintf(": %q", e.Reason)
		}
		return byOr(e.By, ByAgent), s
	case EventControl:
		switch e.How {
		case HowTake:
			s := "took control; the browser is the User's"
			if e.Offer != "" {
				s += " (" + e.Offer + ")"
			}
			return byOr(e.By, ByUser), s
		case HowHandedBack:
			return byOr(e.By, ByUser), fmt.Sprintf("handed control back to the agent (return %d); the agent must look again", e.ControlEpoch)
		case HowCancelled:
			return byOr(e.By, ByUser), fmt.Sprintf("cancelled; control is back with the agent (return %d)", e.ControlEpoch)
		}
		return byOr(e.By, "-"), fmt.Sprintf("control %s -> %s (%s)", orDash(e.From), orDash(e.To), orDash(e.How))
	case EventError:
		s := "error"
		if e.Tool != "" {
			s += " in " + e.Tool
		}
		if e.URL != "" {
			s += " at " + e.URL
		}
		if e.Reason != "" {
			s += " (" + e.Reason + ")"
		}
		if e.Message != "" {
			s += ": " + e.Message
		}
		return "runtime", s
	}
	return byOr(e.By, "-"), fmt.Sprintf("%s %s", e.Event, e.Message)
}

func toolName(e Entry) string {
	if e.Tool == "" {
		return "(no tool)"
	}
	return e.Tool
}

func refPart(ref string) string {
	if ref == "" {
		return ""
	}
	return " " + ref
}

func offerPart(e Entry) string {
	s := orDash(e.Offer)
	if e.Ref != "" {
		s += ", step " + e.Ref
	}
	return s
}

// denialDetail explains a denial's mark, when it has one.
func denialDetail(e Entry) string {
	m := e.Mark
	if m == nil {
		return ""
	}
	s := " (" + orDash(string(m.Kind)) + " mark on " + orDash(m.Marked)
	if m.Touches != "" && m.Touches != m.Marked {
		s += ", touches " + m.Touches
	}
	return s + ")"
}

func byOr(by, def string) string {
	if by == "" {
		return def
	}
	return by
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// timelineSummary counts what a session did.
type timelineSummary struct {
	offers, declined, takes, handBacks, cancels int
	userNavigations                             int
	actions, denied, userHasControl, errors     int
	userTime                                    time.Duration
	takenAt                                     time.Time
}

func (s *timelineSummary) add(e Entry) {
	switch e.Event {
	case EventOffer:
		if e.How == HowDeclined || e.How == HowCancelled { // cancelled: logs before "declined"
			s.declined++
		} else {
			s.offers++
		}
	case EventControl:
		switch e.How {
		case HowTake:
			s.takes++
			s.takenAt = e.Time
		case HowHandedBack, HowCancelled:
			if e.How == HowHandedBack {
				s.handBacks++
			} else {
				s.cancels++
			}
			if !s.takenAt.IsZero() {
				s.userTime += e.Time.Sub(s.takenAt)
				s.takenAt = time.Time{}
			}
		}
	case EventAction, EventNavigate:
		if e.By == ByUser {
			s.userNavigations++
		} else {
			s.actions++
		}
	case EventDenied:
		s.denied++
		if e.Reason == string(spec.ReasonUserHasControl) {
			s.userHasControl++
		}
	case EventError:
		s.errors++
	}
}

func (s *timelineSummary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Hand-overs: %d offered, %d declined, %d taken, %d handed back, %d cancelled", s.offers, s.declined, s.takes, s.handBacks, s.cancels)
	if s.userTime > 0 {
		fmt.Fprintf(&b, "; the User held control for %s", s.userTime.Round(time.Millisecond))
	}
	if !s.takenAt.IsZero() {
		b.WriteString("; the User still held control at the end")
	}
	if s.userNavigations > 0 {
		fmt.Fprintf(&b, "; the User navigated %d %s in their turns", s.userNavigations, plural(s.userNavigations, "time", "times"))
	}
	fmt.Fprintf(&b, ".\nAgent: %d actions done, %d refused (%d while the User held control); %d errors.", s.actions, s.denied, s.userHasControl, s.errors)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
