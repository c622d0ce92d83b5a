// webmcp.js: the page's declarative WebMCP tools (the WebMCP draft's
// <form toolname>): which form a tool is, which marks cover it and the
// fields a call would set, and the fill the gate allows on a form whose
// submission is the User's.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const WebMCP = (() => {
    const { attr, idFor, rootQuery, formElements, lookup } = Dom;
    const { collector, interactionOf, submissionOf } = Rules;

    // toolForm: the form of the top document that declares tool name (the
    // first, as the browser registers it), or null.
    function toolForm(name) {
      for (const f of rootQuery(document, "form[toolname]")) {
        if (attr(f, "toolname") === name) return f;
      }
      return null;
    }
    // fieldsNamed: the form's listed controls named name.
    const fieldsNamed = (f, name) => Array.prototype.filter.call(formElements.call(f), (el) => el.name === name);

    // toolForms reads, for each declarative tool name, its form's local id
    // and the marks covering its submission: {name: {id, marks}}.
    function toolForms(names) {
      const out = {};
      for (const name of names) {
        const f = toolForm(name);
        if (!f) continue;
        const c = collector();
        submissionOf(f, c, f);
        out[name] = { id: idFor(f), marks: c.list };
      }
      return out;
    }

    // plan reads what a call of tool name with args would do to its form:
    // the marks covering its submission (form), and for each argument the
    // interaction marks covering the fields it sets (refused).
    function plan(name, args) {
      const f = toolForm(name);
      if (!f) return null;
      const c = collector();
      submissionOf(f, c, f);
      const refused = collector();
      for (const key of Object.keys(args || {})) {
        for (const el of fieldsNamed(f, key)) interactionOf(el, refused);
      }
      return { id: idFor(f), marks: c.list, refused: refused.list };
    }

    // fill sets the form's fields from args as the browser's declarative
    // tool does (text, checkbox, radio, select), firing input and change,
    // and never submits. It returns the names it set, in the form's tree
    // order (args come in any order).
    function fill(id, args) {
      const f = lookup(id);
      if (!f) throw new Error("stale element");
      args = args || {};
      const filled = [];
      for (const el of formElements.call(f)) {
        const key = el.name;
        if (!key || !Object.prototype.hasOwnProperty.call(args, key)) continue;
        const v = args[key];
        if (el instanceof HTMLInputElement && el.type === "checkbox") {
          el.checked = Array.isArray(v) ? v.map((x) => "" + x).includes(el.value) : !!v;
        } else if (el instanceof HTMLInputElement && el.type === "radio") {
          el.checked = el.value === "" + v;
        } else if (el instanceof HTMLSelectElement) {
          const want = new Set((Array.isArray(v) ? v : [v]).map((x) => "" + x));
          for (const o of el.options) o.selected = want.has(o.value);
        } else if ("value" in el && !(el instanceof HTMLButtonElement)) {
          el.value = v === null || v === undefined ? "" : "" + v;
        } else {
          continue;
        }
        el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        el.dispatchEvent(new Event("change", { bubbles: true }));
        if (!filled.includes(key)) filled.push(key);
      }
      return filled;
    }
    return { toolForms, plan, fill };
  })();
