// Package check owns conformance checking of a Company's pages against
// browser-control v1: what `poppy-browser check URL...` runs and reports.
//
// It loads each page in the runtime's own browser as a Personal Agent that
// declared browser-control v1 (the Poppy-Extensions header on the Company's
// requests, navigator.poppy from package injector, the marks scanner of
// package marks in every frame), so what it reports is what an agent
// following the extension will do. Every section sees what the gate sees:
// every frame, open shadow roots, and the closed roots that
// [marks.ScanFrame] adopts. It builds on package supervisor for that
// runtime (one per Company, without a Session, live view or audit file,
// with the marks watcher) rather than wiring it itself, and reads pages
// through browser, marks and injector; the agent's-eye snapshot goes
// through one gate per runtime (a read: the runtime's own gate follows its
// Session's tab, and each checked page is a tab of its own, so refs in the
// snapshots count on across a Company's pages, as one agent visiting them
// in turn would see them).
//
// The checks (discovery, marks, late marks, fill, escape routes,
// controller, WebMCP), where a finding points ([Finding.Where], the
// served HTML's line), the probes' timings, the severities and exit codes
// ([Report.ExitCode]) and the formats of the JSON ([SchemaJSON]), JUnit,
// HTML, SARIF ([Report.WriteSARIFWith], for GitHub code scanning) and
// Lighthouse-shaped ([Report.WriteLighthouse]) reports are in
// docs/reference.md, section "Check report". Each finding has a stable id
// ([FindingIDs]) and cites a requirement of [spec.Requirements] by ID.
//
// # In a Company's CI
//
// Report files refuse links and non-regular files ([Files.Check]); a
// baseline of accepted findings ([Baseline], [Report.ApplyBaseline])
// makes a run fail only on new ones; [Checker.Crawl] finds the pages of a
// site from the pages given (links and sitemap.xml); Options.StorageState
// and Options.Headers check pages behind a login, their values never in a
// report; [ParseConfig] reads poppy-check.yaml as flags.
//
// # Probes
//
// Fill, escape-route and submission probes are the only input the checker
// gives, each through the gate in its probe mode ([gate.Prober]): the
// verdict, lease and dispatch of an agent's action, an audit line by
// "check". That probe view is of the runtime's own Session's one gate
// (supervisor.BrowserOptions.Probe, Supervisor.Prober): the checker builds
// no gate and wires nothing, and it loads its pages and waits for them to
// settle through the same view ([gate.Prober.Load], [gate.Prober.Settle]). A probe as the User runs in a turn of the User's the prober
// takes through package control, as the User's take does, and hands back
// after. While one runs, every navigation and non-GET request of the page
// is recorded and answered by the browser with 204 No Content
// ([browser.Browser.ObserveRequests]), so nothing reaches the server and
// the document stays. Options.NoProbe turns off the escape-route and
// submission probes; fill runs only with Options.Fill.
//
// # What it must not do
//
// Dispatch agent actions other than its probes, or drive a page around the
// gate; let a probe's navigation or non-GET request reach the Company's
// server; rebuild the runtime's wiring (package supervisor does that).
//
// # Concurrency
//
// [Checker.Run] checks Options.Parallel pages at once (default 2), each in
// its own tab of its Company's browser: one runtime per Company domain,
// shared by that Company's pages. Control, and with it navigator.poppy in
// every tab, is the runtime's, so a probe as the User holds its runtime
// alone while loads and probes as the agent share it. CheckPage and Run
// are safe for concurrent use; Close is not. There is no package state.
package check
