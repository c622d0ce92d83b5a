// verdict.js: what an agent action touches, by the marks now (check's
// verdict, before it arms the guard).
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Verdict = (() => {
    const { lookup, docBody, docElement } = Dom;
    const { rootOf, deepActive, readAgain } = Tree;
    const { hitTest } = HitTest;
    const { collector, keyMarks, interactionOf, clickMarks, selectMarks, formOf, kindOf } = Rules;

    function checkNow(a) {
      const el = a.id ? lookup(a.id) : deepActive();
      if (a.id && !el) return { stale: true, marks: [] };
      const c = collector();
      const out = { stale: false, marks: c.list, obscured: false, point: null, focused: false };
      if (el) {
        switch (a.kind) {
          case "click": { // a pointer over covered UI may open or activate it (a hover too)
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
          case "wheel": // a wheel steps a focused number field
            if (el instanceof HTMLInputElement && el.type === "number") interactionOf(el, c);
            break;
          case "focus": case "scroll": break;
          default: throw new Error("unknown action kind " + a.kind);
        }
        // Marks add up: a refused control in a submission form is covered both ways.
        const f = c.list.length ? formOf(el) : null;
        if (f && kindOf(f) === "submission") c.add("submission", f, el);
        out.focused = deepActive() === el;
        // Focus on an element that does not take focus itself is in a shadow
        // root this world cannot see: a closed one attached since the last
        // scan. Go adopts it and asks again.
        if (!a.id && !rootOf(el) && el !== docBody.call(document) && el !== docElement.call(document) && el.tabIndex < 0 && !el.isContentEditable) {
          readAgain(el);
          Memo.forget(); // the blocks reused would not list it again
          out.unseen = true;
        }
      }
      c.list.sort((x, y) => (x.kind === "submission") - (y.kind === "submission"));
      return out;
    }
    return { checkNow };
  })();
