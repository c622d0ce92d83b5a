// watch.js: the conformance watcher of poppy-browser (package marks, used by
// package check). It is installed after the scanner (js/scanner/) in the
// same isolated world ("poppy-marks") and runs at document start, before
// the page's scripts.
//
// It records, without touching the page's globals or its DOM:
//   - when each element bearing data-poppy-user-step was first seen with it;
//   - when each control was first shown usable (visible and enabled) at an
//     animation frame, that is, painted where the User or an agent could use it;
//   - the submit and formdata events of every form (a submission attempt).
// Times are performance.now() milliseconds of the document. Element ids are
// the scanner's local ids (poppyMarks.idOf), so Go can ask poppyMarks.check
// which marks cover them.
"use strict";
globalThis.poppyWatch ??= (() => {
  const ATTR = "data-poppy-user-step";
  const CONTROLS = "input:not([type=hidden]),select,textarea,button,summary,[contenteditable]:not([contenteditable=false])," +
    "[role~=button],[role~=checkbox],[role~=switch],[role~=radio],[role~=textbox],[role~=combobox],[role~=slider],[role~=spinbutton]";
  const query = (root, sel) =>
    (root instanceof Document ? Document.prototype : Element.prototype).querySelectorAll.call(root, sel);
  const getAttr = Element.prototype.getAttribute;
  const formElements = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, "elements").get;
  const idOf = (el) => globalThis.poppyMarks.idOf(el);

  const markedAt = new Map(); // element -> first time seen bearing the attribute
  const shownAt = new Map(); // control -> first animation frame it was usable
  const events = []; // submission attempts
  let lastChange = performance.now();
  let frameQueued = false;

  function usable(el) {
    if (el.matches(":disabled") || getAttr.call(el, "aria-disabled") === "true") return false;
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  function noteMarks(now) {
    for (const el of query(document, "[" + ATTR + "]")) if (!markedAt.has(el)) markedAt.set(el, now);
  }
  // onFrame runs before a paint: what is usable now is shown to whoever looks.
  function onFrame() {
    frameQueued = false;
    const now = performance.now();
    noteMarks(now);
    for (const el of query(document, CONTROLS)) if (!shownAt.has(el) && usable(el)) shownAt.set(el, now);
  }
  function changed() {
    lastChange = performance.now();
    noteMarks(lastChange);
    if (!frameQueued) {
      frameQueued = true;
      requestAnimationFrame(onFrame);
    }
  }
  new MutationObserver(changed).observe(document, { subtree: true, childList: true, attributes: true });
  for (const type of ["submit", "formdata"]) {
    addEventListener(type, (e) => {
      if (e.target instanceof HTMLFormElement) events.push({ type, form: idOf(e.target), at: performance.now() });
    }, { capture: true });
  }

  // report: what was watched, with scanner ids of elements still connected.
  function report() {
    onFrame(); // what is usable at the end counts too
    const list = (m) => Array.from(m, ([el, at]) => el.isConnected ? { id: idOf(el), at } : null).filter(Boolean);
    return { now: performance.now(), lastChange, marked: list(markedAt), shown: list(shownAt), events: events.slice() };
  }

  // inventory: every element bearing the attribute, with its raw value and
  // what it covers: a form's owned controls (form= ones outside it included),
  // or the controls inside any other element.
  function control(el, outside) {
    const c = { id: idOf(el), tag: el.localName, type: el.type || "", name: getAttr.call(el, "name") || "", outside };
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
    for (const el of query(document, "[" + ATTR + "]")) {
      const m = { id: idOf(el), tag: el.localName, value: getAttr.call(el, ATTR), form: el instanceof HTMLFormElement, controls: [] };
      if (el instanceof HTMLFormElement) {
        for (const c of formElements.call(el)) {
          if (c instanceof HTMLInputElement && c.type === "hidden") continue;
          if (c instanceof HTMLFieldSetElement || c instanceof HTMLObjectElement || c instanceof HTMLOutputElement) continue;
          m.controls.push(control(c, !el.contains(c)));
        }
      } else {
        if (el.matches(CONTROLS)) m.controls.push(control(el, false));
        for (const c of query(el, CONTROLS)) m.controls.push(control(c, false));
      }
      out.push(m);
    }
    return out;
  }
  // forms: every form of the document with its mark value (null when none).
  function forms() {
    return Array.from(query(document, "form"), (f) => ({ id: idOf(f), value: getAttr.call(f, ATTR) }));
  }

  return Object.freeze({ report, inventory, forms, now: () => performance.now() });
})();
