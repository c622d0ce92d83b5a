// Package demoscript is the demo: the scripted model's script for the demo
// airline (what the keyless demo agent does on the airline's pages), and
// [Run], which puts the airline, a runtime joined to its Session, the
// built-in agent and the User (played, or in the live view) together for
// `poppy-browser demo`. It sits beside package testsite (which knows the
// pages) and apart from it, so that tests of the runtime can import the
// airline without the agent; no runtime package imports it.
package demoscript
