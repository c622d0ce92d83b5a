package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/inspector"
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

// watch follows the events of one of the page's targets that change the
// tab's state: dialogs, crashes, new documents, file choosers. The handlers
// run on the read loop and must not block.
func (p *Page) watch(t *tgt) {
	s := t.s
	s.On(page.JavascriptDialogOpening.Method, func(raw jsonv2.Value) {
		if ev, ok := cdpconn.Decode[page.EventJavascriptDialogOpening](raw); ok {
			p.dialogOpened(s, ev)
		}
	})
	s.On(page.JavascriptDialogClosed.Method, func(jsonv2.Value) {
		p.mu.Lock()
		if p.dialog != nil && p.dialog.s == s {
			p.dialog = nil
			p.notifyLocked()
		}
		p.mu.Unlock()
		p.tabs.touch()
	})
	s.On(page.FileChooserOpened.Method, func(raw jsonv2.Value) {
		if ev, ok := cdpconn.Decode[page.EventFileChooserOpened](raw); ok {
			p.mu.Lock()
			p.choosers = appendKept(p.choosers, FileChooser{Frame: FrameID(ev.FrameID), Multiple: ev.Mode == page.FileChooserOpenedModeSelectMultiple, At: time.Now()})
			p.mu.Unlock()
		}
	})
	if t != p.t {
		return
	}
	s.On(inspector.TargetCrashed.Method, func(jsonv2.Value) { p.setCrashed() })
	s.On(page.FrameNavigated.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[page.EventFrameNavigated](raw)
		if !ok || ev.Frame == nil || ev.Frame.ParentID != "" {
			return
		}
		p.mu.Lock()
		p.crashed, p.autoDismiss, p.recent = false, false, nil
		p.notifyLocked()
		p.mu.Unlock()
		p.tabs.touch()
	})
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

func (p *Page) setCrashed() {
	p.mu.Lock()
	p.crashed = true
	p.dialog = nil
	p.notifyLocked()
	p.mu.Unlock()
	p.tabs.touch()
}

// appendKept appends v and keeps the last dialogsKept values.
func appendKept[T any](s []T, v T) []T {
	s = append(s, v)
	if len(s) > dialogsKept {
		s = append(s[:0:0], s[len(s)-dialogsKept:]...)
	}
	return s
}
