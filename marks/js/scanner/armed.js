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
    // every form a mark covers (its marks, its controls, its marked
    // submitters, and what it would send: action, method and field names),
    // and the value of every control an interaction mark covers. It is
    // read from the marked elements down, not by a walk of every element:
    // a click's cost stays near that of its check.
    const elQuery = (el, sel) => Element.prototype.querySelectorAll.call(el, sel);
    const prop = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
    const formAction = prop(HTMLFormElement.prototype, "action");
    const formMethod = prop(HTMLFormElement.prototype, "method");
    const FIELDS = "input,select,textarea";
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
      if (marks.size === 0) return { marks, forms: [], saved: new Map() };
      return { marks, forms: coveredForms(roots), saved: saveCovered(roots, marks) };
    }

    // signature is what form f would send, but for the values: a clone
    // of a covered form sends the same.
    function signature(f) {
      const names = Array.from(formElements.call(f), (el) => el.name || "").filter((n) => n !== "").sort();
      return formMethod.call(f) + " " + formAction.call(f) + "\n" + names.join("\n");
    }
    function coveredForms(roots) {
      const out = [];
      for (const r of roots) {
        for (const f of rootQuery(r, "form")) {
          const c = collector();
          submissionOf(f, c, f);
          if (!c.list.length) continue;
          const marks = [];
          for (let n = f; n; n = parentOf(n)) {
            const k = kindOf(n);
            if (k === "interaction" || (n === f && k)) marks.push([k, n]);
          }
          const controls = new Set(submitOrder(f));
          const submitters = [];
          for (const el of controls) {
            if (!isSubmit(el)) continue;
            const s = collector();
            interactionOf(el, s);
            if (s.list.length) submitters.push(el);
          }
          out.push({ form: f, marks, controls, submitters, sig: signature(f) });
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

    // formMarks adds to c the marks that covered, when the guard armed,
    // the submission of form t with submitter (null for none): t's own
    // (moved out of a marked container since), a covered form's that t is
    // a clone of (same action, method and field names), or whose control
    // t now holds (moved into it), and an interaction-marked submitter of
    // t that is gone from it (replaced by another).
    function formMarks(rec, t, submitter, c) {
      let sig = null;
      const now = submitOrder(t);
      for (const f of rec.forms) {
        let covers = f.form === t;
        if (!covers) {
          sig ??= signature(t);
          covers = sig === f.sig || now.some((el) => f.controls.has(el));
        }
        if (covers) for (const [kind, marked] of f.marks) c.add(kind, marked, submitter || t);
        if (f.form === t) {
          for (const s of f.submitters) {
            if (s !== submitter && formOf(s) !== t) interactionOf(s, c, submitter || t);
          }
        }
      }
      if (submitter) interactionOf(submitter, c);
    }
    return { record, formMarks, stateOf, isField };
  })();
