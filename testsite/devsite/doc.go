// Package devsite holds the development Company's two subcommands of
// poppy-browser: testsite (serve the demo Company) and dev-credential (sign
// a join credential with the development agent key the testsite trusts).
// Like testsite, it is no part of the runtime: cmd wires it, nothing of
// the runtime imports it.
package devsite
