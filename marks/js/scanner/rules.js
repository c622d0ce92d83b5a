// rules.js: the mark rules: what an action on an element changes, activates or
// submits, and which marks cover it.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

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
