// helpers.js: helpers the gate calls after an allowed check, and the reads for
// tests and reports.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Helpers = (() => {
    const { ATTR, attr, lookup, rootQuery, idFor } = Dom;
    const { clip } = Fields;
    const { deepActive, parentOf, rootOf } = Tree;
    const { kindOf } = Rules;

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
    // selectKeys works out, changing nothing, the key presses that select
    // the options of a native select whose value or label is one of values
    // (the first match unless it is multiple), from what is selected now, as
    // a person at the keyboard would: the arrows (which skip disabled
    // options), Home and End; in a multiple select, Control with an arrow
    // moves without selecting and Control+Space adds the option. The gate
    // focuses the select and presses them: the page sees the events a
    // person's select fires (keydown, input, change), nothing synthetic.
    function selectKeys(id, values) {
      const el = need(id);
      if (!(el instanceof HTMLSelectElement)) throw new Error("not a select element");
      const wanted = new Set(values);
      const options = Array.from(el.options);
      const hits = options.filter((o) => wanted.has(o.value) || wanted.has(clip(o.label || o.text, 1000)));
      if (!hits.length) return null;
      const usable = options.filter((o) => !o.matches(":disabled"));
      const chosen = (el.multiple ? hits : hits.slice(0, 1)).filter((o) => usable.includes(o));
      if (!chosen.length) throw new Error("the matching option is disabled");
      const keys = [];
      const repeat = (k, n) => { for (let i = 0; i < n; i++) keys.push(k); };
      const at = (o) => usable.indexOf(o);
      const first = at(chosen[0]);
      if (!el.multiple) {
        const from = el.selectedIndex >= 0 ? at(options[el.selectedIndex]) : -1;
        const fromEnd = usable.length - 1 - first;
        if (from === first) return { keys, values: [chosen[0].value] };
        const d = from < 0 ? Infinity : Math.abs(first - from);
        if (first + 1 <= d && first <= fromEnd) keys.push("Home"), repeat("ArrowDown", first);
        else if (fromEnd + 1 <= d) keys.push("End"), repeat("ArrowUp", fromEnd);
        else repeat(first > from ? "ArrowDown" : "ArrowUp", d);
        return { keys, values: [chosen[0].value] };
      }
      // Home selects the first option alone; the arrows move the selection.
      keys.push("Home");
      repeat("ArrowDown", first);
      for (let i = 1; i < chosen.length; i++) {
        repeat("Control+ArrowDown", at(chosen[i]) - at(chosen[i - 1]));
        keys.push("Control+ ");
      }
      return { keys, values: chosen.map((o) => o.value) };
    }
    function selectedValues(id) {
      const el = need(id);
      if (!(el instanceof HTMLSelectElement)) throw new Error("not a select element");
      return Array.from(el.selectedOptions, (o) => o.value);
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
    // document order (open shadow trees included), for tests (marks.Read).
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
    return { focus, selectKeys, selectedValues, scrollBy, marksNow, ref };
  })();
