package marks

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// NewDocumentKey is the key under which the gate installs
// [NewDocumentGuard] in the Session's browser context (browser.SetScript).
const NewDocumentKey = "poppy-marks-new-document"

// NewDocumentGuard is a script, run at the start of every new document
// after the scanner (in [World], before any script of the page), that arms
// the guard there as a window after an action until the wall-clock time
// until, in the documents of the Company's website only (domain, the
// Company's organization.domain, and its subdomains): a navigation the
// action caused loads a document whose own script may submit a marked form
// on load, which is the action's step. Another website's document is never
// armed. A zero until arms nothing: installed under the same key, it ends
// the window for documents to come (a take does so before the User's
// input). It runs at document start only (browser.Script.StartOnly).
func NewDocumentGuard(domain string, until time.Time) browser.Script {
	ms := int64(0)
	if !until.IsZero() {
		ms = until.UnixMilli()
	}
	// The values are written by Go, the time as a number and the domain
	// as a JSON string: no page text reaches the source.
	d, _ := json.Marshal(domain) // a string always encodes
	src := "if (globalThis.poppyMarks) { (" + jsArmNew.call() + ")(" + strconv.FormatInt(ms, 10) + ", " + string(d) + "); }"
	return browser.Script{World: World, Source: src, StartOnly: true}
}
