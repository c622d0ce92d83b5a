// Package demoscript holds the scripted model's script for the demo
// airline: what the keyless demo agent does on the airline's pages. It sits
// beside package testsite (which knows those pages) and apart from it, so
// that tests of the runtime can import the airline without the agent.
package demoscript
