// Package archtest holds no code, only tests of the repository's shape: the
// import rules of docs/architecture.md, read from `go list`. It belongs to
// no runtime package because it judges all of them; nothing imports it.
//
// The allow-list is one Go table (imports_test.go), one entry per package:
// a package may import the standard library and exactly what its entry
// names. A new package needs an entry, a new arrow needs a line in the
// table, and the review of that line is where the architecture is kept.
//
// sizes_test.go holds the sizes: a non-test Go file, a script, cmd in
// all, each under its limit, with an allow-list that is meant to be empty.
//
// contexts_test.go holds STYLE's "never store a context": no struct field
// of type context.Context outside package browser, but the ones its
// allow-list names, each with why.
package archtest
