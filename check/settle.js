// settle.js: waits, in the frame's own event loop, until its document has
// settled: quiet ms of the page's timers running on time with no change the
// marks watcher (globalThis.poppyWatch) sees: a DOM change, a resource
// finished, a submit or formdata event. A timer that fires late (more than
// gap ms) means the event loop did not run in between, so the quiet counted
// so far starts over: a starved renderer never looks settled. It gives up at
// max ms. Returns {settled, changed}.
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
    let prev = start, calm = 0;
    const step = () => {
      const now = performance.now();
      if (sig() !== first) return resolve({ settled: false, changed: true });
      const d = now - prev;
      prev = now;
      calm = d <= gap ? calm + d : 0;
      if (calm >= quiet) return resolve({ settled: true, changed: false });
      if (now - start >= max) return resolve({ settled: false, changed: false });
      setTimeout(step, 50);
    };
    setTimeout(step, 50);
  });
}
