package marks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// randomPage is a page of nested blocks, inline text, controls, labels,
// names by aria-labelledby, marks, tables, details, fieldsets, hidden
// parts, editable parts and shadow hosts (declarative open roots with
// slots), made from seed: the pages the incremental scan is held to.
func randomPage(seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 2024))
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><head><title>Random</title><style>.gone{display:none} .faded{visibility:hidden}</style></head><body>\n")
	n := 0
	id := func() string { n++; return "x" + strconv.Itoa(n) }
	var block func(depth int)
	inline := func() {
		switch rng.IntN(9) {
		case 0:
			fmt.Fprintf(&sb, `<a href="#l%d">link %d</a> `, rng.IntN(99), rng.IntN(99))
		case 1:
			fmt.Fprintf(&sb, `<button id="%s">Button %d</button> `, id(), rng.IntN(99))
		case 2:
			fmt.Fprintf(&sb, `<label>Field %d <input id="%s" value="v%d"></label> `, rng.IntN(99), id(), rng.IntN(9))
		case 3:
			fid := id()
			fmt.Fprintf(&sb, `<label for="%s">Named %d</label><input type="checkbox" id="%s"> `, fid, rng.IntN(99), fid)
		case 4:
			fmt.Fprintf(&sb, `<select id="%s"><option>One</option><option selected>Two %d</option></select> `, id(), rng.IntN(9))
		case 5:
			fmt.Fprintf(&sb, `<span id="%s">span words %d</span> `, id(), rng.IntN(99))
		case 6:
			fmt.Fprintf(&sb, `<img alt="picture %d"> <b>bold</b> `, rng.IntN(99))
		case 7:
			fmt.Fprintf(&sb, `<span role="button" aria-labelledby="x%d">widget</span> `, 1+rng.IntN(n+1))
		default:
			fmt.Fprintf(&sb, "text %d ", rng.IntN(999))
		}
	}
	block = func(depth int) {
		kids := 1 + rng.IntN(4)
		if depth > 3 {
			for range kids {
				inline()
			}
			return
		}
		for range kids {
			switch rng.IntN(16) {
			case 0:
				fmt.Fprintf(&sb, `<p id="%s">`, id())
				inline()
				inline()
				sb.WriteString("</p>\n")
			case 1:
				sb.WriteString("<ul>")
				for range 1 + rng.IntN(3) {
					sb.WriteString("<li>")
					inline()
					sb.WriteString("</li>")
				}
				sb.WriteString("</ul>\n")
			case 2:
				fmt.Fprintf(&sb, `<h2 id="%s">Heading %d</h2>`, id(), rng.IntN(99))
			case 3:
				mark := ""
				if rng.IntN(2) == 0 {
					mark = ` data-poppy-user-step="submission"`
				}
				fmt.Fprintf(&sb, `<form id="%s"%s><div>`, id(), mark)
				block(depth + 1)
				sb.WriteString(`<button type="submit">Send</button></div></form>` + "\n")
			case 4:
				sb.WriteString("<table><tr><td>")
				inline()
				sb.WriteString("</td><td>cell</td></tr><tr><td>")
				inline()
				sb.WriteString("</td><td>two</td></tr></table>\n")
			case 5:
				fmt.Fprintf(&sb, `<details%s><summary>More %d</summary><div>`, map[bool]string{true: " open"}[rng.IntN(2) == 0], rng.IntN(9))
				block(depth + 1)
				sb.WriteString("</div></details>\n")
			case 6:
				fmt.Fprintf(&sb, `<fieldset%s><legend>Group</legend>`, map[bool]string{true: " disabled"}[rng.IntN(3) == 0])
				block(depth + 1)
				sb.WriteString("</fieldset>\n")
			case 7:
				sb.WriteString(`<div class="gone">`)
				block(depth + 1)
				sb.WriteString("</div>\n")
			case 8:
				sb.WriteString(`<div aria-hidden="true">`)
				block(depth + 1)
				sb.WriteString("</div>\n")
			case 9:
				sb.WriteString(`<div contenteditable>editable words <b>bold</b></div>` + "\n")
			case 10:
				fmt.Fprintf(&sb, `<x-card id="%s"><template shadowrootmode="open"><section aria-label="card"><p>shadow words <slot></slot></p><div><slot name="tail"></slot></div><button>Inner %d</button></section></template>`, id(), rng.IntN(9))
				sb.WriteString("<span>slotted words</span> ")
				sb.WriteString(`<div slot="tail">tail `)
				inline()
				sb.WriteString("</div></x-card>\n")
			case 11:
				sb.WriteString("<pre>pre\n  text ")
				inline()
				sb.WriteString("\n</pre>\n")
			case 12:
				sb.WriteString(`<nav aria-label="Site"><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul></nav>` + "\n")
			default:
				fmt.Fprintf(&sb, `<div id="%s">`, id())
				block(depth + 1)
				inline()
				sb.WriteString("</div>\n")
			}
		}
	}
	block(0)
	sb.WriteString("</body></html>\n")
	return sb.String()
}

func init() {
	extraFixtures = append(extraFixtures, func(mux *http.ServeMux) {
		mux.HandleFunc("/random.html", func(w http.ResponseWriter, r *http.Request) {
			seed, _ := strconv.ParseUint(r.URL.Query().Get("seed"), 10, 64)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, randomPage(seed))
		})
	})
}

// mutateJS makes one random change to the page, from its own world (as
// its scripts would), chosen by seed: nodes added, removed or moved,
// attributes (marks, ids, hidden, disabled, aria-*, roles, classes, styles)
// set or taken off, text changed, values typed, boxes checked, options
// selected, a style rule, a scroll, changes inside shadow roots and to
// slotted content. It returns what it did, for the failure message.
const mutateJS = `function(seed) {
  let s = seed >>> 0;
  const rnd = () => { s = (s + 0x6D2B79F5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const all = () => {
    const out = [];
    const walk = (root) => { for (const el of root.querySelectorAll("*")) { out.push(el); if (el.shadowRoot) walk(el.shadowRoot); } };
    walk(document.body);
    return out;
  };
  const els = all();
  const el = pick(els.length ? els : [document.body]);
  const snippets = [
    "<p>new paragraph <a href='#n'>new link</a></p>", "<button>New button</button>", "<span>new words</span>",
    "<div><h3>New heading</h3><input placeholder='new field'></div>", "<label>Fresh <input></label>",
    "<ul><li>one</li><li>two</li></ul>", "<div data-poppy-user-step='interaction'><button>Marked</button></div>",
    "<div id='x3'>now x3</div>", "<section aria-label='region'><p>region words</p></section>", "<form><input></form>",
    "text alone",
  ];
  const frag = () => { const t = document.createElement("template"); t.innerHTML = pick(snippets); return t.content; };
  const targetParent = () => { const p = pick(els.concat([document.body])); return p.localName === "input" || p.localName === "img" || p.localName === "select" ? p.parentNode : p; };
  const k = Math.floor(rnd() * 20);
  switch (k) {
  case 0: case 1: { const p = targetParent(); p.insertBefore(frag(), pick(Array.from(p.childNodes).concat([null]))); return "added into " + p.localName; }
  case 2: { if (el === document.body) return "nothing"; el.remove(); return "removed " + el.localName; }
  case 3: { const p = targetParent(); if (el === document.body || el.contains(p) || p.getRootNode() !== el.getRootNode() && !document.contains(p)) return "nothing"; try { p.appendChild(el); } catch (e) { return "no move"; } return "moved " + el.localName + " into " + p.localName; }
  case 4: case 5: {
    const attrs = [["hidden", ""], ["aria-hidden", "true"], ["disabled", ""], ["data-poppy-user-step", "interaction"], ["data-poppy-user-step", "submission"],
      ["aria-label", "labelled " + Math.floor(rnd() * 9)], ["class", "gone"], ["class", "faded"], ["style", "display:none"], ["style", "display:contents"], ["title", "a title"],
      ["role", "button"], ["role", "heading"], ["contenteditable", ""], ["open", ""], ["id", "x" + Math.floor(rnd() * 30)], ["for", "x" + Math.floor(rnd() * 30)],
      ["aria-labelledby", "x" + Math.floor(rnd() * 30)], ["data-x", "y"], ["href", "#moved"], ["alt", "new alt"], ["value", "attr value"], ["type", "checkbox"],
      ["aria-checked", "true"], ["aria-expanded", "true"], ["slot", "tail"], ["placeholder", "hint"]];
    const [a, v] = pick(attrs);
    if (el.hasAttribute(a) && rnd() < 0.5) { el.removeAttribute(a); return "removed " + a + " of " + el.localName; }
    el.setAttribute(a, v); return "set " + a + "=" + v + " on " + el.localName;
  }
  case 6: case 7: {
    const texts = []; const w = (root) => { const it = document.createTreeWalker(root, NodeFilter.SHOW_TEXT); for (let n; (n = it.nextNode());) texts.push(n); };
    w(document.body); for (const e of els) if (e.shadowRoot) w(e.shadowRoot);
    if (!texts.length) return "nothing"; const t = pick(texts); t.data = "changed " + Math.floor(rnd() * 99) + " "; return "text in " + (t.parentNode.localName || "root");
  }
  case 8: { el.textContent = "replaced " + Math.floor(rnd() * 9); return "textContent of " + el.localName; }
  case 9: case 10: {
    const f = els.filter((e) => e.localName === "input" || e.localName === "select" || e.localName === "textarea"); if (!f.length) return "nothing";
    const e = pick(f);
    if (e.localName === "select") { e.selectedIndex = Math.floor(rnd() * e.options.length); return "selected"; }
    if (e.type === "checkbox" || e.type === "radio") { e.checked = !e.checked; return "checked"; }
    e.value = "typed " + Math.floor(rnd() * 99); return "typed";
  }
  case 11: { document.styleSheets[0].insertRule(pick(["p{display:none}", "li{visibility:hidden}", "button{display:none}", "section{display:contents}", "h2{float:left}", "div{padding:3px}"])); return "style rule"; }
  case 12: { scrollTo(0, Math.floor(rnd() * 300)); return "scrolled"; }
  case 13: { const hosts = els.filter((e) => e.shadowRoot); if (!hosts.length) return "nothing"; const r = pick(hosts).shadowRoot; const p = r.querySelector("p") || r; p.appendChild(frag()); return "added in a shadow root"; }
  case 14: { const hosts = els.filter((e) => e.shadowRoot); if (!hosts.length) return "nothing"; const h = pick(hosts); const c = h.firstElementChild; if (c) { c.textContent = "reslotted " + Math.floor(rnd() * 9); } else h.appendChild(frag()); return "slotted content"; }
  case 15: { const d = document.createElement("div"); d.attachShadow({ mode: "open" }).innerHTML = "<p>late shadow <slot></slot></p>"; d.textContent = "light"; targetParent().appendChild(d); return "new host"; }
  case 16: { const p = targetParent(); p.appendChild(document.createTextNode(" appended text ")); return "text node into " + p.localName; }
  case 17: { const ps = els.filter((e) => e.localName === "fieldset"); if (!ps.length) return "nothing"; const f = pick(ps); if (rnd() < 0.5) { f.disabled = !f.disabled; return "fieldset disabled " + f.disabled; } f.insertBefore(document.createElement("legend"), f.firstChild).textContent = "First"; return "legend"; }
  default: { const a = Array.from(els).filter((e) => e.localName === "label"); if (!a.length) return "nothing"; pick(a).firstChild.textContent = "relabelled"; return "label text"; }
  }
}`

// scanPairJS scans the whole document as a snapshot does (the memo's scan,
// reusing what did not change) and then anew, changing nothing, and says
// how many blocks the first took over from the scan before.
const scanPairJS = `function() {
  const m = globalThis.poppyMarks;
  return [m.scanWire(0, ""), m.scanWire(0, "", true), String(m.reusedBlocks())];
}`

// TestScanAfterChangesIsWhole holds the scan of a changed page, which
// reuses the blocks of the last scan that no change touched, to a whole
// scan of it: on random pages, after each of a random sequence of changes,
// the entries (ids, names, values, marks, boxes, lines, in order) and the
// pending hosts are byte for byte a whole scan's, and so are the entries
// ScanAgain returns, which the page sends as runs of the caller's scan and
// the new entries. It also shows that the
// scans did reuse blocks: a snapshot after one change is not a whole scan
// in disguise.
func TestScanAfterChangesIsWhole(t *testing.T) {
	seeds, steps := 12, 25
	if testing.Short() {
		seeds, steps = 4, 15
	}
	reused := 0 // steps whose scan took blocks over
	defer func() {
		if !t.Failed() && reused < seeds*steps/4 {
			t.Errorf("only %d of %d scans after a change took blocks over from the scan before", reused, seeds*steps)
		}
	}()
	for seed := range seeds {
		t.Run(strconv.Itoa(seed), func(t *testing.T) {
			tp, ctx := open(t, "/random.html?seed="+strconv.Itoa(seed)+"&")
			var did []string
			var last marks.Scan
			compare := func(step int) {
				t.Helper()
				// As the gate reads it: the entries it holds that the scan
				// took over cross CDP as runs of its own.
				sc, got, want, whole, took := scanBothWays(ctx, t, tp.frame, last)
				last = sc
				if got != want {
					t.Fatalf("step %d, after %s:\nthe scan after the changes:\n%s\na whole scan:\n%s", step, strings.Join(did, "; "), got, want)
				}
				if !reflect.DeepEqual(sc.Elements, whole) {
					t.Fatalf("step %d, after %s: ScanAgain's entries are not a whole scan's:\n%+v\n%+v", step, strings.Join(did, "; "), sc.Elements, whole)
				}
				if step > 0 && took {
					reused++
				}
			}
			compare(0)
			for step := 1; step <= steps; step++ {
				var what string
				if err := tp.frame.Call(ctx, "", mutateJS, &what, uint32(seed*1000+step)); err != nil {
					t.Fatal(err)
				}
				did = append(did, what)
				compare(step)
			}
		})
	}
}

// wireEntries is a wire scan without its memo key: the URL, the title,
// the pending hosts and the entries, as the page wrote them.
func wireEntries(t *testing.T, raw string) string {
	t.Helper()
	var a []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &a); err != nil || len(a) < 5 {
		t.Fatalf("wire scan %.200q: %v", raw, err)
	}
	var b strings.Builder
	for i, m := range a {
		if i == 3 || i == 4 { // the memo's key, and same
			continue
		}
		b.Write(m)
		b.WriteByte('\n')
	}
	return b.String()
}

// scanBothWays scans f as the gate does after changes (ScanAgain from
// last) and, beside it, the memo's scan and a whole one (scanPairJS): the
// new Scan, the memo's and the whole scan's entries as text, the whole
// scan's entries decoded, and whether the memo's scan took blocks over.
func scanBothWays(ctx context.Context, t *testing.T, f browser.Frame, last marks.Scan) (sc marks.Scan, memo, whole string, wholeEntries []marks.Element, took bool) {
	t.Helper()
	sc, err := marks.ScanAgain(ctx, f, last)
	if err != nil {
		t.Fatal(err)
	}
	var pair [3]string
	if err := f.Call(ctx, marks.World, scanPairJS, &pair); err != nil {
		t.Fatal(err)
	}
	if wholeEntries, err = marks.DecodeWire(pair[1]); err != nil {
		t.Fatal(err)
	}
	return sc, wireEntries(t, pair[0]), wireEntries(t, pair[1]), wholeEntries, pair[2] != "0"
}
