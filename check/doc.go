// Package check owns conformance checking of a Company's pages against
// browser-control v1: what `poppy-browser check URL...` runs and reports.
//
// It loads each page in the runtime's own browser as a Personal Agent that
// declared browser-control v1 (the Poppy-Extensions header on the Company's
// requests, navigator.poppy from package injector, the marks scanner of
// package marks in every frame), so what it reports is what an agent
// following the extension will do. Every section sees what the gate sees:
// each frame of the browser's frame list (same-origin, Company and
// out-of-process iframes), open shadow roots, and the closed roots that
// [marks.ScanFrame] adopts (of custom elements and of built-in hosts). It builds on package supervisor for that
// runtime (one per Company, without a Session, live view or audit file, with
// the marks watcher) rather than wiring it itself, and reads pages through
// browser, marks and injector; the agent's-eye snapshot goes through one
// gate per runtime (a read: the runtime's own gate follows its Session's
// tab, and each checked page is a tab of its own, so refs in the snapshots
// count on across a Company's pages, as one agent visiting them in turn
// would see them). It must not dispatch agent actions other than those
// listed under Probes, and it never lets a probe's navigation or non-GET
// request reach the Company's server.
//
// # Checks
//
// Each finding cites a requirement of [spec.Requirements] by ID.
//
//   - discovery (BC-3-poppy-json): poppy.json over HTTPS for the page's
//     host, valid, listing browser-control version "1" with an HTTPS
//     web.browser_session_endpoint ([session.Discover]); the draft 0.1
//     object shape is a warning. Options.NoDiscovery skips it and takes the
//     page's host as the Company's website.
//   - marks (BC-4-values, BC-4-attribute, BC-4-form-owner): each element
//     bearing data-poppy-user-step, its value, its kind after the value
//     rules ([spec.KindOf]) and the controls it covers (for a form, every
//     control it owns, form= ones outside it included). An unknown value and
//     submission on a non-form are warnings (they count as interaction).
//     A page whose Company frames have no mark at all gets an info
//     suggestion (BC-4-mark-all) for each of at most five enabled controls
//     that look like a User's step, judged by type and accessible name
//     only: a password field; a passport or identity document number; a
//     payment card's number, security code or expiry; a checkbox or switch
//     of consent (agree, accept, consent, terms, conditions, declare,
//     authorise); a button named to pay or buy ("Pay", "Place order", "Buy
//     now", "Purchase", "Confirm payment").
//   - late marks (BC-4-mark-all): from document start the watcher of
//     package marks records when each mark appeared and when each control was
//     first painted visible and enabled. The page is watched for
//     Options.Watch (default [DefaultWatch], 5 s; at most [MaxWatch]) after
//     it loads, then until its network and DOM have been quiet for
//     Options.Quiet (700 ms), at most Options.Settle (5 s) more, so a mark
//     added by a timer, a fetch or a framework's hydration seconds after load
//     is in the marks table, which is read at the end; a mark added after
//     the document was parsed carries its time (marked_at_ms). A control
//     covered (by [marks.Check] semantics) only by marks that appeared
//     after it was usable is a warning.
//   - fill (BC-4-fill-not-perform, Options.Fill): each submission form is
//     filled as the agent would (controls no mark refuses: typing, selecting,
//     clicking checkboxes); a submit, navigation or non-GET request caused by
//     filling is an error.
//   - escape routes (check "submit-paths", BC-4-mark-all): when a Company
//     frame has a marked form, each control of a Company frame that no mark
//     covers and no marked form owns is tried as an agent may: a button is
//     clicked, and pressed with Enter and with Space while focused; Enter is
//     pressed in a single-line field. A route that submits a marked form
//     (its submit event, or formdata and a request) is an error naming the
//     route (Finding.Route). At most Options.MaxProbes routes a page; the
//     page is loaded afresh before the first and after any route that
//     changed it. Submissions that leave no such trace cannot be observed.
//   - controller (BC-8.2-not-a-guarantee, BC-6-not-relied-on): whether the
//     page's scripts read navigator.poppy.controller while it loads
//     (counted by package injector); if so the page is loaded with "user":
//     if it shows something else, both views are kept with screenshots.
//     Then every marked form with a submit button is filled in and
//     submitted on a fresh load as the User and again as the agent, and
//     the request (answered by the browser) shows whether the page sends
//     the controller, in which field, with which value each way; a page
//     that reads the controller only when the form is submitted (section
//     6's pattern) is found this way. These are info findings with the
//     section 8.2 reminder.
//
// The agent's-eye view is the text of the agent's browser_snapshot, taken
// through [gate.Gate], and a screenshot with each marked element boxed.
//
// # Where a finding is
//
// An element-level finding (one with Element) points at its element as it
// was in the page's first load, whichever load a probe found it on:
// Selector matches exactly that element in its tree (the document, or the
// shadow root it is in), ShadowHosts are the selectors of its shadow hosts
// from the document down, FrameSelectors those of the frame elements from
// the top document down to its frame (absent for the top document; Frame
// stays the frame's URL), HTML its start tag (at most 200 characters; a
// non-empty value attribute of an input or textarea shows as "…"), and Box
// its place on the agent's screenshot, where the HTML report outlines it
// beside the marks. A selector is a chain of child steps (tag, with
// :nth-of-type(k) when siblings share the tag) from the nearest inclusive
// ancestor whose id is unique in its tree, or else from the tree's top
// ("html", or ":host" in a shadow root); it is checked with
// querySelectorAll before it is reported ([marks.Location]). A frame
// element inside a shadow tree is written as its hosts' selectors and its
// own, joined by " >>> ". [Finding.Where] puts it all on one line for the
// terminal and JUnit: frame selectors, hosts, selector, joined by " >>> ".
//
// # Probes
//
// Fill, escape-route and submission probes are the only input the checker
// gives, each through the gate in its probe mode ([gate.Prober]): the
// verdict, lease and dispatch of an agent's action, an audit line by
// "check"; the submission probe gives the User's input (no mark refuses
// it), as the User and as the agent. A probe as the User runs in a turn
// of the User's the prober takes through package control, as the User's
// take does, and hands back after. While one runs, every navigation and non-GET request
// of the page is recorded and answered by the browser with 204 No Content
// ([browser.Browser.ObserveRequests]), so nothing reaches the server and the
// document stays. Options.NoProbe turns off the escape-route and
// submission probes; fill runs only with Options.Fill. After each input a
// probe watches 700 ms for a submit event or a request (a submission starts
// within a task or two), 3 s more after a submit event without a request
// yet (a handler that fetches first). A probe's fresh load ends once the
// marks of the first load are back and the page was quiet for 400 ms.
//
// # Severities and exit codes
//
// An error means an agent following the extension would take the marked
// step itself, or would not apply the extension (discovery); a warning is a
// SHOULD of section 4 the page breaks or a value that counts as something
// else; info is what the Company should know. [Report.ExitCode] is 2 when a
// page could not be checked, 1 when a finding reaches the --fail-on
// severity, 0 otherwise. A page that could not be checked counts as one
// error ("could not check"), whatever it found before it failed: its
// findings are left out. A page that did not load says why; a name that is
// not found gets the --resolve hint only when this machine's DNS answers
// at all (offline, the page "could not be reached").
//
// # The JSON report (schema "poppy-browser/check-report/v1")
//
//	{
//	  "schema": "poppy-browser/check-report/v1",
//	  "started": RFC 3339 time, "duration_seconds": number,
//	  "options": {"discovery": bool, "fill": bool, "probe": bool},
//	  "counts": {"error": n, "warning": n, "info": n}, (a page that could not be checked is one error)
//	  "failed": number of pages that could not be checked,
//	  "pages": [{
//	    "url", "final_url"?, "title"?, "status": "checked"|"failed", "error"?, "seconds",
//	    "discovery"?: {"domain", "url", "ok", "error"?, "warnings"?: [string]},
//	    "marks": [{"frame", "element", "value", "kind", "marked_at_ms"?,
//	               "covers": [{"element", "outside"?, "form"?}]}],
//	    "findings": [{"severity": "error"|"warning"|"info", "check", "requirement",
//	                  "section", "message", "frame"?, "element"?, "selector"?,
//	                  "shadow_hosts"?: [string], "frame_selectors"?: [string],
//	                  "html"?, "box"?: {"x", "y", "width", "height"}, "route"?,
//	                  "usable_at_ms"?, "marked_at_ms"?}],
//	    "checked": [requirement ID], "skipped": [requirement ID],
//	    "controller"?: {"reads", "read_frames"?, "changes_view", "sent"?, "sent_field"?,
//	                    "reads_on_submit"?, "submissions"?: [{"frame", "form", "request"?,
//	                    "field"?, "as_user"?, "as_agent"?}]},
//	    "snapshot"?: string,
//	    "views"?: [{"controller", "text": [string], "width", "height",
//	                "boxes": [{"x", "y", "width", "height", "kind", "label"}]}]
//	  }]
//	}
//
// Fields may be added in later versions of the same schema; none will be
// removed or change meaning. [SchemaJSON] is the same as a JSON Schema.
// The JUnit report has one test case per page and requirement checked
// (classname the page URL, name the requirement ID): a failure when a
// finding reaches --fail-on, skipped when the check did not run; each
// finding's line is followed by its place and start tag. The terminal
// summary lists each page's findings most severe first, likewise.
//
// The HTML report is one self-contained file (no script, nothing loaded
// from elsewhere) that fits a desktop and a phone's width without
// scrolling sideways: the pages with their counts (a table of contents),
// every finding of every page most severe first, then each page: a
// summary, its findings, its marks, its screenshots with each mark boxed
// and each finding's element outlined with its number, and the agent's
// snapshot.
//
// # Concurrency
//
// [Checker.Run] checks Options.Parallel pages at once (default 2), each in
// its own tab of its Company's browser: one runtime per Company domain,
// shared by that Company's pages. Control, and with it navigator.poppy in
// every tab, is the runtime's, so a probe as the User holds its runtime
// alone while loads and probes as the agent share it. CheckPage and Run are safe for concurrent
// use; Close is not. There is no package state.
package check
