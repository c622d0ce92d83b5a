package gate

import (
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
// there: the scan in its wire form, as one string (marks.ScanFrame's call).
const inPageScanJS = `function() {
  const t = performance.now();
  const s = globalThis.poppyMarks.scanWire(0);
  return [performance.now() - t, s.length];
}`

// BenchmarkSnapshotVsWalk times, in one run on the same page, one
// snapshot through Gate.Do and one plain JS walk of the page (plainWalkJS,
// also one round trip), alternating them, and reports both and their
// ratio. It also reports where a snapshot's time goes: the scan timed
// inside the page (inpage-scan-ms; the rest is CDP, Go and the gate's
// bookkeeping) and the bytes of the scan that cross CDP (wire-bytes).
func BenchmarkSnapshotVsWalk(b *testing.B) {
	for _, pg := range snapshotPages {
		b.Run(pg.name, func(b *testing.B) {
			bb := startBench(b, pg.path)
			var snap, walk time.Duration
			var inPage, wire float64
			for b.Loop() {
				var sc [2]float64
				if err := bb.page.MainFrame().Call(b.Context(), marks.World, inPageScanJS, &sc); err != nil {
					b.Fatal(err)
				}
				inPage += sc[0]
				wire = sc[1]
				t := time.Now()
				var s string
				if err := bb.page.MainFrame().Call(b.Context(), browser.UtilityWorld, plainWalkJS, &s); err != nil {
					b.Fatal(err)
				}
				walk += time.Since(t)
				t = time.Now()
				if r := bb.gate.Do(b.Context(), Snapshot{}); r.Outcome != spec.OutcomeDone {
					b.Fatalf("snapshot: %+v", r)
				}
				snap += time.Since(t)
			}
			n := float64(b.N)
			b.ReportMetric(float64(snap.Microseconds())/n/1000, "snapshot-ms")
			b.ReportMetric(float64(walk.Microseconds())/n/1000, "walk-ms")
			b.ReportMetric(float64(snap)/float64(walk), "snapshot/walk")
			b.ReportMetric(inPage/n, "inpage-scan-ms")
			b.ReportMetric(wire, "wire-bytes")
		})
	}
}
