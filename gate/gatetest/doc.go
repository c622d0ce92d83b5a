// Package gatetest gives tests of the gate and of its users (the MCP
// server, the built-in loop) a gate over a fake page: fixed scans, verdicts
// from a function, tabs, a dialog a test opens, a browser a test closes,
// and a record of every input the page got. [Page] is the one fake
// [gate.Surface]: it goes through the same interfaces as a real page, so
// every path of the gate runs under it. It is for tests only; an
// end-to-end test drives a real browser instead.
//
// It must not be imported by runtime packages.
package gatetest
