// hittest.js: hit testing: where a click lands.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const HitTest = (() => {
    const { docElement, docFromPoint, rootFromPoint } = Dom;
    const { rootOf, within } = Tree;
    const { read, R_BOX } = Memo;

    // sizedPart is el with its box, or, when el's own box is empty because
    // its content is floated or positioned (a card's link around a floated
    // block), its first child that has a box, where a click on el lands:
    // [element, box], or null when none has one. (A scan records the boxes.)
    function sizedPart(el) {
      for (let at = el; at; at = at === el ? el.firstElementChild : at.nextElementSibling) {
        const r = read(R_BOX, at);
        if (r.width > 0 || r.height > 0) return [at, r];
      }
      return null;
    }
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

    // hitTest scrolls el into view and finds what a click at its centre lands
    // on; for an element without a box of its own (its content floated), at
    // the centre of its first child with one, as the scan shows it.
    function hitTest(el, out) {
      const part = sizedPart(el);
      const at = part ? part[0] : el;
      at.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      const r = at.getClientRects()[0];
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
    return { sizedPart, deepFromPoint, hitTest };
  })();
