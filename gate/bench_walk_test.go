package gate

import (
	"slices"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// plainWalkJS is the least a reader of a page's text does: one walk of the
// DOM that skips what is not rendered and collects every text node's
// words, returned as one JSON string. A snapshot does this and more (names,
// roles, marks, boxes of controls, lines); the goal is at most 3x of it.
const plainWalkJS = `function() {
  const out = [];
  const walk = (n) => {
    for (let k = n.firstChild; k; k = k.nextSibling) {
      if (k.nodeType === 3) out.push(k.data);
      else if (k.nodeType === 1 && k.localName !== "script" && k.localName !== "style" && k.checkVisibility()) walk(k.shadowRoot || k);
    }
  };
  walk(document.documentElement);
  return JSON.stringify(out);
}`

// inPageScanJS times, inside the page, the part of a snapshot that runs
// there: the scan in its wire form, as one string (marks.ScanFrame's
// call); with whole, a whole scan that leaves the memo alone.
const inPageScanJS = `function(whole) {
  const t = performance.now();
  const s = globalThis.poppyMarks.scanWire(0, "", whole);
  return [performance.now() - t, s.length, globalThis.poppyMarks.reusedBlocks()];
}`

// changeJS is one change a person would see: the words of the paragraph
// in the middle of the page.
const changeJS = `function(n) {
  const ps = document.querySelectorAll("p");
  ps[ps.length >> 1].firstChild.data = "Changed words " + n + " ";
}`

// shownJS waits until the browser has shown the page as it is: the next
// frame, painted (at most 200 ms, for a page that shows no frames).
const shownJS = `function() {
  return new Promise((done) => { requestAnimationFrame(() => setTimeout(done, 0)); setTimeout(done, 200); });
}`

// layoutJS makes the browser lay the page out, as it would to show it.
const layoutJS = `function() { return document.documentElement.getBoundingClientRect().height; }`

// BenchmarkSnapshotVsWalk times, in one run on the same page, one plain JS
// walk of the page (plainWalkJS, also one round trip) and three snapshots
// through Gate.Do, alternating them on each new document: a cold one (the
// first of the document: a whole scan), one after a change (the words of
// one paragraph: the scanner scans again the blocks the change touched and
// reuses the rest), and a warm one of the page as it was (answered from the
// scanner's memo: a walk that checks what the scan read, and no entries
// crossing CDP). It reports the median of each and their ratio to the walk
// (medians: the machine is shared), the text's bytes, and where the time
// goes inside the page (a whole scan, and a scan after one change,
// inpage-*-ms; the rest is CDP, Go and the gate's bookkeeping), the blocks
// the scan after one change reused, and the bytes of the scan that cross
// CDP (wire-bytes).
//
// A snapshot right after the change also waits for the frame the browser
// paints for it (its main thread is busy with it when the call arrives),
// which an agent's snapshot after an action, taken after the page
// settled, does not: shown-change-ms is the snapshot after one change on
// a second new document whose change the browser has shown first.
func BenchmarkSnapshotVsWalk(b *testing.B) {
	for _, pg := range snapshotPages {
		b.Run(pg.name, func(b *testing.B) {
			bb := startBench(b, pg.path)
			call := func(world, js string, out any, args ...any) {
				if err := bb.page.MainFrame().Call(b.Context(), world, js, out, args...); err != nil {
					b.Fatal(err)
				}
			}
			text := 0 // bytes of the snapshot's text (its first part)
			snapshot := func() time.Duration {
				t := time.Now()
				r := bb.gate.Do(b.Context(), Snapshot{})
				if r.Outcome != spec.OutcomeDone {
					b.Fatalf("snapshot: %+v", r)
				}
				text = len(r.Text)
				return time.Since(t)
			}
			var cold, changed, warm, walk, inWhole, inChange, shown []time.Duration
			var wire, reused float64
			n := 0
			for b.Loop() {
				// A new document, laid out as it would be shown.
				if _, err := bb.page.Navigate(b.Context(), bb.pageURL); err != nil {
					b.Fatal(err)
				}
				var h float64
				call(browser.UtilityWorld, layoutJS, &h)
				t := time.Now()
				var s string
				call(browser.UtilityWorld, plainWalkJS, &s)
				walk = append(walk, time.Since(t))
				cold = append(cold, snapshot())
				n++
				call("", changeJS, nil, n)
				changed = append(changed, snapshot())
				warm = append(warm, snapshot())
				// The same inside the page alone: a whole scan, then one
				// after a change.
				var sc [3]float64
				call(marks.World, inPageScanJS, &sc, true)
				inWhole = append(inWhole, time.Duration(sc[0]*float64(time.Millisecond)))
				wire = sc[1]
				n++
				call("", changeJS, nil, n)
				call(marks.World, inPageScanJS, &sc, false)
				inChange = append(inChange, time.Duration(sc[0]*float64(time.Millisecond)))
				reused = sc[2]
				// After one change the browser has shown, on a new
				// document (the first change after a cold snapshot, as
				// above).
				if _, err := bb.page.Navigate(b.Context(), bb.pageURL); err != nil {
					b.Fatal(err)
				}
				call(browser.UtilityWorld, layoutJS, &h)
				snapshot()
				n++
				call("", changeJS, nil, n)
				call("", shownJS, nil)
				shown = append(shown, snapshot())
			}
			// Medians: the machine is shared, and one slow sample says
			// nothing of the scan.
			med := func(ds []time.Duration) time.Duration {
				ds = slices.Clone(ds)
				slices.Sort(ds)
				return ds[len(ds)/2]
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(med(cold)), "cold-ms")
			b.ReportMetric(ms(med(changed)), "change-ms")
			b.ReportMetric(ms(med(warm)), "warm-ms")
			b.ReportMetric(ms(med(walk)), "walk-ms")
			b.ReportMetric(float64(med(cold))/float64(med(walk)), "cold/walk")
			b.ReportMetric(float64(med(changed))/float64(med(walk)), "change/walk")
			b.ReportMetric(float64(med(warm))/float64(med(walk)), "warm/walk")
			b.ReportMetric(ms(med(shown)), "shown-change-ms")
			b.ReportMetric(float64(med(shown))/float64(med(walk)), "shown-change/walk")
			b.ReportMetric(float64(text), "text-bytes")
			b.ReportMetric(ms(med(inWhole)), "inpage-whole-ms")
			b.ReportMetric(ms(med(inChange)), "inpage-change-ms")
			b.ReportMetric(reused, "reused-blocks")
			b.ReportMetric(wire, "wire-bytes")
		})
	}
}
