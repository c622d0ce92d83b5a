// Package markstest holds what the marks scanner reports of the demo
// check-in page, for tests of the packages above marks (the gate's own
// tests and package gatetest) that judge actions without a browser.
package markstest
