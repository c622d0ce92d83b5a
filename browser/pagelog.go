package browser

import (
	"strings"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
	"github.com/poppy-browser/poppy-browser/browser/internal/seam"
)

// logWatchers are the watchLog callbacks of a browser, by page.
type logWatchers struct {
	mu   sync.Mutex
	next uint64
	fns  map[*Page]map[uint64]func(seam.LogLine)
}

// watchLog calls fn with every console message and uncaught exception of
// the page's frames (out-of-process iframes included, those attached later
// too) until stop is called. fn runs on the browser's event loop, in event
// order: it must be quick and must not call the browser. Tests keep the
// lines as artifacts and fail on exceptions (browsertest); the runtime does
// not read them.
func (p *Page) watchLog(fn func(seam.LogLine)) (stop func()) {
	w := &p.b.logs
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[*Page]map[uint64]func(seam.LogLine){}
	}
	if w.fns[p] == nil {
		w.fns[p] = map[uint64]func(seam.LogLine){}
	}
	w.next++
	key := w.next
	w.fns[p][key] = fn
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.fns[p], key)
		if len(w.fns[p]) == 0 {
			delete(w.fns, p)
		}
	}
}

// emit hands line to the watchers of the target's page.
func (t *tgt) emitLog(line seam.LogLine) {
	t.b.mu.Lock()
	p := t.page
	t.b.mu.Unlock()
	if p == nil {
		return
	}
	w := &t.b.logs
	w.mu.Lock()
	var fns []func(seam.LogLine)
	for _, fn := range w.fns[p] {
		fns = append(fns, fn)
	}
	w.mu.Unlock()
	for _, fn := range fns {
		fn(line)
	}
}

// watchLog forwards the target's console calls and uncaught exceptions to
// its page's watchers (the Runtime domain is on for every target).
func (t *tgt) watchLog() {
	t.s.On(runtime.ExceptionThrown.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[runtime.EventExceptionThrown](raw)
		if !ok || ev.ExceptionDetails == nil {
			return
		}
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		t.emitLog(seam.LogLine{Exception: true, Level: "exception", Text: text, URL: d.URL})
	})
	t.s.On(runtime.ConsoleAPICalled.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[runtime.EventConsoleAPICalled](raw)
		if !ok {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			switch {
			case a == nil:
			case a.Type == runtime.RemoteObjectTypeString:
				var s string
				if jsonv2.Unmarshal(a.Value, &s) == nil {
					parts = append(parts, s)
				}
			case len(a.Value) > 0:
				parts = append(parts, string(a.Value))
			case a.UnserializableValue != "":
				parts = append(parts, string(a.UnserializableValue))
			default:
				parts = append(parts, a.Description)
			}
		}
		url := ""
		if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
			url = ev.StackTrace.CallFrames[0].URL
		}
		t.emitLog(seam.LogLine{Level: string(ev.Type), Text: strings.Join(parts, " "), URL: url})
	})
}

// profileDir is the browser's profile directory: the temporary one Launch
// made (Close removes it) or [Options.UserDataDir]; "" for an attached
// browser. Tests check that Close leaves no temporary directory behind.
func (b *Browser) profileDir() string {
	if b.proc == nil {
		return ""
	}
	if b.proc.ProfileDir() != "" {
		return b.proc.ProfileDir()
	}
	return b.opts.UserDataDir
}
