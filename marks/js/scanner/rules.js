// rules.js: the mark rules: what an action on an element changes, activates or
// submits, and which marks cover it.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Rules = (() => {
    const { ATTR, attr, idFor, rootQuery, formElements } = Dom;
    const { parentOf, closest } = Tree;

    // kindOf mirrors spec.KindOf: only an exact "submission" on a form is a
    // submission mark; every other value is an interaction mark. While the
    // guard judges an event (judgeBy), a mark the element had when the
    // guard armed counts too, whichever covers more: a script that removed
    // or changed a mark first does not uncover what it covered.
    let atArming = null; // Map: element -> its mark's kind when the guard armed
    function kindOf(el) {
      const v = attr(el, ATTR);
      const now = v === null ? "" : v === "submission" && el instanceof HTMLFormElement ? "submission" : "interaction";
      if (atArming === null || now === "interaction") return now;
      const then = atArming.get(el);
      return then === "interaction" || !now ? then || now : now;
    }
    // judgeBy makes kindOf count the marks of then (null: the marks now
    // only), and returns what it counted before, to put back.
    function judgeBy(then) {
      const was = atArming;
      atArming = then;
      return was;
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
      let seen = null; // made on the first mark: most elements have none
      return {
        list,
        add(kind, marked, touches) {
          const key = kind + ":" + idFor(marked);
          seen ??= new Set();
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

    // implicitRule is HTML's implicit submission (HTML 4.10.21.2), pure:
    // controls are a form's submit buttons and fields in tree order ({submit,
    // disabled, blocks}); it returns the index of the button Enter activates,
    // FORM when Enter submits the form itself, or NOTHING. The default button
    // is the first submit button; a disabled one means no submission. Without
    // one, the form is submitted when at most one field blocks implicit
    // submission. trigger says the focused field blocks implicit submission
    // itself (a text field); Enter in another (a checkbox) is judged as
    // Chromium does it, which skips disabled buttons to the first enabled one.
    const FORM = -1, NOTHING = -2;
    function implicitRule(controls, trigger) {
      let blocking = 0, buttons = false;
      for (let i = 0; i < controls.length; i++) {
        const c = controls[i];
        if (c.submit) {
          if (!c.disabled) return i;
          if (trigger) return NOTHING;
          buttons = true;
        } else if (c.blocks) {
          blocking++;
        }
      }
      return !buttons && blocking <= 1 ? FORM : NOTHING;
    }
    // submitOrder: the listed elements of form f in tree order, with its
    // image inputs (which form.elements leaves out, HTML 4.10.18.3).
    function submitOrder(f) {
      const listed = Array.from(formElements.call(f));
      const images = Array.from(rootQuery(f.getRootNode(), "input[type=image]")).filter((i) => formOf(i) === f);
      if (!images.length) return listed;
      return listed.concat(images).sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
    }
    const blocksImplicit = (el) => el instanceof HTMLInputElement && BLOCKING.test(el.type);
    // implicitTarget: what Enter in field el activates (implicitRule): the
    // button, the form itself, or null.
    function implicitTarget(el) {
      const f = formOf(el);
      if (!f) return null;
      const list = submitOrder(f);
      const i = implicitRule(list.map((e) => ({ submit: isSubmit(e), disabled: isSubmit(e) && e.matches(":disabled"), blocks: blocksImplicit(e) })), blocksImplicit(el));
      return i >= 0 ? list[i] : i === FORM ? f : null;
    }
    // implicitSubmission: what Enter in field el submits.
    function implicitSubmission(el, c) {
      const t = implicitTarget(el);
      if (t instanceof HTMLFormElement) submissionOf(t, c, t);
      else if (t) activate(t, c);
    }
    // ENTER: every spelling of Enter a client may send (marks.Key in Go).
    const ENTER = new Set(["Enter", "\r", "\n", "Return", "NumpadEnter"]);
    const isTextField = (el) =>
      el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement || el.isContentEditable ||
      el instanceof HTMLInputElement && !/^(submit|image|reset|button|checkbox|radio|file|color)$/.test(el.type);
    function keyMarks(el, key, c) {
      const k = key.length > 2 && key.includes("+", 1) ? key.slice(key.lastIndexOf("+", key.length - 2) + 1) : key;
      if (k === "Tab") return; // moves focus only
      const enter = ENTER.has(k);
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
    return { kindOf, judgeBy, isControl, formOf, isSubmit, ROLES, INTERACTIVE, CONTENT, FIELD_ROLES, collector, interactionOf, submissionOf, clickMarks, keyMarks, selectMarks, isTextField, implicitRule,
      submitOrder, blocksImplicit, implicitTarget };
  })();
