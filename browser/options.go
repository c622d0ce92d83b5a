package browser

import (
	"log/slog"
	"time"
)

// Options configure [Launch]. The zero value launches a headless Chromium
// found on PATH that adds no header to any request.
type Options struct {
	ExecPath    string   // Chromium binary; "" finds one on PATH
	CDPURL      string   // attach to this browser (ws:// or http:// DevTools URL) instead of launching
	Headful     bool     // show a window
	Args        []string // extra command-line flags, e.g. --host-resolver-rules
	UserDataDir string   // "" uses a fresh temporary profile removed by Close
	Width       int      // viewport width in CSS pixels; 0 means 1280
	Height      int      // viewport height; 0 means 800

	// CompanyHost reports whether a request host (no port) belongs to the
	// Company. Requests to such hosts get CompanyHeaders; no other request
	// does. nil means no host is the Company's.
	CompanyHost    func(host string) bool
	CompanyHeaders map[string]string
	// CompanyURL, when set, decides instead of CompanyHost whether a
	// request URL gets CompanyHeaders (the caller's policy on schemes).
	CompanyURL func(url string) bool

	// BusyTimeout bounds a command that needs a page's main thread (a
	// script, input, a DOM read): past it the call fails with ErrPageBusy.
	// 0 means 10 s.
	BusyTimeout time.Duration
	// LoadTimeout bounds a navigation (see Page.Navigate) and Page.Settle.
	// 0 means 20 s.
	LoadTimeout time.Duration
	// ConnectTimeout bounds attaching to CDPURL (the connection, a wait in
	// a pool's queue, and the first commands). 0 means 10 s.
	ConnectTimeout time.Duration

	// Policies are the caller's (package supervisor's), not the browser's.

	// DialogLimit ends a page's dialog loop: see [DialogLimit]. The zero
	// value sets no limit.
	DialogLimit DialogLimit
	// Downloads says what becomes of a download; the zero value,
	// [DownloadsRefused], refuses it.
	Downloads DownloadPolicy

	Logger *slog.Logger // nil discards
}

// DialogLimit bounds a page that opens dialogs in a loop: once a tab opened
// more than Count within Window, every further dialog of the tab is
// dismissed at once (recorded with [Dialog].Dismissed) until its next
// document. Count 0 sets no limit.
type DialogLimit struct {
	Count  int
	Window time.Duration
}

// DownloadPolicy says what becomes of a download a page starts.
type DownloadPolicy int

// The download policies.
const (
	// DownloadsRefused refuses every download and records it on its tab
	// ([Page.Downloads]): no page writes to the runtime's disk.
	DownloadsRefused DownloadPolicy = iota
)

func (o *Options) width() int {
	if o.Width > 0 {
		return o.Width
	}
	return 1280
}

func (o *Options) height() int {
	if o.Height > 0 {
		return o.Height
	}
	return 800
}

func (b *Browser) busyTimeout() time.Duration {
	if b.opts.BusyTimeout > 0 {
		return b.opts.BusyTimeout
	}
	return 10 * time.Second
}

func (b *Browser) loadTimeout() time.Duration {
	if b.opts.LoadTimeout > 0 {
		return b.opts.LoadTimeout
	}
	return 20 * time.Second
}
