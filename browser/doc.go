// Package browser launches or attaches Chromium and gives the rest of
// poppy-browser the pages, frames and input it needs, with site isolation on.
//
// It owns the CDP connection: the targets and their frames (out-of-process
// iframes and popups included), the Poppy-Extensions header on the Company's
// requests and on no other, the scripts injected into every frame, and the
// dispatch of input. It decides no policy: what may be clicked is package
// marks' and agent's business, who may act is package control's.
//
// # Layering
//
// chromedp provides the transport (its pipe and websocket connections) and
// cdproto the typed commands. chromedp's own Browser routes only the
// sessions it created, and we must configure every auto-attached target
// (an out-of-process iframe, a popup) before its first script runs, so a
// small router of our own ([Session]) multiplexes the flat sessions.
// [Launch] sets auto-attach with waitForDebuggerOnStart on the browser and on
// every page and frame target: each new target gets its scripts and its own
// auto-attach, then runs.
//
// Requests are intercepted once, at the browser session (Fetch domain),
// which sees the requests of every target, workers and redirects included:
// each redirect hop is paused again, so a redirect from the Company to
// elsewhere does not carry the header on.
//
// # Browser contexts
//
// A [Context] is a browser context (cookies, storage, tabs): one per User
// when several share a Chromium ([Browser.NewContext]), or the default one
// of the tab Chromium opened at launch ([Browser.InitialPage], which reuses
// that tab, or an existing blank tab when attached, rather than opening
// one). Scripts set on a Context ([Context.SetScript]) run in its targets
// only, beside the browser's own; window input can be blocked per context.
//
// # Environment
//
// A Chromium we start gets an allowlisted environment, never ours whole:
// PATH, HOME, LANG, LC_*, TZ, TMPDIR, DISPLAY, WAYLAND_DISPLAY, XAUTHORITY,
// the XDG base and runtime directories (XDG_*_HOME, XDG_*_DIR, XDG_*_DIRS),
// FONTCONFIG_*, DBUS_SESSION_BUS_ADDRESS, and http_proxy, https_proxy and
// no_proxy in either case when set. The runtime's secrets (a model's API
// key, POPPY_MCP_TOKEN, anything else) stay out of the processes that run
// page content.
//
// # Lifecycle and concurrency
//
// A [Browser] lives until [Browser.Close], which ends the process and frees
// its temporary profile; the ctx of Launch bounds only the start. All types
// are safe for concurrent use. Frames are values; a [Frame] whose document
// went away answers with an error wrapping [ErrFrameGone].
package browser
