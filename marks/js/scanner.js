// scanner.js: the marks scanner of poppy-browser (package marks).
//
// It runs at document start in the isolated world "poppy-marks" of every
// frame: globalThis is that world's, never the page's, and nothing here reads
// or writes the page's JavaScript globals. It defines globalThis.poppyMarks,
// whose functions the Go package calls with JSON arguments. Marks are read
// from the DOM at the moment of each call, never cached. It dispatches no
// input; selectValues and scrollBy change what the Go gate allowed.
"use strict";
globalThis.poppyMarks ??= (() => {
  const ATTR = "data-poppy-user-step";
  // DOM entry points taken from this world's prototypes, so that named
  // elements (DOM clobbering of document and form) cannot shadow them.
  const getAttr = Element.prototype.getAttribute;
  const attr = (el, name) => getAttr.call(el, name);
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const formElements = getter(HTMLFormElement.prototype, "elements");
  const docElement = getter(Document.prototype, "documentElement");
  const docTitle = getter(Document.prototype, "title");
  const docActive = getter(Document.prototype, "activeElement");
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

  // Shadow roots: open ones, and closed ones the Go side adopted over CDP
  // (closed roots are out of this world's reach otherwise). Custom elements
  // without a root seen by a scan are pending until Go has described them.
  const closedRoots = new WeakMap();
  const described = new WeakSet();
  let pending = [];
  const rootOf = (el) => el.shadowRoot || closedRoots.get(el) || null;
  function pendingHosts() {
    const hosts = pending.filter((el) => el.isConnected && !described.has(el));
    pending = [];
    for (const el of hosts) described.add(el);
    return hosts;
  }
  function adopt(host, root) {
    if (host instanceof Element && root instanceof ShadowRoot && root.host === host) closedRoots.set(host, root);
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

  // kindOf mirrors spec.KindOf: only an exact "submission" on a form is a
  // submission mark; every other value is an interaction mark.
  function kindOf(el) {
    const v = attr(el, ATTR);
    if (v === null) return "";
    return v === "submission" && el instanceof HTMLFormElement ? "submission" : "interaction";
  }

  // formOf is the browser's own form owner (form= attribute included); for a
  // form-associated custom element, whose form property lives in the page's
  // world, it asks the forms of its tree which one lists it.
  // isControl: a form-associated element (custom elements may be).
  const isControl = (el) => "form" in el && !(el instanceof HTMLFormElement) || el.localName.includes("-");
  function formOf(el) {
    if (el instanceof HTMLFormElement) return null;
    const f = el.form;
    if (f instanceof HTMLFormElement) return f;
    if (!el.localName.includes("-")) return null;
    for (const form of rootQuery(el.getRootNode(), "form")) {
      if (Array.prototype.includes.call(formElements.call(form), el)) return form;
    }
    return null;
  }

  const isSubmit = (el) =>
    el instanceof HTMLButtonElement && el.type === "submit" ||
    el instanceof HTMLInputElement && (el.type === "submit" || el.type === "image");
  const isReset = (el) =>
    (el instanceof HTMLButtonElement || el instanceof HTMLInputElement) && el.type === "reset";
  const ROLES = "button checkbox switch link menuitem menuitemcheckbox menuitemradio tab option radio combobox slider spinbutton textbox searchbox treeitem listbox".split(" ");
  const WIDGETS = ROLES.map((r) => `[role~=${r}]`).join(",");
  const INTERACTIVE = "a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,iframe," + WIDGETS;
  const ACTIVATABLE = INTERACTIVE + ",label,option,[contenteditable]:not([contenteditable=false])";
  const HTML_ACTIVATION = "a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,label,option";
  const CONTENT = "h1,h2,h3,h4,h5,h6,p,li,label,td,th,legend,caption,dt,dd,figcaption,dialog,[role~=status],[role~=alert],[role~=heading]";
  const FIELD_ROLES = /^(textbox|searchbox|combobox|listbox|slider|spinbutton)$/;
  const BLOCKING = /^(text|search|url|tel|email|password|date|month|week|time|datetime-local|number)$/;

  // A set of marks, each reported once per marked element and kind.
  function collector() {
    const list = [];
    const seen = new Set();
    return {
      list,
      add(kind, marked, touches) {
        const key = kind + ":" + idFor(marked);
        if (seen.has(key)) return;
        seen.add(key);
        list.push({ kind, marked: idFor(marked), touches: idFor(touches) });
      },
    };
  }

  // interactionOf: the interaction marks that leave changing or activating el
  // to the User: on el, on its ancestors (a host covers its shadow tree), and
  // on its form owner and the form's ancestors. A form around a control it
  // does not own (form= naming another form or a missing id) does not cover it.
  function interactionOf(el, c, touches = el) {
    const owner = formOf(el);
    const listed = owner !== null || "form" in el && !(el instanceof HTMLFormElement);
    for (let n = el; n; n = parentOf(n)) {
      if (listed && n !== el && n instanceof HTMLFormElement && n !== owner) continue;
      if (kindOf(n) === "interaction") c.add("interaction", n, touches);
    }
    if (owner) {
      for (let n = owner; n; n = parentOf(n)) if (kindOf(n) === "interaction") c.add("interaction", n, touches);
    }
  }
  // submissionOf: the marks that leave submitting form f to the User.
  function submissionOf(f, c, touches) {
    for (let n = f; n; n = parentOf(n)) {
      const k = kindOf(n);
      if (k === "interaction" || (n === f && k)) c.add(k, n, touches);
    }
  }

  // activate: what activating el changes, submits or resets.
  function activate(el, c) {
    interactionOf(el, c);
    if (el instanceof HTMLLabelElement && el.control) activate(el.control, c);
    const f = formOf(el);
    if (f && isSubmit(el)) submissionOf(f, c, el);
    if (f && isReset(el)) for (const ctl of formElements.call(f)) interactionOf(ctl, c);
    if (el instanceof HTMLInputElement && el.type === "radio" && el.name) {
      for (const r of rootQuery(el.getRootNode(), "input[type=radio]")) {
        if (r.name === el.name && formOf(r) === f) interactionOf(r, c); // the radios it unchecks
      }
    }
  }
  // clickMarks: a click on el touches el and every covered ancestor
  // (interactionOf), el itself as a widget, and the activation target: the
  // nearest inclusive ancestor with activation behaviour (a span inside a
  // button activates the button; a click inside a label, not on interactive
  // content, activates the label's control).
  function clickMarks(el, c) {
    interactionOf(el, c);
    if (el.matches(ACTIVATABLE)) activate(el, c);
    const target = closest(el, HTML_ACTIVATION);
    if (target && target !== el) activate(target, c);
  }

  // implicitSubmission: Enter in a field submits its form owner when the form
  // has a submit button (which it activates) or only one blocking field.
  function implicitSubmission(el, c) {
    const f = formOf(el);
    if (!f) return;
    const controls = Array.from(formElements.call(f));
    const button = controls.find(isSubmit);
    if (button) activate(button, c);
    else if (controls.filter((e) => e instanceof HTMLInputElement && BLOCKING.test(e.type)).length <= 1) submissionOf(f, c, f);
  }
  const isTextField = (el) =>
    el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement || el.isContentEditable ||
    el instanceof HTMLInputElement && !/^(submit|image|reset|button|checkbox|radio|file|color)$/.test(el.type);
  function keyMarks(el, key, c) {
    const k = key.length > 1 && key.includes("+") ? key.slice(key.lastIndexOf("+") + 1) : key;
    if (k === "Tab") return; // moves focus only
    const enter = k === "Enter";
    if ((enter || k === " " || k === "Space") && !isTextField(el) && el.matches(ACTIVATABLE)) activate(el, c);
    else interactionOf(el, c); // typing into it, or a key its widget handles
    // Arrows and type-ahead change a select's option or a radio group's
    // checked radio: the option or radio they reach may be the marked one.
    if (!enter && el instanceof HTMLSelectElement) selectMarks(el, c);
    if (!enter && el instanceof HTMLInputElement && el.type === "radio") activate(el, c);
    if (enter && (el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) implicitSubmission(el, c);
  }
  function selectMarks(el, c) {
    interactionOf(el, c);
    for (const o of el.querySelectorAll("[" + ATTR + "]")) c.add(kindOf(o), o, el); // marked options it may (de)select
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

  // ---- the guard: a second line behind check ----
  // While the gate dispatches an allowed agent action, the guard is armed
  // in the frames it checked: a click, key press, text input or submit that
  // reaches a covered element (because the page changed under the pointer,
  // moved focus, or its script submits a covered form) is stopped before
  // any page listener sees it, and remembered for disarm. It is armed only
  // between an allowed check and its disarm (at most GUARD_MS), when the
  // agent holds control: the User's own input, which the runtime lets
  // through only while the User holds control, is never stopped.
  const GUARD_MS = 5000;
  let guard = null; // {until, caught}
  function guardEvent(ev) {
    if (!guard) return;
    if (performance.now() > guard.until) { guard = null; return; }
    let t = ev.composedPath()[0];
    if (!(t instanceof Element)) return;
    if (closedRoots.has(t)) { // the event comes from inside a closed tree
      t = ev instanceof MouseEvent ? deepFromPoint(t, ev.clientX, ev.clientY) : ev.type === "submit" ? t : deepActive() || t;
    }
    const c = collector();
    switch (ev.type) {
      case "keydown": keyMarks(t, ev.key, c); break;
      case "beforeinput": interactionOf(t, c); break;
      case "submit":
        if (t instanceof HTMLFormElement) submissionOf(t, c, ev.submitter || t);
        break;
      default: clickMarks(t, c); // click, auxclick, dblclick
    }
    if (!c.list.length) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    c.list.sort((x, y) => (x.kind === "submission") - (y.kind === "submission"));
    guard.caught ??= { event: ev.type, marks: c.list };
  }
  for (const type of ["click", "auxclick", "dblclick", "keydown", "beforeinput", "submit"]) {
    addEventListener(type, guardEvent, { capture: true });
  }
  function disarm() {
    const caught = guard && guard.caught;
    guard = null;
    return { caught: caught || null, title: docTitle.call(document) };
  }

  function check(a) {
    guard = null;
    const out = checkNow(a);
    if (a.arm && !out.stale && !out.obscured && out.marks.length === 0) guard = { until: performance.now() + GUARD_MS, caught: null };
    return out;
  }
  function checkNow(a) {
    const el = a.id ? lookup(a.id) : deepActive();
    if (a.id && !el) return { stale: true, marks: [] };
    const c = collector();
    const out = { stale: false, marks: c.list, obscured: false, point: null, focused: false };
    if (el) {
      switch (a.kind) {
        case "click": {
          clickMarks(el, c);
          const hit = hitTest(el, out);
          if (hit && hit !== el && !out.obscured) clickMarks(hit, c);
          break;
        }
        case "type":
          interactionOf(el, c);
          if (a.key) keyMarks(el, a.key, c);
          break;
        case "key": keyMarks(el, a.key || "", c); break;
        case "select": selectMarks(el, c); break;
        case "focus": case "scroll": break;
        default: throw new Error("unknown action kind " + a.kind);
      }
      // Marks add up: a refused control in a submission form is covered both ways.
      const f = c.list.length ? formOf(el) : null;
      if (f && kindOf(f) === "submission") c.add("submission", f, el);
      out.focused = deepActive() === el;
    }
    c.list.sort((x, y) => (x.kind === "submission") - (y.kind === "submission"));
    return out;
  }

  // ---- the scan: what the agent may read ----
  const clip = (s, n) => s.replace(/\s+/g, " ").trim().slice(0, n);
  // textOf: visible text of el; with own, without the text of interactive and
  // content descendants (they have lines of their own).
  function textOf(el, own) {
    let s = "";
    const visit = (n) => {
      for (const ch of n.childNodes) {
        if (s.length > 400) return;
        if (ch.nodeType === Node.TEXT_NODE) s += ch.data;
        else if (ch.nodeType !== Node.ELEMENT_NODE || ch.hidden || /^(script|style|template|select|textarea)$/.test(ch.localName)) continue;
        else if (ch.localName === "img") s += " " + (attr(ch, "alt") || "") + " ";
        else if (ch.isContentEditable) continue; // the User's text, or a line of its own
        else if (!own || !(ch.matches(INTERACTIVE) || ch.matches(CONTENT))) {
          s += " ";
          visit(ch);
          s += " ";
        }
      }
    };
    visit(el);
    return s;
  }
  function nameOf(el) {
    const label = attr(el, "aria-label");
    if (label && label.trim()) return clip(label, 100);
    const by = attr(el, "aria-labelledby");
    if (by) {
      const root = el.getRootNode();
      const s = by.split(/\s+/).map((id) => { const t = id && rootByID(root, id); return t ? textOf(t, false) : ""; }).join(" ");
      if (s.trim()) return clip(s, 100);
    }
    if (el instanceof HTMLFormElement) return clip(attr(el, "name") || attr(el, "id") || attr(el, "title") || "", 100);
    const field = el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
    let s = "";
    // el.labels walks the whole tree on first use: ask it only of fields.
    const labels = field || el.localName.includes("-") ? el.labels : null;
    if (labels && labels.length) s = Array.from(labels, (l) => textOf(l, true)).join(" ");
    if (!s.trim() && field) s = attr(el, "placeholder") || "";
    if (!s.trim() && el instanceof HTMLInputElement && /^(submit|reset|button|image)$/.test(el.type)) {
      s = el.type === "image" ? attr(el, "alt") || "" : el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : "");
    }
    if (!s.trim() && !field && !el.isContentEditable && !(el instanceof HTMLIFrameElement)) s = textOf(el, false);
    if (!s.trim()) s = attr(el, "title") || attr(el, "alt") || (el instanceof HTMLIFrameElement ? attr(el, "name") || "" : "");
    return clip(s, 100);
  }
  const INPUT_ROLES = { button: "button", submit: "button", reset: "button", image: "button", file: "button", color: "button", checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox" };
  const TAG_ROLES = { button: "button", summary: "button", textarea: "textbox", form: "form", iframe: "iframe", li: "listitem", p: "paragraph", td: "cell", th: "columnheader", dialog: "dialog", label: "label", legend: "legend", caption: "caption", dt: "term", dd: "definition", figcaption: "caption", option: "option" };
  function roleOf(el) {
    const explicit = (attr(el, "role") || "").trim().split(/\s+/)[0];
    if (explicit) return explicit;
    const tag = el.localName;
    if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : "generic";
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "input") return INPUT_ROLES[el.type] || "textbox";
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (TAG_ROLES[tag]) return TAG_ROLES[tag];
    return el.isContentEditable ? "textbox" : "generic";
  }
  function valueOf(el) {
    if (el instanceof HTMLInputElement) return /^(password|hidden|file|checkbox|radio|submit|reset|button|image)$/.test(el.type) ? "" : el.value;
    if (el instanceof HTMLSelectElement) return Array.from(el.selectedOptions, (o) => o.value).join(", ");
    if (el instanceof HTMLTextAreaElement) return el.value;
    if (el.isContentEditable) return clip(el.textContent, 200);
    return "";
  }
  function checkedOf(el) {
    if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) return el.checked;
    const v = attr(el, "aria-checked");
    return v === "true" ? true : v === "false" ? false : undefined;
  }
  // entry describes a shown element. Its mark is the strongest covering it
  // as a click would meet it (interaction beats submission), or its own.
  function entry(el, depth, interactive, r) {
    const e = { id: idFor(el), role: roleOf(el), name: "", tag: el.localName, box: { x: round(r.x), y: round(r.y), width: round(r.width), height: round(r.height) }, depth };
    const c = collector();
    interactionOf(el, c);
    const covered = c.list.length > 0;
    const f = formOf(el);
    if (!covered && kindOf(el)) c.add(kindOf(el), el, el);
    if (!c.list.length && f && isSubmit(el)) submissionOf(f, c, el);
    if (c.list.length) e.marked = { kind: c.list[0].kind, marked: c.list[0].marked };
    if (!interactive) {
      if (!(el instanceof HTMLFormElement)) e.text = clip(textOf(el, true), 200);
      if (el instanceof HTMLFormElement || e.marked) e.name = nameOf(el);
      return e;
    }
    e.name = nameOf(el);
    if (el instanceof HTMLInputElement || el instanceof HTMLButtonElement) e.type = el.type;
    if (el.matches(":disabled") || attr(el, "aria-disabled") === "true") e.disabled = true;
    if (f && kindOf(f)) e.form = idFor(f);
    if (covered) {
      if (isTextField(el) || checkedOf(el) !== undefined || el.localName.includes("-") || FIELD_ROLES.test(e.role)) e.userField = true;
    } else {
      const v = valueOf(el);
      if (v) e.value = v.slice(0, 200);
      const ch = checkedOf(el);
      if (ch !== undefined) e.checked = ch;
    }
    if (el instanceof HTMLSelectElement) e.options = Array.from(el.options, (o) => clip(o.label || o.text, 100)).slice(0, 50);
    return e;
  }
  const round = (v) => Math.round(v * 100) / 100;
  const NO_BOX = { x: 0, y: 0, width: 0, height: 0 };
  // boxIfShown: the element's box when it is rendered, visible and sized.
  function boxIfShown(el) {
    if (!el.checkVisibility({ visibilityProperty: true })) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0 ? r : null;
  }
  function scan() {
    const out = [];
    const walk = (el, depth, hidden, inEditable) => {
      if (/^(script|style|template|noscript|head)$/.test(el.localName)) return;
      hidden = hidden || attr(el, "aria-hidden") === "true";
      const marked = attr(el, ATTR) !== null;
      const editableRoot = el.isContentEditable && !inEditable;
      const interactive = !inEditable && (editableRoot || el.matches(INTERACTIVE) || marked && isControl(el));
      let content = !interactive && !inEditable && el.matches(CONTENT);
      if (content && el instanceof HTMLLabelElement && el.control) content = false; // its control carries it
      const box = !hidden && (interactive || content) ? boxIfShown(el) : null;
      let show = marked || box !== null;
      if (show && content && !marked && !textOf(el, true).trim()) show = false;
      if (show) out.push(entry(el, depth, interactive, box || (el.checkVisibility() ? el.getBoundingClientRect() : NO_BOX)));
      const root = rootOf(el);
      if (!root && el.localName.includes("-") && !described.has(el)) pending.push(el);
      const d = show ? depth + 1 : depth, ed = inEditable || editableRoot;
      const assigned = el instanceof HTMLSlotElement ? el.assignedElements() : null;
      if (assigned && assigned.length) {
        for (const k of assigned) walk(k, d, hidden, ed);
      } else {
        // Sibling links, not children collections: no wrapper per element.
        for (let k = (root || el).firstElementChild; k; k = k.nextElementSibling) walk(k, d, hidden, ed);
      }
    };
    pending = [];
    walk(docElement.call(document), 0, false, false);
    return { url: location.href, title: docTitle.call(document), elements: out, pendingHosts: pending.length };
  }

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

  // idOf gives other scripts of this world (js/watch.js) the local id of an element.
  return Object.freeze({ scan, check, disarm, focus, selectValues, scrollBy, ref, marks: marksNow, pendingHosts, adopt, idOf: idFor });
})();
