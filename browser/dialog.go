package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// Dialog is a JavaScript dialog a page opened. Message is the page's
// content, not the browser's.
type Dialog struct {
	Type          string // "alert", "confirm", "prompt", "beforeunload"
	Message       string
	URL           string // of the frame that opened it
	DefaultPrompt string
	At            time.Time
	// Dismissed is set on a dialog the browser dismissed itself because the
	// page opened dialogs in a loop (see [Options.DialogLimit]).
	Dismissed bool
}

type openDialog struct {
	Dialog
	s     *cdpconn.Session // where it opened, where it is answered
	frame cdp.FrameID      // the frame that opened it: its renderer is stopped
}

// dialogsKept is how many of a tab's last dialogs it remembers.
const dialogsKept = 16

// ErrNoDialog is returned by [Page.HandleDialog] when no dialog is open.
var ErrNoDialog = errors.New("no dialog is open")

// Dialog returns the dialog open in the tab, if any. While one is open,
// commands that need the page's main thread fail with ErrDialogOpen.
func (p *Page) Dialog() (Dialog, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialog == nil {
		return Dialog{}, false
	}
	return p.dialog.Dialog, true
}

// HandleDialog answers the open dialog: accept (OK) or not (Cancel), with
// promptText for a prompt.
func (p *Page) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	p.mu.Lock()
	d := p.dialog
	p.mu.Unlock()
	if d == nil {
		return ErrNoDialog
	}
	ctx, cancel := context.WithTimeout(ctx, p.b.busyTimeout())
	defer cancel()
	if err := d.s.Call(ctx, page.CommandHandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: promptText}, nil); err != nil {
		return fmt.Errorf("answering the dialog: %w", gone(err))
	}
	p.mu.Lock()
	if p.dialog == d {
		p.dialog = nil
		p.notifyLocked()
	}
	p.mu.Unlock()
	p.tabs.touch()
	return nil
}

func (p *Page) dialogOpened(s *cdpconn.Session, ev page.EventJavascriptDialogOpening) {
	d := Dialog{Type: string(ev.Type), Message: ev.Message, URL: ev.URL, DefaultPrompt: ev.DefaultPrompt, At: time.Now()}
	limit := p.b.opts.DialogLimit
	p.mu.Lock()
	if limit.Count > 0 {
		cut := 0
		for cut < len(p.recent) && d.At.Sub(p.recent[cut]) > limit.Window {
			cut++
		}
		p.recent = append(p.recent[cut:], d.At)
		if len(p.recent) > limit.Count {
			p.autoDismiss = true
		}
	}
	dismiss := p.autoDismiss
	d.Dismissed = dismiss
	p.dialogs = appendKept(p.dialogs, d)
	if !dismiss {
		p.dialog = &openDialog{Dialog: d, s: s, frame: ev.FrameID}
		p.notifyLocked()
	}
	p.mu.Unlock()
	p.tabs.touch()
	if dismiss {
		p.b.wg.Go(func() {
			ctx, cancel := context.WithTimeout(p.b.ctx, cleanupTimeout)
			defer cancel()
			_ = s.Call(ctx, page.CommandHandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: ev.Type == page.DialogTypeBeforeunload}, nil)
		})
	}
}

// appendKept appends v and keeps the last dialogsKept values.
func appendKept[T any](s []T, v T) []T {
	s = append(s, v)
	if len(s) > dialogsKept {
		s = append(s[:0:0], s[len(s)-dialogsKept:]...)
	}
	return s
}
