package marks

import (
	"embed"
	"strings"
)

// scannerFiles holds js/scanner/*.js: the scanner split by concern.
//
//go:embed js/scanner/*.js
var scannerFiles embed.FS

// scannerParts is the order in which the scanner's files are joined.
// prelude.js opens the one function whose local scope the parts share
// (the scanner's state, the DOM entry points taken from this world's
// prototypes) and exports.js closes it; a part may use what an earlier
// part defines. A file of js/scanner/ missing from this list is a test
// failure (TestScannerParts).
var scannerParts = []string{
	"prelude.js", // strict mode, DOM entry points, local ids
	"tree.js",    // parents across shadow roots, adopted closed roots, focus
	"rules.js",   // the mark rules: what an action touches, which marks cover it
	"hittest.js", // where a click lands
	"guard.js",   // the in-page guard, and check, which arms it
	"memo.js",    // the last whole-document scan, while nothing it read changed
	"scan.js",    // what the agent may read: one element's entry
	"text.js",    // the walk: text in reading order, controls in their lines
	"wire.js",    // the scan as it crosses to Go (wire.go reads it)
	"helpers.js", // focus, select, scroll; reads for tests and reports
	"exports.js", // globalThis.poppyMarks
}

// scannerJS is the scanner: the files of js/scanner/ joined in the order
// of scannerParts into one script that defines globalThis.poppyMarks in
// [World].
var scannerJS = joinScanner()

// joinScanner concatenates scannerParts. A missing file is a build
// mistake (the list and the directory disagree), caught by every test of
// the package.
func joinScanner() string {
	var b strings.Builder
	for _, name := range scannerParts {
		src, err := scannerFiles.ReadFile("js/scanner/" + name)
		if err != nil {
			panic("marks: embedded scanner part missing: " + name)
		}
		b.Write(src)
		b.WriteByte('\n')
	}
	return b.String()
}
