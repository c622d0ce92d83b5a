// tree.js: the element tree: parents across shadow roots, adopted closed
// roots, focus.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

  // Shadow roots: open ones, and closed ones the Go side adopted over CDP
  // (closed roots are out of this world's reach otherwise).
  const closedRoots = new WeakMap();
  const rootOf = (el) => el.shadowRoot || closedRoots.get(el) || null;
  // adopt takes closed roots from Go and returns how many were new.
  function adopt(...roots) {
    let n = 0;
    for (const r of roots) {
      if (!(r instanceof ShadowRoot) || !(r.host instanceof Element) || closedRoots.get(r.host) === r) continue;
      closedRoots.set(r.host, r);
      rootWatch.observe(r, GROWS);
      n++;
    }
    return n;
  }
  // Reading the closed roots over CDP costs a walk of the whole document
  // in the browser, so Go asks only when one may have been attached since
  // the last read: in a new document, or once nodes were added to the
  // document or a shadow tree seen since. attachShadow itself is not
  // observable; the insertion of a host or of a root's content is.
  const GROWS = { childList: true, subtree: true };
  let rootsDirty = true;
  const rootWatch = new MutationObserver(() => {
    rootsDirty = true;
    rootWatch.disconnect(); // one record is enough until the next read
  });
  // takeRootsDirty says whether the closed roots must be read again, and
  // starts watching afresh (the document and roots, the shadow roots a
  // full scan saw): a change after this moment asks for the next read.
  function takeRootsDirty(roots) {
    const dirty = rootsDirty || rootWatch.takeRecords().length > 0;
    if (dirty && roots) {
      rootsDirty = false;
      rootWatch.disconnect();
      rootWatch.observe(document, GROWS);
      for (const r of roots) rootWatch.observe(r, GROWS);
    }
    return dirty;
  }

  // The parent element, crossing from a shadow root to its host.
  function parentOf(n) {
    const p = n.parentNode;
    if (p instanceof ShadowRoot) return p.host;
    return p instanceof Element ? p : null;
  }
  function within(outer, n) {
    for (; n; n = parentOf(n)) if (n === outer) return true;
    return false;
  }
  function closest(el, sel) {
    for (let n = el; n; n = parentOf(n)) if (n.matches(sel)) return n;
    return null;
  }
  function deepActive() {
    let a = docActive.call(document);
    for (let r = a && rootOf(a); r && r.activeElement; r = rootOf(a)) a = r.activeElement;
    return a;
  }
