// Package gatetest gives tests of the gate's users (the MCP server, the
// built-in loop) a gate over a fake page: fixed scans, verdicts from a
// function, and a record of every input the page got. It is for tests
// only; an end-to-end test drives a real browser instead.
//
// It must not be imported by runtime packages.
package gatetest
