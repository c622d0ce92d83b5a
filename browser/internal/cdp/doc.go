// Package cdp is the DevTools protocol router beneath package browser: it
// multiplexes the flat sessions of one browser (the browser itself, its
// pages, out-of-process iframes and workers) over one chromedp Transport,
// routes replies to their callers and events to their sessions in the
// order the browser sent them, and queues subscriptions without bound
// ([queue.Queue]) so that the read loop never waits on a slow reader.
//
// chromedp's own Browser routes only the sessions it created; the
// auto-attached sessions of out-of-process iframes and popups, which must
// be configured before they run, need this router. It knows nothing of
// pages, frames, dialogs or policy: that is package browser's.
//
// A [Conn] lives until its transport fails or is closed ([Conn.Close]);
// then every pending and later call fails with an error wrapping
// [ErrBrowserGone] and every session closes. All types are safe for
// concurrent use. Handlers registered with [Session.On] run on the read
// loop and must not block.
package cdp
