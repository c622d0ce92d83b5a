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
// there: the scan in its wire form, as one string (marks.ScanFrame's call).
const inPageScanJS = `function() {
  const t = performance.now();
  const s = globalThis.poppyMarks.scanWire(0);
  return [performance.now() - t, s.length];
}`

// touchJS changes the document in a way nobody sees (an attribute on the
// root element): the scanner's memo gives way and the next scan is a
// whole one.
const touchJS = `function() { document.documentElement.toggleAttribute("data-bench-touch"); }`

// BenchmarkSnapshotVsWalk times, in one run on the same page, one plain JS
// walk of the page (plainWalkJS, also one round trip) and two snapshots
// through Gate.Do, alternating them: a cold one after the document
// changed (a whole scan) and a warm one of the page as it was (answered
// from the scanner's memo: a walk that checks what the scan read, and no
// entries crossing CDP). It reports the median of each and their ratio to
// the walk (medians: the machine is shared), the text's bytes, and
// where a cold snapshot's time goes: the scan timed inside the page
// (inpage-scan-ms; the rest is CDP, Go and the gate's bookkeeping) and
// the bytes of the scan that cross CDP (wire-bytes).
func BenchmarkSnapshotVsWalk(b *testing.B) {
	for _, pg := range snapshotPages {
		b.Run(pg.name, func(b *testing.B) {
			bb := startBench(b, pg.path)
			frame := bb.page.MainFrame()
			touch := func() {
				if err := frame.Call(b.Context(), browser.UtilityWorld, touchJS, nil); err != nil {
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
			var cold, warm, walk []time.Duration
			var inPage, wire float64
			for b.Loop() {
				t := time.Now()
				var s string
				if err := frame.Call(b.Context(), browser.UtilityWorld, plainWalkJS, &s); err != nil {
					b.Fatal(err)
				}
				walk = append(walk, time.Since(t))
				touch()
				var sc [2]float64
				if err := frame.Call(b.Context(), marks.World, inPageScanJS, &sc); err != nil {
					b.Fatal(err)
				}
				inPage += sc[0]
				wire = sc[1]
				touch()
				cold = append(cold, snapshot())
				warm = append(warm, snapshot())
			}
			// Medians: the machine is shared, and one slow sample says
			// nothing of the scan.
			med := func(ds []time.Duration) time.Duration {
				ds = slices.Clone(ds)
				slices.Sort(ds)
				return ds[len(ds)/2]
			}
			n := float64(b.N)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(med(cold)), "cold-ms")
			b.ReportMetric(ms(med(warm)), "warm-ms")
			b.ReportMetric(ms(med(walk)), "walk-ms")
			b.ReportMetric(float64(med(cold))/float64(med(walk)), "cold/walk")
			b.ReportMetric(float64(med(warm))/float64(med(walk)), "warm/walk")
			b.ReportMetric(float64(text), "text-bytes")
			b.ReportMetric(inPage/n, "inpage-scan-ms")
			b.ReportMetric(wire, "wire-bytes")
		})
	}
}
