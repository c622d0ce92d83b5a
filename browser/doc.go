// Package browser launches or attaches Chromium and gives the rest of
// poppy-browser the tabs, frames and input it needs, with site isolation on.
//
// It owns the CDP connection: the targets and their frames (out-of-process
// iframes and popups included), the Poppy-Extensions header on the Company's
// requests and on no other, the scripts injected into every frame, dialogs,
// and the dispatch of input. It is the only package that speaks CDP: no raw
// protocol call leaves it, and only it imports chromedp or cdproto. Below
// it, [browser/internal/chromium] starts Chromium and
// [browser/internal/cdp] routes the protocol (the layers and why the
// router is our own: docs/architecture.md, "Inside package browser").
//
// What pages meet in this browser (the header's interception, preloading,
// downloads, file choosers, HTTP authentication, dialog floods, the User's
// device) and how its calls fail (bounds, a pool's refusal, error texts)
// are in docs/reference.md, section "The browser"; the environment a
// Chromium we start gets, in its section "Environment" (internal/childenv).
//
// # What it must not do
//
// Decide policy: what may be clicked is package marks' and gate's
// business, who may act is package control's, and how a dialog loop ends
// ([Options.DialogLimit]) and what becomes of a download
// ([Options.Downloads]) are [Options] the caller (package supervisor)
// sets. Pass the runtime's environment whole to a process that runs page
// content. Cap what a script returns: the cap on snapshot text is package
// gate's, a scan of one subtree the scanner's (package marks).
//
// # Model
//
// A [Context] is a browser context (cookies, storage, tabs): one per User
// when several share a Chromium ([Browser.NewContext]), or the default one
// of the tab Chromium opened at launch ([Browser.InitialPage], which reuses
// that tab, or an existing blank tab when attached). Scripts set on a
// Context ([Context.SetScript]) run in its targets only, beside the
// browser's own; window input can be blocked per context. Every top-level
// target is a [Page]; the pages of one browser context form a [Tabs] group,
// in the order they opened, with one active tab: a new tab becomes active;
// when the active tab closes, its opener, else the last tab, does.
// [Tabs.Mark] and [Tabs.OpenedSince] tell a caller which tabs an action
// opened. [Browser.EmulateDevice] and [Context.EmulateDevice] show the
// pages at the User's screen size (nil gives them their own viewport),
// their windows on a virtual screen of the device's ratio (at most
// [MaxFrameScale]) meanwhile, so [Page.Screencast] frames are that sharp;
// [Page.Touch] dispatches touch events; [Page.FocusedField] says which text
// field a tap focused. Downloads, file choosers and authentication
// challenges are recorded on their tab ([Page.Downloads],
// [Page.FileChoosers], [Page.AuthChallenges]). For the User's turn, a
// chooser the page opened ([Page.FileRequest]) is answered with the bytes
// of the User's files ([Page.ChooseFiles]: set in the page, no path on any
// disk) and a refused download is fetched again through the browser
// ([Page.FetchDownload]); both work with a browser attached from a pool.
//
// # Typed failures
//
// Every call returns within a bound with an error that says why, matched
// with errors.Is: [ErrBrowserGone] (every call fails at once from then on:
// [Browser.Gone], [Browser.Crashed]; [Tabs.Active] still answers with the
// last tab), [ErrPageBusy] ([Options.BusyTimeout]), [ErrDialogOpen] (until
// [Page.HandleDialog]; a dismissed one is [Dialog.Dismissed]),
// [ErrCrashed] ([Page.Crashed]), [ErrTabClosed], [ErrFrameGone],
// [ErrLoadTimeout] ([Options.LoadTimeout]; a navigation that committed but
// keeps loading returns with [NavResult].Loaded false), and a [NavError]
// for a navigation the browser refuses. Attaching with [Options.CDPURL]
// gives up after [Options.ConnectTimeout]. [Frame.Hold] stops a busy
// renderer's scripts without ending them (the debugger's pause: on in
// every page and frame target from its start, and armed only in renderers
// of documents a script's [Script].Holds names; every other renderer skips
// every pause, so no page there can time a debugger statement), so that a
// value can be set while none of them runs.
//
// # Lifecycle and concurrency
//
// A [Browser] lives until [Browser.Close], which ends the process group,
// waits for it, then frees its temporary profile and waits for the
// goroutines the Browser started (a crash cleans up the same way at once);
// the ctx of Launch bounds only the start. All types are safe for
// concurrent use. Frames are values; a [Frame] whose document went away
// answers with an error wrapping [ErrFrameGone].
package browser
