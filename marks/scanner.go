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
// prelude.js opens the one function they share and exports.js closes it.
// Each file in between is one namespace: a constant named after its
// concern, the object its function returns (its exports); a file takes
// what it uses from earlier files' namespaces in const lines at its top
// (its imports), so this order runs from what depends on nothing to what
// depends on the rest, and a file uses no other file's names
// (TestScannerImports). A file of js/scanner/ missing from this list is a
// test failure (TestScannerParts).
var scannerParts = []string{
	"prelude.js",     // Dom: strict mode, the mark attribute, DOM entry points, local ids
	"tree.js",        // Tree: parents across shadow roots, adopted closed roots, focus
	"fields.js",      // Fields: a field's value and checked state, clip
	"changes.js",     // Changes: what changed since the memo's scan, from the mutation records
	"memo.js",        // Memo: the reads a scan records; its last whole-document scan, and its blocks to reuse
	"rules.js",       // Rules: the mark rules: what an action touches, which marks cover it
	"hittest.js",     // HitTest: where a click lands
	"roots.js",       // Roots: the shadow roots the guard listens in
	"armed.js",       // Armed: what the marks covered when the guard armed
	"verdict.js",     // Verdict: what an action touches, by the marks now
	"newdocument.js", // NewDocument: which new documents the guard arms at their start
	"guard.js",       // Guard: the in-page guard, and check, which arms it
	"scan.js",        // Scan: what the agent may read: one element's entry
	"text.js",        // Text: the walk: text in reading order, controls in their lines
	"layout.js",      // Layout: an entry's slots in the wire form (written from wirelayout.go)
	"wire.js",        // Wire: the scan as it crosses to Go (wire.go reads it)
	"helpers.js",     // Helpers: focus, select, scroll; reads for tests and reports
	"routes.js",      // Routes: reads for check: a form's other ways out, a wrapper's control
	"webmcp.js",      // WebMCP: declarative tools' forms, their marks, the fill a marked form allows
	"exports.js",     // globalThis.poppyMarks, from the namespaces' exports
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
