// Package browser launches or attaches Chromium and gives the rest of
// poppy-browser the tabs, frames and input it needs, with site isolation on.
//
// It owns the CDP connection: the targets and their frames (out-of-process
// iframes and popups included), the Poppy-Extensions header on the Company's
// requests and on no other, the scripts injected into every frame, dialogs,
// and the dispatch of input. It is the only package that speaks CDP: no raw
// protocol call leaves it, and only it imports chromedp or cdproto. It
// decides no policy: what may be clicked is package marks' and gate's
// business, who may act is package control's.
//
// # Layering
//
// Three layers, one package each: [browser/internal/chromium] starts
// Chromium (our flags, site isolation on; an allowlisted environment; its
// own process group; finding the binary); [browser/internal/cdp] routes the
// DevTools protocol (chromedp's transport, cdproto's typed commands, the
// flat sessions of every target, subscriptions); and this package is the
// model the rest of poppy-browser uses. chromedp's own Browser routes only
// the sessions it created, and we must configure every auto-attached
// target (an out-of-process iframe, a popup) before its first script runs,
// hence the router of our own. [Launch] sets auto-attach with
// waitForDebuggerOnStart on the browser and on every page and frame
// target: each new target gets its scripts, its domains and its own
// auto-attach in commands sent back to back, the last of which lets it
// run; only then are the replies awaited (a target in a fresh renderer
// answers nothing before it runs), so no target is ever left paused.
// Beside them, browser/internal/seam hands a few test-only operations (a
// chosen viewport, a click from the window, the page's console, the
// profile directory) to package browsertest, and to no one else.
//
// It decides no policy: how a dialog loop ends and what becomes of a
// download are [Options] the caller (package supervisor) sets.
//
// Requests are intercepted once, at the browser session (Fetch domain),
// which sees the requests of every target, workers and redirects included:
// each redirect hop is paused again, so a redirect from the Company to
// elsewhere does not carry the header on.
//
// # The User's device
//
// [Browser.EmulateDevice] and [Context.EmulateDevice] show every page, and
// every page opened later, at the size of the User's screen (CDP device
// metrics with the mobile flag, and touch emulation) while the User holds
// control from a phone; nil gives the pages back their own viewport.
// [Page.Touch] dispatches touch events; [Page.FocusedField] says which text
// field a tap focused.
//
// # Tabs
//
// Every top-level target is a [Page]; the pages of one browser context form
// a [Tabs] group, in the order they opened, with one active tab: a new tab
// (a target=_blank link, window.open with or without noopener, a tab the
// User opens) becomes active; when the active tab closes, its opener, else
// the last tab, does. [Tabs.Mark] and [Tabs.OpenedSince] tell a caller which
// tabs an action opened. Frames of a target that went away, of a crashed
// renderer, or whose parent is gone are not listed ([Page.Frames]).
//
// # Bounded calls and typed failures
//
// Every call returns within a bound with an error that says why, matched
// with errors.Is:
//   - [ErrBrowserGone]: the process died, the connection closed or Close
//     began; every call fails at once from then on ([Browser.Gone],
//     [Browser.Crashed]), and a tab group whose tabs the going browser
//     detached first still answers [Tabs.Active] with its last tab, so no
//     caller mistakes a gone browser for one with no tab.
//   - [ErrPageBusy]: a command that needs a page's main thread (a script,
//     input, a DOM read) got no answer within [Options.BusyTimeout] (10 s).
//     The next navigation of that tab ends the script first, so the tab can
//     leave. [Frame.Hold] stops a busy renderer's scripts without ending
//     them (the debugger's pause: on in every page and frame target from
//     its start, and armed only in renderers of documents a script's
//     [Script].Holds names; every other renderer skips every pause, so no
//     page there can time a debugger statement), so that a value can be
//     set while none of them runs.
//   - [ErrDialogOpen]: a JavaScript dialog holds the tab. The call that
//     opened it (a click) returns as soon as it opens; later calls fail at
//     once until [Page.HandleDialog] answers it. With [Options.DialogLimit]
//     set (package supervisor sets five within five seconds), a page past
//     it gets every further dialog dismissed at once until its next
//     document (recorded, [Dialog.Dismissed]).
//   - [ErrCrashed]: the tab's renderer crashed ([Page.Crashed]); calls fail
//     at once; a navigation recovers the tab.
//   - [ErrTabClosed], [ErrFrameGone]: the tab closed (window.close() too),
//     the frame navigated away or was removed.
//   - [ErrLoadTimeout]: a navigation did not commit within
//     [Options.LoadTimeout] (20 s); one that committed but keeps loading
//     returns at that bound with [NavResult].Loaded false. A navigation the
//     browser refuses (DNS, connection, TLS error) is a [NavError].
//
// Attaching with [Options.CDPURL] gives up after [Options.ConnectTimeout]
// (10 s). A pool that refuses the connection with an HTTP status (429 when
// full, 408 when its queue timed out, 401 or 403) is reported by that
// status, in words, never by its body, which may echo the URL and its
// token; the status is read from the websocket dialer's error text, the
// one place it offers it. Errors name the URL without its query or user
// info. Protocol errors are matched by their JSON-RPC code and by the
// browser's own state (a context that no longer exists), never by text.
//
// # Preloading
//
// A Chromium we start has preloading off in its profile (speculation-rules
// prefetch and prerender, "preload pages"): the browser process makes those
// requests where the interception does not see them, so they would reach
// the Company without its header (PROTOCOL.md lists the kinds of request
// and which carry it).
//
// # Downloads, file choosers, authentication
//
// Downloads follow [Options.Downloads]; the only policy, and the zero
// value, refuses them (Browser.setDownloadBehavior deny), recorded on
// their tab ([Page.Downloads]): no page writes to the runtime's disk. File
// choosers are intercepted, open no dialog and pick no file, and are
// recorded ([Page.FileChoosers]): choosing a file is the User's step (there
// is no upload folder yet). HTTP authentication challenges are cancelled
// (the page shows the server's 401) and recorded ([Page.AuthChallenges]).
//
// # Snapshot size
//
// The browser does not cap what a script returns: the cap on snapshot text
// belongs to package gate, which builds the text; a scan of one subtree is
// the scanner's (package marks) to offer.
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
// A Chromium we start gets an allowlisted environment, never ours whole
// (internal/childenv; the list is in docs/reference.md, "Environment"):
// the runtime's secrets (a model's API key, POPPY_MCP_TOKEN, anything
// else) stay out of the processes that run page content.
//
// # Lifecycle and concurrency
//
// A [Browser] lives until [Browser.Close], which ends the process group,
// waits for it, then frees its temporary profile and waits for the
// goroutines the Browser started (a crash cleans up the same way at once); the
// ctx of Launch bounds only the start. All types are safe for concurrent
// use. Frames are values; a [Frame] whose document went away answers with an
// error wrapping [ErrFrameGone].
package browser
