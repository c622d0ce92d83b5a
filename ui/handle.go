package ui

import (
	"context"
	"errors"
	"math"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// handle runs one message from the User. Input is checked against the
// holder at the moment it arrives and dropped unless the User holds control.
func (l *Live) handle(ctx context.Context, c *client, m inMsg) {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	fail := func(msg string) { c.queue(errorMsg{Type: "error", Message: msg}) }
	if !l.loginAlive(c) {
		// Its turn is over (or its time): nothing more through it.
		l.endLogin(c, endedMsg{Type: "ended", Message: endedWords})
		return
	}
	switch m.Type {
	case "presence_begin":
		l.beginPresence(c)
		return
	case "presence":
		l.finishPresence(c, m.Credential)
		return
	}
	if c.readOnly && m.Type != "viewer" {
		fail("this live view only watches: its link was made read-only")
		return
	}
	if st := l.ctl.Status(); m.Type != "viewer" && l.proofOf(c, st) == nil &&
		!(m.Type == "cancel" && st.Controller == spec.ControllerAgent) {
		// Nothing but the offer card before the User's proof of presence;
		// only a decline (cancel while the agent holds control), which
		// the MCP client may send anyway (elicitation's decline), and
		// which gives nothing.
		if m.Type == "take" || m.Type == "hand_back" || m.Type == "cancel" {
			fail("prove it's you first: take control with your paired passkey")
			l.queueState(c)
		}
		return
	}
	switch m.Type {
	case "viewer":
		if err := l.setViewer(ctx, c, m); err != nil {
			l.log.Debug("live view viewer size not followed", "err", err)
			fail("the browser could not follow your screen size")
		}
		return
	case "take":
		if err := l.take(ctx, c); err != nil {
			l.log.Warn("live view take failed", "err", err)
			fail("could not take control: the browser did not switch over")
		}
		return
	case "download_get":
		l.sendDownload(c, m.Download) // downloads.go
		return
	case "hand_back", "cancel":
		// The User's own end of their turn: refused only from a viewer
		// while another one holds control (and it claims nothing).
		if l.viewerFor(c, l.ctl.Status()) == viewerAnother {
			fail("another viewer holds control")
			return
		}
		var err error
		// Text is the User's message to the agent; control cleans it.
		if m.Type == "hand_back" {
			err = l.ctl.User().HandBackSaying(ctx, m.Text)
		} else {
			err = l.ctl.User().CancelSaying(ctx, m.Text)
		}
		switch {
		case errors.Is(err, control.ErrNotHeld):
			fail("you do not hold control")
		case err != nil:
			l.log.Warn("live view return of control failed", "how", m.Type, "err", err)
			fail("control returned to the agent, but not every page heard of it")
		}
		return
	case "mouse", "touch", "key", "text", "locate", "dialog", "nav", "tab", "file_begin", "file_chunk", "file_cancel":
	default:
		fail("unknown message type")
		return
	}

	// Everything below touches the page: only while the User holds it.
	// (locate scrolls the element into view, so it waits for control too.)
	if !l.mayInput(c) {
		switch m.Type {
		case "locate":
			fail("you do not hold control")
		case "file_begin", "file_chunk":
			c.upload = nil
			c.queue(fileAnswerMsg{Type: "file_refused", Message: "take control here to send a file"})
		}
		return
	}
	p := l.page()
	if p == nil {
		fail("no page")
		return
	}
	var err error
	switch m.Type {
	case "file_begin", "file_chunk", "file_cancel":
		l.fileMessage(ctx, c, p, m)
		return
	case "mouse":
		err = l.mouse(ctx, p, m)
	case "touch":
		err = l.touch(ctx, c, p, m)
	case "nav", "tab":
		msg := ""
		if m.Type == "nav" {
			msg = l.navigate(ctx, p, m)
		} else {
			msg = l.tab(ctx, p, m)
		}
		if msg != "" {
			fail(msg)
		}
		return
	case "key":
		if m.Event != "down" && m.Event != "up" {
			fail("key event must be down or up")
			return
		}
		if err = p.Key(ctx, m.Key, m.Event == "down"); err != nil {
			// The key is what the User typed: neither logged nor echoed.
			fail("key not sent")
			return
		}
	case "text":
		if len(m.Text) > maxText {
			fail("text too long")
			return
		}
		if err = p.InsertText(ctx, m.Text); err != nil {
			fail("text not sent")
			return
		}
	case "dialog":
		if m.Accept == nil {
			fail("dialog: accept must be true or false")
			return
		}
		if derr := p.HandleDialog(ctx, *m.Accept, m.Text); derr != nil {
			// The text is what the User typed: neither logged nor echoed.
			fail("no dialog is open")
			return
		}
		l.broadcastState()
		return
	case "locate":
		r, lerr := p.Locate(ctx, m.Selector)
		if lerr != nil {
			fail("no element matches the selector")
			return
		}
		c.queue(locateMsg{Type: "locate", Selector: m.Selector, X: r.X, Y: r.Y, Width: r.Width, Height: r.Height})
		return
	}
	if errors.Is(err, browser.ErrDialogOpen) {
		// The input opened a dialog (or one is open): the state shows it.
		l.broadcastState()
		return
	}
	if err != nil {
		l.log.Debug("live view input failed", "type", m.Type, "err", err)
		fail(m.Type + " not sent")
	}
}

func (l *Live) mouse(ctx context.Context, p *browser.Page, m inMsg) error {
	if m.X == nil || m.Y == nil || !finite(*m.X) || !finite(*m.Y) || !finite(m.DeltaX) || !finite(m.DeltaY) {
		return errors.New("mouse event: bad coordinates")
	}
	switch m.Event {
	case "down", "up", "move", "wheel":
	default:
		return errors.New("mouse event: unknown event")
	}
	return p.Mouse(ctx, browser.MouseEvent{
		Type: m.Event, X: *m.X, Y: *m.Y, Button: m.Button,
		ClickCount: m.ClickCount, DeltaX: m.DeltaX, DeltaY: m.DeltaY,
	})
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
