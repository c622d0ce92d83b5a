// settle.js: waits, in the frame's own event loop, until its document has
// settled: quiet ms of the page's timers running on time with no change the
// marks watcher (globalThis.poppyWatch) sees: a DOM change, a resource
// finished, a submit or formdata event. A timer that fires late (more than
// gap ms) means the event loop did not run in between, so the quiet counted
// so far starts over: a starved renderer never looks settled. It gives up at
// max ms. Returns {settled, changed, late}: late is how long (ms) its
// timers fired after they were due, time the page did not run.
function (quiet, max, gap) {
  const w = globalThis.poppyWatch;
  if (!w) return { settled: true, changed: false };
  const sig = () => {
    const r = w.report();
    return r.lastChange + "/" + r.lastNetwork + "/" + r.events.length;
  };
  return new Promise((resolve) => {
    const start = performance.now();
    const first = sig();
    let prev = start, calm = 0, late = 0;
    const step = () => {
      const now = performance.now();
      const d = now - prev;
      prev = now;
      if (d > gap) late += d - 50;
      if (sig() !== first) return resolve({ settled: false, changed: true, late });
      calm = d <= gap ? calm + d : 0;
      if (calm >= quiet) return resolve({ settled: true, changed: false, late });
      if (now - start >= max) return resolve({ settled: false, changed: false, late });
      setTimeout(step, 50);
    };
    setTimeout(step, 50);
  });
}
