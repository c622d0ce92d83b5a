package control

import "github.com/poppy-browser/poppy-browser/internal/pagetext"

// sanitized returns e with every string field made one safe line (package
// pagetext): URLs, titles and exception messages come from pages, and the
// log is read on terminals. A URL that is not http(s) is only summarised
// ("a data: URL"). Mark holds the runtime's own refs and kinds; what it
// holds is sanitized where it is printed (see Describe).
func (e AuditEntry) sanitized() AuditEntry {
	for _, f := range []*string{&e.Event, &e.Tool, &e.Ref, &e.Reason, &e.From, &e.To, &e.How, &e.By, &e.Offer, &e.Message} {
		*f = pagetext.Line(*f)
	}
	if e.URL != "" {
		e.URL = pagetext.URL(e.URL)
	}
	return e
}

// Describe returns who acted ("agent", "user", "runtime") and one sentence
// on what happened, as the timeline and the terminal UI show an entry. Both
// are one safe line (package pagetext), even for a log written by hand or
// by an older version.
func Describe(e AuditEntry) (who, what string) {
	who, what = describe(e)
	return pagetext.Line(who), pagetext.Line(what)
}
