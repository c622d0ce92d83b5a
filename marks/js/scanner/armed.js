// armed.js: what the marks covered when the guard armed, which the guard
// judges by (with the marks now, whichever covers more).
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Armed = (() => {
    const { ATTR, rootQuery, formElements, lookup } = Dom;
    const { parentOf } = Tree;
    const { collector, kindOf, interactionOf, submissionOf, formOf, isSubmit, submitOrder } = Rules;

    // A script the agent's action runs may remove or change a mark, move a
    // covered control or form, clone a covered form without its mark, or
    // replace its submitter before it submits or sets something. So the
    // guard records, when it arms, every marked element with its kind,
    // every form a mark covers (its marks and its controls), the submit
    // buttons an interaction mark covers with their forms, and the value of
    // every control an interaction mark covers. It is
    // read from the marked elements down, not by a walk of every element:
    // a click's cost stays near that of its check.
    const elQuery = (el, sel) => Element.prototype.querySelectorAll.call(el, sel);
    const prop = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
    const formAction = prop(HTMLFormElement.prototype, "action");
    const formMethod = prop(HTMLFormElement.prototype, "method");
    const FIELDS = "input,select,textarea";
    const NAMED = "input[name],select[name],textarea[name]";
    const isField = (el) => el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;

    // record reads what the marks cover in roots (the document and the
    // shadow roots the guard listens in) now.
    function record(roots) {
      const marks = new Map();
      for (const r of roots) {
        for (const el of rootQuery(r, "[" + ATTR + "]")) {
          const k = kindOf(el);
          if (k) marks.set(el, k);
        }
      }
      if (marks.size === 0) return { marks, forms: [], submitters: new Map(), saved: new Map() };
      return { marks, forms: coveredForms(roots, marks), submitters: markedSubmitters(marks), saved: saveCovered(roots, marks) };
    }

    // signature is what form f would send, but for the values: a clone
    // of a covered form sends the same. It is read when a form is
    // submitted, of that form and of the covered ones, not at arming.
    function signature(f) {
      const names = Array.from(formElements.call(f), (el) => el.name || "").filter((n) => n !== "").sort();
      return formMethod.call(f) + " " + formAction.call(f) + "\n" + names.join("\n");
    }
    // coveredForms finds the forms a mark covers from the marks down: a
    // marked form, a form inside an interaction-marked element, and (few)
    // the forms of shadow trees; each with its marks and its named fields
    // (descendants: a field a form= attribute gives it from elsewhere is
    // left out), which a script may move into another form to send them.
    function coveredForms(roots, marks) {
      const found = new Set();
      for (const [el, kind] of marks) {
        if (el instanceof HTMLFormElement) found.add(el);
        if (kind === "interaction") for (const f of elQuery(el, "form")) found.add(f);
      }
      for (const r of roots) if (r !== document) for (const f of rootQuery(r, "form")) found.add(f);
      const out = [];
      for (const f of found) {
        const c = collector();
        submissionOf(f, c, f);
        if (!c.list.length) continue;
        const fm = [];
        for (let n = f; n; n = parentOf(n)) {
          const k = kindOf(n);
          if (k === "interaction" || (n === f && k)) fm.push([k, n]);
        }
        out.push({ form: f, marks: fm, controls: new Set(elQuery(f, NAMED)) });
      }
      return out;
    }

    // markedSubmitters maps every submit button an interaction mark covers
    // (on it or around it) to its form.
    function markedSubmitters(marks) {
      const out = new Map();
      for (const [el, kind] of marks) {
        if (kind !== "interaction") continue;
        for (const s of [el, ...elQuery(el, "button,input[type=submit],input[type=image]")]) {
          if (isSubmit(s) && !out.has(s)) out.set(s, formOf(s));
        }
      }
      return out;
    }

    // stateOf is what the User sees of a control: its value, checked, the
    // options selected, the files chosen.
    function stateOf(el) {
      return {
        value: el.value, checked: !!el.checked,
        selected: el instanceof HTMLSelectElement ? Array.from(el.options, (o) => o.selected) : null,
        files: el instanceof HTMLInputElement && el.files ? Array.from(el.files) : null,
      };
    }
    // saveCovered keeps the state of every control an interaction mark
    // covers (on it, around it, on its form owner or around that; a host
    // covers its shadow tree), with its form and marks of then, for a
    // submission after it was taken out (Guard).
    function saveCovered(roots, marks) {
      const fields = new Set();
      const add = (el) => { if (isField(el)) fields.add(el); };
      for (const [el, kind] of marks) {
        if (kind !== "interaction") continue;
        add(el);
        for (const f of elQuery(el, FIELDS)) add(f);
        const forms = el instanceof HTMLFormElement ? [el] : [];
        for (const f of elQuery(el, "form")) forms.push(f);
        for (const f of forms) for (const x of formElements.call(f)) add(x);
      }
      // Shadow trees are few: their fields are judged one by one.
      for (const r of roots) if (r !== document) for (const f of rootQuery(r, FIELDS)) add(f);
      const saved = new Map();
      for (const el of fields) {
        const c = collector();
        interactionOf(el, c);
        if (c.list.length) saved.set(el, { ...stateOf(el), form: formOf(el), marks: c.list.map((m) => [m.kind, lookup(m.marked)]).filter((m) => m[1]) });
      }
      return saved;
    }

    // formMarks adds to c the marks that cover the submission of form t
    // with submitter (null for none), now or when the guard armed: t's own
    // (marks removed since count, as does a marked container it was moved
    // out of); when none covers t, a covered form's that t is a clone of
    // (same action, method and field names) or whose field t now holds
    // (moved into it); and an interaction-marked submitter of t that is
    // gone from it (replaced by another), or submitter's own.
    function formMarks(rec, t, submitter, c) {
      const touches = submitter || t;
      submissionOf(t, c, touches);
      for (const f of rec.forms) {
        if (f.form === t) for (const [kind, marked] of f.marks) c.add(kind, marked, touches);
      }
      if (!c.list.length && rec.forms.length) {
        const sig = signature(t), now = submitOrder(t);
        for (const f of rec.forms) {
          if (sig === signature(f.form) || now.some((el) => f.controls.has(el))) {
            for (const [kind, marked] of f.marks) c.add(kind, marked, touches);
          }
        }
      }
      for (const [s, form] of rec.submitters) {
        if (form === t && s !== submitter && formOf(s) !== t) interactionOf(s, c, touches);
      }
      if (submitter) interactionOf(submitter, c);
    }
    return { record, formMarks, stateOf, isField };
  })();
