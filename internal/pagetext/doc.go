// Package pagetext makes strings that come from a web page safe to show:
// in the model's text, in the audit log and on a terminal. It is the one
// boundary every page-provided string (a name, a role, a title, a value, a
// URL, an exception message, an organization's name or an offer's page text)
// passes before it is written anywhere a reader could mistake it for ours.
//
// [Line] removes what could forge a line or a label, or drive a terminal:
// control characters (C0, DEL, C1 including NEL and the ESC that starts
// terminal sequences), bidirectional overrides, embeddings, isolates and
// marks, and byte-order marks; it turns tabs and every line or paragraph
// separator into a space and folds runs of white space, so the result is
// one line. [Role] admits only a known ARIA role. [URL] and [Host] summarise
// a URL that is not http(s) ("a data: URL", "a frame of this page") instead
// of printing it, because such a URL carries page-chosen text.
//
// It is pure Go with no I/O and imports nothing of ours; it must not decide
// policy (whose content a frame is: that is the snapshot's business).
package pagetext
