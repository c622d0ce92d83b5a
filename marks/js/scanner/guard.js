// guard.js: the guard, and check, which arms it.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

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
        case "click": case "hover": { // a pointer over covered UI may open or activate it
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
