// helpers.js: helpers the gate calls after an allowed check, and the reads for
// tests and reports.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

  // ---- helpers the gate calls after an allowed check ----
  function need(id) {
    const el = lookup(id);
    if (!el) throw new Error("stale element");
    return el;
  }
  function focus(id) {
    const el = need(id);
    el.focus();
    return deepActive() === el;
  }
  function selectValues(id, values) {
    const el = need(id);
    if (!(el instanceof HTMLSelectElement)) throw new Error("not a select element");
    const wanted = new Set(values);
    const hits = Array.from(el.options).filter((o) => wanted.has(o.value) || wanted.has(clip(o.label || o.text, 1000)));
    if (!hits.length) return null;
    const chosen = el.multiple ? hits : hits.slice(0, 1);
    for (const o of el.options) o.selected = chosen.includes(o);
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return chosen.map((o) => o.value);
  }
  function scrollBy(id, dx, dy) {
    let el = id ? need(id) : null;
    for (; el; el = parentOf(el)) {
      const st = getComputedStyle(el);
      const scrolls = (v) => v === "auto" || v === "scroll";
      if ((scrolls(st.overflowY) && el.scrollHeight > el.clientHeight) || (scrolls(st.overflowX) && el.scrollWidth > el.clientWidth)) break;
    }
    (el || window).scrollBy({ left: dx, top: dy, behavior: "instant" });
  }
  // marksNow lists every element bearing a mark, with its value, in
  // document order (open shadow trees included), for conformance reports
  // and tests.
  function marksNow() {
    const out = [];
    const walk = (root, path) => {
      for (const el of rootQuery(root, "*")) {
        const v = attr(el, ATTR);
        if (v !== null) out.push({ path: path + pathOf(el), value: v, kind: kindOf(el) });
        const r = rootOf(el);
        if (r) walk(r, path + pathOf(el) + " >>> ");
      }
    };
    walk(document, "");
    return out;
  }
  function pathOf(el) {
    const parts = [];
    for (let n = el; n instanceof Element; n = n.parentNode) {
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) i++;
      parts.unshift(n.localName + ":nth-child(" + i + ")");
    }
    return parts.join(" > ");
  }
  function ref(selector) {
    const el = rootQuery(document, selector)[0];
    return el ? idFor(el) : 0;
  }
