// hittest.js: hit testing: where a click lands.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

  // deepFromPoint descends from hit into open and adopted closed shadow
  // trees to the element at (x, y).
  function deepFromPoint(hit, x, y) {
    for (let r = hit && rootOf(hit); r; r = rootOf(hit)) {
      const inner = rootFromPoint.call(r, x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  // hitTest scrolls el into view and finds what a click at its centre lands on.
  function hitTest(el, out) {
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    const r = el.getClientRects()[0];
    if (!r) return null;
    const vw = Math.min(innerWidth, docElement.call(document).clientWidth || innerWidth);
    const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw);
    const y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, innerHeight);
    if (x1 <= x0 || y1 <= y0) return null;
    const x = (x0 + x1) / 2, y = (y0 + y1) / 2;
    out.point = { x, y, width: 0, height: 0 };
    const hit = deepFromPoint(docFromPoint.call(document, x, y), x, y);
    const reaches = hit && (within(el, hit) ||
      el instanceof HTMLLabelElement && el.control && within(el.control, hit) ||
      Array.from(el.labels || []).some((l) => within(l, hit)));
    out.obscured = !reaches;
    return hit;
  }
