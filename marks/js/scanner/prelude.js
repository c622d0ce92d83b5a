// prelude.js: the start of the marks scanner of poppy-browser (package marks).
//
// The scanner is the files of js/scanner/ joined in a fixed order (see
// scannerParts in marks/scanner.go) inside the one function this file opens
// and exports.js closes. Each file is one namespace: a constant named after
// its concern (Dom here, Tree, Memo, Rules ...) holding the object its
// function returns, its exports. A file takes what it needs from the
// namespaces of earlier files in const lines at its top, its imports, and
// uses no other file's names (TestScannerImports checks it, without a
// browser); none of them is a script on its own.
//
// It runs at document start in the isolated world "poppy-marks" of every
// frame: globalThis is that world's, never the page's, and nothing here reads
// or writes the page's JavaScript globals. It defines globalThis.poppyMarks,
// whose functions the Go package calls with JSON arguments. A check reads
// the marks from the DOM at the moment of each call; a scan may be answered
// from its memo while nothing it read has changed (memo.js). It dispatches no
// input: it works out the keys that select options (selectKeys), which the
// gate presses; focus and scrollBy change only what the Go gate allowed.
"use strict";
globalThis.poppyMarks ??= (() => {
  // Dom: the mark attribute, the DOM entry points taken from this world's
  // prototypes, and the local ids.
  const Dom = (() => {
    const ATTR = "data-poppy-user-step";
    // DOM entry points taken from this world's prototypes, so that named
    // elements (DOM clobbering of document and form) cannot shadow them.
    const getAttr = Element.prototype.getAttribute;
    const attr = (el, name) => getAttr.call(el, name);
    const hasAttrs = Element.prototype.hasAttributes;
    // firstRole: the first word of el's role attribute, "" without one.
    function firstRole(el) {
      const v = attr(el, "role");
      return v ? v.trim().split(/\s+/)[0] : "";
    }
    const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
    const formElements = getter(HTMLFormElement.prototype, "elements");
    const docElement = getter(Document.prototype, "documentElement");
    const docTitle = getter(Document.prototype, "title");
    const docBody = getter(Document.prototype, "body");
    const docActive = getter(Document.prototype, "activeElement");
    const docDesignMode = getter(Document.prototype, "designMode");
    const docFromPoint = Document.prototype.elementFromPoint;
    const rootFromPoint = ShadowRoot.prototype.elementFromPoint;
    const rootQuery = (root, sel) =>
      (root instanceof Document ? Document.prototype : DocumentFragment.prototype).querySelectorAll.call(root, sel);
    const rootByID = (root, id) =>
      (root instanceof Document ? Document.prototype : DocumentFragment.prototype).getElementById.call(root, id);

    // Local ids: stable for this document while the element lives.
    const byID = new Map();
    const idOf = new WeakMap();
    let next = 0;
    function idFor(el) {
      let id = idOf.get(el);
      if (id === undefined) {
        id = ++next;
        idOf.set(el, id);
        byID.set(id, el);
      }
      return id;
    }
    function lookup(id) {
      const el = byID.get(id);
      return el && el.isConnected ? el : null;
    }
    return {
      ATTR, attr, hasAttrs, firstRole, formElements, docElement, docTitle, docBody, docActive, docDesignMode,
      docFromPoint, rootFromPoint, rootQuery, rootByID, idFor, lookup,
    };
  })();
