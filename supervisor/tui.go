package supervisor

import (
	"context"
	"strings"

	"github.com/poppy-browser/poppy-browser/ui"
)

// RunTUI shows the User's terminal UI on the controlling terminal
// (/dev/tty) until the User quits or ctx ends. It fails with
// [ui.ErrNoTerminal] when there is none.
func (s *Supervisor) RunTUI(ctx context.Context) error { return s.sess.RunTUI(ctx) }

// TUIOptions describes the runtime to the User's terminal UI.
func (s *Supervisor) TUIOptions() *ui.TUIOptions { return s.sess.TUIOptions() }

// RunTUI shows the Session's terminal UI on the controlling terminal
// (/dev/tty) until the User quits or ctx ends. It fails with
// [ui.ErrNoTerminal] when there is none.
func (ss *Session) RunTUI(ctx context.Context) error {
	in, out, err := ui.OpenTerminal()
	if err != nil {
		return err
	}
	defer in.Close()
	defer out.Close()
	tui, err := ui.NewTUI(ss.TUIOptions())
	if err != nil {
		return err
	}
	return tui.Run(ctx, in, out)
}

// TUIOptions describes the runtime to the User's terminal UI: the Company,
// the Session, the agent's page and the live view.
func (ss *Session) TUIOptions() *ui.TUIOptions {
	s := ss.srv
	co := s.company
	company := co.Domain
	if co.Name != "" {
		company = co.Name + " (" + co.Domain + ")"
	}
	var exts []string
	for _, e := range co.Extensions {
		exts = append(exts, e.Name+" v"+e.Version)
	}
	note := s.opts.Live.SessionNote
	if note == "" {
		note = "joined"
	}
	if s.opts.Join.Skip {
		note = "no Session (--no-join): the website is treated as the Company's"
	}
	note += " · declares " + strings.Join(exts, ", ")
	var pair func() (ui.PairLink, error)
	if s.opts.Live.Passkeys != nil {
		pair = ss.PairingLink
	}
	return &ui.TUIOptions{
		Control: ss.control,
		Audit:   ss.audit,
		Company: company,
		Session: note,
		PageURL: func() string {
			if p := ss.Page(); p != nil {
				return p.URL()
			}
			return ""
		},
		LiveURL:  ss.LiveURL(),
		QuitEnds: s.opts.Live.QuitEnds,
		Outcome:  ss.outcome,
		Pair:     pair,
	}
}
