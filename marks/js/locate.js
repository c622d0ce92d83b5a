// locate.js: where an element is, for conformance reports (package check).
// It is installed with the watcher (js/watch.js) in the isolated world
// "poppy-marks", after the scanner, whose local ids it reads
// (poppyMarks.elementOf); it changes nothing in the page.
//
// An element's selector matches exactly that element in its tree: the
// document, or the shadow root it is in. It is a chain of child steps
// (tag, with :nth-of-type(k) when siblings share the tag) from the nearest
// inclusive ancestor whose id is unique in that tree (#id), or else from
// the tree's top ("html" in a document, ":host" in a shadow root). Ids are
// only a shortcut: a duplicated id is never used, and every selector is
// checked with querySelectorAll before it is returned. An element in a
// shadow tree also gets its hosts' selectors, from the document down.
"use strict";
globalThis.poppyLocate ??= (() => {
  const MAX_HTML = 200;
  // DOM entry points from this world's prototypes: a form's named controls
  // override its own properties (form.id, form.children ...).
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const parentNode = getter(Node.prototype, "parentNode");
  const localName = getter(Element.prototype, "localName");
  const attributes = getter(Element.prototype, "attributes");
  const getAttr = Element.prototype.getAttribute;
  const rootNode = Node.prototype.getRootNode;
  // Kinds of node by nodeType, not instanceof: a same-origin child frame
  // describes its frameElement, a node of its parent's realm.
  const nodeType = getter(Node.prototype, "nodeType");
  const protoOf = (n) => ({ 1: Element.prototype, 9: Document.prototype })[nodeType.call(n)] || DocumentFragment.prototype;
  const isDocument = (n) => nodeType.call(n) === 9;
  const isShadowRoot = (n) => nodeType.call(n) === 11 && !!n.host;
  const childrenOf = (n) => getter(protoOf(n), "children").call(n);
  const queryAll = (root, sel) => protoOf(root).querySelectorAll.call(root, sel);
  const rootOf = (el) => globalThis.poppyMarks.shadowRootOf(el);

  // exactly: sel matches el and nothing else in root.
  function exactly(root, sel, el) {
    try {
      const all = queryAll(root, sel);
      return all.length === 1 && all[0] === el;
    } catch (e) {
      return false;
    }
  }
  function step(el) {
    const name = localName.call(el);
    let n = 0, k = 0;
    for (const sib of childrenOf(parentNode.call(el))) {
      if (localName.call(sib) === name) n++;
      if (sib === el) k = n;
    }
    return n > 1 ? `${CSS.escape(name)}:nth-of-type(${k})` : CSS.escape(name);
  }
  // within is el's selector in its own tree (root).
  function within(el, root) {
    const steps = [];
    for (let n = el; n; n = parentNode.call(n)) {
      const id = getAttr.call(n, "id");
      if (id && exactly(root, "#" + CSS.escape(id), n)) {
        const sel = ["#" + CSS.escape(id), ...steps].join(" > ");
        if (exactly(root, sel, el)) return sel;
      }
      steps.unshift(step(n));
      if (parentNode.call(n) === root) break;
    }
    const top = isDocument(root) ? steps.join(" > ") : [":host", ...steps].join(" > ");
    return exactly(root, top, el) ? top : "";
  }
  function startTag(el) {
    const tag = localName.call(el);
    let s = "<" + tag;
    for (const a of attributes.call(el)) {
      let v = a.value;
      // A value attribute may hold what a server filled in for the User.
      if (a.name === "value" && (tag === "input" || tag === "textarea") && v !== "") v = "…";
      // Control characters would reach a terminal as they are.
      v = v.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
      s += v === "" ? " " + a.name : ` ${a.name}="${v.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`;
    }
    s += ">";
    const chars = Array.from(s);
    return chars.length > MAX_HTML ? chars.slice(0, MAX_HTML - 1).join("") + "…" : s;
  }
  // describe: el's selector in its tree, its hosts' from the document down,
  // and its start tag.
  function describe(el) {
    const hosts = [];
    let root = rootNode.call(el);
    const selector = within(el, root);
    for (let r = root; isShadowRoot(r); ) {
      const host = r.host;
      const up = rootNode.call(host);
      hosts.unshift(within(host, up));
      r = up;
    }
    return { selector, hosts, html: startTag(el) };
  }
  // locate: the location of each element by scanner id; gone ones are left out.
  function locate(ids) {
    const out = {};
    for (const id of ids) {
      const el = globalThis.poppyMarks.elementOf(id);
      if (el) out[id] = describe(el);
    }
    return out;
  }
  // frameSelf says, from inside a frame, where the element holding it is:
  // described here when the parent is same-origin (window.frameElement),
  // else this frame's index among its parent's child frames
  // (window.frames, which leaves out frames in shadow trees), -1 when it
  // is not among them or is a top frame.
  function frameSelf() {
    const p = window.parent;
    if (p === window) return { index: -1 };
    const owner = window.frameElement;
    if (owner) return { index: -1, owner: describe(owner) };
    for (let i = 0; i < p.length; i++) if (p[i] === window) return { index: i };
    return { index: -1 };
  }
  // frameOwner locates the element (iframe, frame, object) of this
  // document, shadow trees included, that holds child frame i.
  function frameOwner(i) {
    const w = window[i];
    if (!w) return null;
    const walk = (root) => {
      for (const el of queryAll(root, "*")) {
        if (/^(iframe|frame|object)$/.test(localName.call(el)) && el.contentWindow === w) return el;
        const sr = rootOf(el);
        const found = sr && walk(sr);
        if (found) return found;
      }
      return null;
    };
    const el = walk(document);
    return el ? describe(el) : null;
  }
  return Object.freeze({ locate, frameSelf, frameOwner });
})();
