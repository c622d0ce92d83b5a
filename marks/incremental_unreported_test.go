package marks_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
)

// unreportedPage holds what changes with no mutation record, or with one
// somewhere else than what it changes: style sheets a script adopts, a
// popover and a modal dialog, details toggled, shadow roots attached to
// elements already scanned, a custom element upgraded late, slots
// assigned by hand, content-visibility, a value typed, a node moved with
// moveBefore.
const unreportedPage = `<!doctype html><html><head><title>Unreported</title></head><body>
<div id="noise"><p>noise</p></div>
<section aria-label="One"><p id="p1">para one <a href="#a">link</a></p></section>
<div id="pop" popover><p>popover words <button>Pop button</button></p></div>
<dialog id="dlg"><p>dialog words <button>Close</button></p></dialog>
<details id="det"><summary>More</summary><p>details words</p></details>
<div id="late"><p>light words</p></div>
<x-late><span>x light</span></x-late>
<x-manual id="xm"><span id="s1">first slotted</span><span id="s2">second slotted</span></x-manual>
<div id="cv"><p>cv words <button>CV button</button></p></div>
<form><label>Name <input id="name"></label></form>
<div id="movebox"><p id="mv">moved para</p><p>stays</p></div><div id="dest"><p>dest</p></div>
<script>
  const xm = document.getElementById("xm");
  const r = xm.attachShadow({ mode: "open", slotAssignment: "manual" });
  r.innerHTML = "<p>manual: <slot></slot></p>";
  r.querySelector("slot").assign(document.getElementById("s1"));
</script>
</body></html>`

func init() {
	extraFixtures = append(extraFixtures, func(mux *http.ServeMux) {
		mux.HandleFunc("/unreported.html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, unreportedPage)
		})
	})
}

// TestScanAfterUnreportedChanges holds ScanAgain to a whole scan after
// each change a MutationObserver does not report where it takes effect,
// each made with a small change elsewhere so that the scan reuses blocks.
func TestScanAfterUnreportedChanges(t *testing.T) {
	steps := []struct{ what, js string }{
		{"adopted sheet hides p1", `const s = new CSSStyleSheet(); s.replaceSync("#p1{display:none}"); document.adoptedStyleSheets = [s];`},
		{"popover shown", `document.getElementById("pop").showPopover();`},
		{"dialog modal", `document.getElementById("dlg").showModal();`},
		{"details opened", `document.getElementById("det").open = true;`},
		{"shadow root attached to a scanned div", `document.getElementById("late").attachShadow({ mode: "open" }).innerHTML = "<p>shadow after <slot></slot></p><p>second shadow block</p>";`},
		{"text in the late shadow root", `document.getElementById("late").shadowRoot.querySelector("p").firstChild.data = "shadow changed ";`},
		{"second block of the late root", `document.getElementById("late").shadowRoot.lastElementChild.textContent = "second changed";`},
		{"custom element upgraded", `customElements.define("x-late", class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = "<p>upgraded words <button>Up</button></p>"; } });`},
		{"text in the upgraded root", `document.querySelector("x-late").shadowRoot.querySelector("p").firstChild.data = "upgraded changed ";`},
		{"slot assigned by hand", `document.getElementById("xm").shadowRoot.querySelector("slot").assign(document.getElementById("s2"));`},
		{"content-visibility hidden", `const s = new CSSStyleSheet(); s.replaceSync("#cv{content-visibility:hidden}"); document.adoptedStyleSheets = [...document.adoptedStyleSheets, s];`},
		{"value typed", `document.getElementById("name").value = "typed";`},
		{"moveBefore", `const d = document.getElementById("dest"), m = document.getElementById("mv"); if (d.moveBefore) d.moveBefore(m, null); else d.append(m);`},
		{"popover hidden", `document.getElementById("pop").hidePopover();`},
		{"sheets dropped", `document.adoptedStyleSheets = [];`},
		{"shadow root's adopted sheet", `const s = new CSSStyleSheet(); s.replaceSync("p{display:none}"); document.getElementById("late").shadowRoot.adoptedStyleSheets = [s];`},
		{"dialog closed", `document.getElementById("dlg").close();`},
	}
	tp, ctx := open(t, "/unreported.html")
	last, err := marks.ScanAgain(ctx, tp.frame, marks.Scan{})
	if err != nil {
		t.Fatal(err)
	}
	reused := 0
	for i, s := range steps {
		js := `function() { document.getElementById("noise").append(" n` + fmt.Sprint(i) + `"); ` + s.js + ` }`
		if err := tp.frame.Call(ctx, "", js, nil); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		sc, got, want, whole, took := scanBothWays(ctx, t, tp.frame, last)
		last = sc
		if took {
			reused++
		}
		if got != want {
			t.Errorf("after %s: the scan after the change:\n%s\na whole scan:\n%s", s.what, got, want)
			continue
		}
		if !reflect.DeepEqual(sc.Elements, whole) {
			var b strings.Builder
			fmt.Fprintf(&b, "%+v\n%+v", sc.Elements, whole)
			t.Errorf("after %s: ScanAgain's entries are not a whole scan's:\n%s", s.what, b.String())
		}
	}
	if reused < len(steps)/2 {
		t.Errorf("only %d of %d scans took blocks over: the changes were not held to the incremental scan", reused, len(steps))
	}
}
