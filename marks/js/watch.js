// watch.js: the conformance watcher of poppy-browser (package marks, used by
// package check). It is installed after the scanner (js/scanner/) in the
// same isolated world ("poppy-marks") and runs at document start, before
// the page's scripts.
//
// It records, without touching the page's globals or its DOM:
//   - when each element bearing data-poppy-user-step was first seen with it;
//   - when each control was first shown usable (visible and enabled) at an
//     animation frame, that is, painted where the User or an agent could use it;
//   - the submit and formdata events of every form (a submission attempt);
//   - when the document was parsed, and when a resource last finished loading.
// It sees what the scanner sees: the document, open shadow roots, and the
// closed roots the Go side adopted (poppyMarks.shadowRootOf); each root it
// meets is observed from then on. Times are performance.now() milliseconds
// of the document. Element ids are the scanner's local ids (poppyMarks.idOf),
// so Go can ask poppyMarks.check which marks cover them.
"use strict";
globalThis.poppyWatch ??= (() => {
  const ATTR = "data-poppy-user-step";
  const CONTROLS = "input:not([type=hidden]),select,textarea,button,summary,[contenteditable]:not([contenteditable=false])," +
    "[role~=button],[role~=checkbox],[role~=switch],[role~=radio],[role~=textbox],[role~=combobox],[role~=slider],[role~=spinbutton]";
  const query = (root, sel) =>
    (root instanceof Document ? Document.prototype : root instanceof ShadowRoot ? DocumentFragment.prototype : Element.prototype)
      .querySelectorAll.call(root, sel);
  const getAttr = Element.prototype.getAttribute;
  const formElements = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, "elements").get;
  const idOf = (el) => globalThis.poppyMarks.idOf(el);
  const rootOf = (el) => globalThis.poppyMarks.shadowRootOf(el);

  const markedAt = new Map(); // element -> first time seen bearing the attribute
  const shownAt = new Map(); // control -> first animation frame it was usable
  const events = []; // submission attempts
  const roots = new Set(); // shadow roots observed
  let lastChange = performance.now();
  let lastNetwork = 0;
  let parsed = 0; // DOMContentLoaded
  let frameQueued = false;

  // deep lists the elements matching sel under scope (a document, a shadow
  // root or an element), in document order, shadow trees in place.
  function deep(scope, sel) {
    const out = [];
    const walk = (r) => {
      for (const el of query(r, "*")) {
        if (el.matches(sel)) out.push(el);
        const sr = rootOf(el);
        if (sr) {
          observeRoot(sr);
          walk(sr);
        }
      }
    };
    walk(scope);
    return out;
  }
  function usable(el) {
    if (el.matches(":disabled") || getAttr.call(el, "aria-disabled") === "true") return false;
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  // noteMarks is cheap (the document and the roots already known); onFrame
  // walks every tree, which also finds new roots.
  function noteMarks(now) {
    for (const r of [document, ...roots]) {
      for (const el of query(r, "[" + ATTR + "]")) if (!markedAt.has(el)) markedAt.set(el, now);
    }
  }
  // onFrame runs before a paint: what is usable now is shown to whoever looks.
  function onFrame() {
    frameQueued = false;
    const now = performance.now();
    for (const el of deep(document, CONTROLS + ",[" + ATTR + "]")) {
      if (getAttr.call(el, ATTR) !== null && !markedAt.has(el)) markedAt.set(el, now);
      if (el.matches(CONTROLS) && !shownAt.has(el) && usable(el)) shownAt.set(el, now);
    }
  }
  // changed: a page that sets an attribute to the value it has (a timer
  // that re-applies "hidden") changes nothing a User could see; only real
  // changes make the page not quiet.
  function changed(records) {
    const now = performance.now();
    if (!records || records.some((r) => r.type !== "attributes" || r.oldValue !== getAttr.call(r.target, r.attributeName))) lastChange = now;
    noteMarks(now);
    if (!frameQueued) {
      frameQueued = true;
      requestAnimationFrame(onFrame);
    }
  }
  const observer = new MutationObserver(changed);
  const opts = { subtree: true, childList: true, attributes: true, attributeOldValue: true };
  // A submit event does not leave its shadow tree: listen on each root.
  function listen(target) {
    for (const type of ["submit", "formdata"]) {
      target.addEventListener(type, (e) => {
        if (e.target instanceof HTMLFormElement) events.push({ type, form: idOf(e.target), at: performance.now() });
      }, { capture: true });
    }
  }
  // A root is found by onFrame's walk, which notes its marks and controls
  // at that frame's time: both were first seen then.
  function observeRoot(r) {
    if (roots.has(r)) return;
    roots.add(r);
    observer.observe(r, opts);
    listen(r);
    lastChange = performance.now();
  }
  observer.observe(document, opts);
  listen(globalThis);
  // Chromium fires DOMContentLoaded before the parser's mutation records
  // are delivered: note what the parser made first, so that it never
  // counts as late.
  document.addEventListener("DOMContentLoaded", () => {
    const now = performance.now();
    for (const el of deep(document, "[" + ATTR + "]")) if (!markedAt.has(el)) markedAt.set(el, now);
    parsed = now;
  }, { once: true });
  try {
    new PerformanceObserver(() => { lastNetwork = performance.now(); }).observe({ type: "resource", buffered: true });
  } catch (e) {
    // no resource timing in this document: network quiet is judged by Go
  }

  // inClosed: el is in a closed shadow tree, seen only since the Go side
  // adopted it, so when it appeared is unknown.
  function inClosed(el) {
    for (let r = el.getRootNode(); r instanceof ShadowRoot; r = r.host.getRootNode()) if (r.mode === "closed") return true;
    return false;
  }

  // report: what was watched, with scanner ids of elements still connected.
  function report() {
    onFrame(); // what is usable at the end counts too
    if (!parsed && document.readyState !== "loading") parsed = performance.now(); // parsed before the watcher could listen
    const list = (m) => Array.from(m, ([el, at]) => el.isConnected ? { id: idOf(el), at, closed: inClosed(el) } : null).filter(Boolean);
    return {
      now: performance.now(), lastChange, lastNetwork, parsed,
      marked: list(markedAt), shown: list(shownAt), events: events.slice(),
    };
  }

  // inventory: every element bearing the attribute, with its raw value and
  // what it covers: a form's owned controls (form= ones outside it included),
  // or the controls inside any other element (shadow trees included).
  function control(el, outside) {
    const c = { id: idOf(el), tag: el.localName, type: el.type || "", name: getAttr.call(el, "name") || "", outside };
    if (outside) c.formAttr = getAttr.call(el, "form") || "";
    if (el instanceof HTMLSelectElement) c.options = Array.from(el.options, (o) => o.value).slice(0, 50);
    if (el instanceof HTMLInputElement) {
      c.required = el.required;
      if (el.min) c.min = el.min;
      if (el.maxLength > 0) c.maxLength = el.maxLength;
      c.autocomplete = getAttr.call(el, "autocomplete") || "";
    }
    return c;
  }
  function inventory() {
    const out = [];
    for (const el of deep(document, "[" + ATTR + "]")) {
      const m = { id: idOf(el), tag: el.localName, value: getAttr.call(el, ATTR), form: el instanceof HTMLFormElement, controls: [] };
      if (el instanceof HTMLFormElement) {
        for (const c of formElements.call(el)) {
          if (c instanceof HTMLInputElement && c.type === "hidden") continue;
          if (c instanceof HTMLFieldSetElement || c instanceof HTMLObjectElement || c instanceof HTMLOutputElement) continue;
          m.controls.push(control(c, !el.contains(c)));
        }
      } else {
        if (el.matches(CONTROLS)) m.controls.push(control(el, false));
        for (const c of deep(el, CONTROLS)) m.controls.push(control(c, false));
      }
      out.push(m);
    }
    return out;
  }
  // forms: every form of the document with its mark value (null when none).
  function forms() {
    return deep(document, "form").map((f) => ({ id: idOf(f), value: getAttr.call(f, ATTR) }));
  }

  return Object.freeze({ report, inventory, forms, now: () => performance.now() });
})();
