// Package audit writes the runtime's audit log, one JSON object a line, and
// prints it as a timeline a person reads.
//
// # What it owns
//
// The line format (docs/reference.md, "Audit log"): [Entry] with its event names
// ([EventStart], [EventJoin], [EventAction], ...), the words of control's
// events on a line ([HowTake], [HowDeclined], [ByUser], ...: [EntryOf]
// writes a [control.Event] in them; a [Log] is control's Recorder) and the typed
// [Mark] of a refused marked step; the writer [Log], which stamps every
// line with the process's run id ([RunID]) and, on a session's view
// ([Log.ForSession]), the MCP session, and keeps no query, fragment or user
// info of a web URL; [Read], which parses a log file; [WriteTimeline] (one
// timeline per run and session, so runs appended to one file stay apart)
// and [Describe], which render entries for people (the `poppy-browser
// audit` command and the terminal UI's feed).
//
// # What it must not do
//
// Hold a value the User typed, a token or a credential: callers put none in
// an [Entry], and the package keeps nothing but what it writes. Hold a
// control character from a page: [Log.Record] replaces every control
// character in a text field with a space, so a page cannot forge a line of
// the timeline. Keep entries in memory: a [Log] writes each entry and hands
// it to its observers ([Log.Observe]) as it comes; a timeline is built by
// reading the file back ([Read]).
//
// # Concurrency
//
// A [Log] is safe for concurrent use and lines never interleave. A nil *Log
// records nothing, so a runtime without an audit log needs no checks.
package audit
