// Package check owns conformance checking of a Company's pages against
// browser-control v1: what `poppy-browser check URL...` runs and reports.
//
// It loads each page in the runtime's own browser as a Personal Agent that
// declared browser-control v1 (the Poppy-Extensions header on the Company's
// requests, navigator.poppy from package injector, the marks scanner of
// package marks in every frame), so what it reports is what an agent
// following the extension will do. It builds on package supervisor for that
// runtime (one per Company, without a Session, live view or audit file, with
// the marks watcher) rather than wiring it itself, and reads pages through
// browser, marks and injector; the agent's-eye snapshot goes through
// agent's gate (a read). It must not dispatch agent actions other than those listed
// under Probes, and it never lets a probe's navigation or non-GET request
// reach the Company's server.
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
//   - late marks (BC-4-mark-all): from document start the watcher of
//     package marks records when each mark appeared and when each control was
//     first painted visible and enabled; a control covered (by
//     [marks.Check] semantics) only by marks that appeared after it was
//     usable is a warning.
//   - fill (BC-4-fill-not-perform, Options.Fill): each submission form is
//     filled as the agent would (controls no mark refuses: typing, selecting,
//     clicking checkboxes); a submit, navigation or non-GET request caused by
//     filling is an error.
//   - submit paths (BC-4-mark-all): each unmarked button of a frame with a
//     marked form is clicked on a fresh load; one whose click submits a
//     marked form (its submit event, or formdata and a request) is an error.
//     Submissions that leave no such trace cannot be observed.
//   - controller (BC-8.2-not-a-guarantee, BC-6-not-relied-on): whether the
//     page's scripts read navigator.poppy.controller (counted by package
//     injector); then the page is loaded with "user": if it shows something
//     else, both views are kept with screenshots; and the first marked form
//     is filled and submitted as the User, to see whether the request
//     carries "user". These are info findings with the section 8.2 reminder.
//
// The agent's-eye view is the text of the agent's browser_snapshot, taken
// through [gate.Gate], and a screenshot with each marked element boxed.
//
// # Probes
//
// Fill, submit-path and User-submission probes are the only input the
// checker dispatches. While one runs, every navigation and non-GET request
// of the page is recorded and answered by the browser with 204 No Content
// ([browser.Browser.ObserveRequests]), so nothing reaches the server and the
// document stays. Options.NoProbe turns off the submit-path and User
// submission probes; fill runs only with Options.Fill.
//
// # Severities and exit codes
//
// An error means an agent following the extension would take the marked
// step itself, or would not apply the extension (discovery); a warning is a
// SHOULD of section 4 the page breaks or a value that counts as something
// else; info is what the Company should know. [Report.ExitCode] is 2 when a
// page could not be checked, 1 when a finding reaches the --fail-on
// severity, 0 otherwise.
//
// # The JSON report (schema "poppy-browser/check-report/v1")
//
//	{
//	  "schema": "poppy-browser/check-report/v1",
//	  "started": RFC 3339 time, "duration_seconds": number,
//	  "options": {"discovery": bool, "fill": bool, "probe": bool},
//	  "counts": {"error": n, "warning": n, "info": n},
//	  "failed": number of pages that could not be checked,
//	  "pages": [{
//	    "url", "final_url"?, "title"?, "status": "checked"|"failed", "error"?,
//	    "discovery"?: {"domain", "url", "ok", "error"?, "warnings"?: [string]},
//	    "marks": [{"frame", "element", "value", "kind", "covers": [{"element", "outside"?}]}],
//	    "findings": [{"severity": "error"|"warning"|"info", "check", "requirement",
//	                  "section", "message", "frame"?, "element"?,
//	                  "usable_at_ms"?, "marked_at_ms"?}],
//	    "checked": [requirement ID], "skipped": [requirement ID],
//	    "controller"?: {"reads", "read_frames"?, "changes_view", "sent"?, "sent_field"?},
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
// finding reaches --fail-on, skipped when the check did not run.
//
// # Concurrency
//
// A [Checker] checks one page at a time and is not safe for concurrent use.
// There is no package state.
package check
