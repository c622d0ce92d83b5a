// guard.js: the guard, and check, which arms it.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Guard = (() => {
    const { docTitle, docElement, formElements } = Dom;
    const { isClosedHost, deepActive } = Tree;
    const { deepFromPoint } = HitTest;
    const { collector, keyMarks, interactionOf, submissionOf, clickMarks, formOf, judgeBy } = Rules;
    const { checkNow } = Verdict;
    const { record, formMarks, stateOf, isField } = Armed;
    const { listenRoots } = Roots;
    const { companyDocument, initialBlank } = NewDocument;

    // ---- the guard: a second line behind check ----
    // While the gate dispatches an allowed agent action, the guard is armed
    // in the frames it checked: a click, key press, text input or submission
    // that reaches a covered element (because the page changed under the
    // pointer, moved focus, or its script submits a covered form) is stopped
    // before any page listener sees it, and remembered for disarm. It is armed
    // only between an allowed check and its disarm (at most GUARD_MS), when
    // the agent holds control: the User's own input, which the runtime lets
    // through only while the User holds control, is never stopped. A take
    // tells the guard of every Company frame (standDown) before the User's
    // input can come, however late the run's disarm is.
    //
    // submit and formdata are not composed: they stay in the shadow tree of
    // their form, so the guard listens in every open and adopted closed root
    // too, added when it is armed. form.submit() fires no submit event, only
    // formdata (HTML 4.10.21.3, "submit a form", step 7), which cannot be
    // cancelled; the submission stops when the form is not connected after it
    // (step 9), so the guard takes a covered form out of its tree for that
    // moment and puts it back in a microtask, before the page's script runs on.
    //
    // What it judges by is the marks as they were when it armed (armed.js)
    // and the marks now, whichever covers more: a script the action runs
    // (a click's handler, a page's WebMCP tool) may remove a mark, clone a
    // form without it or move a control before it submits or sets it.
    //
    // A page's WebMCP tool (check with kind "tool") arms it for the tool's
    // whole run (at most TOOL_MS). A script the action runs may click,
    // submit or set a value and fire input or change itself, so those
    // events are stopped too when they reach a covered control, and the
    // value it set on one is put back (saved at arming). It may also set a covered control's
    // value, checked, selection or files without any event: sweep compares
    // every saved control with its value now, puts back the changed ones and
    // remembers the change as caught ("value change"). It runs at each peek (the
    // gate reads one while the tool runs), at disarm, and before a submission
    // the guard sees, which is stopped when it would send a changed control.
    //
    // A script the action started may run on after it returned (a timer, a
    // promise): the disarm leaves the guard armed AFTER_MS more (after:
    // true), judging by the same record, and what it stops then waits in
    // late for the gate's next call (takeLate, or the next check), which
    // reports it to the agent. A take stands it down at once, as during an
    // action.
    const GUARD_MS = 5000, TOOL_MS = 120000, AFTER_MS = 2000;
    const GUARDED = ["click", "auxclick", "dblclick", "keydown", "beforeinput", "submit", "formdata", "input", "change"];
    let guard = null; // {until, caught, tool, rec: record(), saved: rec.saved}
    function guardEvent(ev) {
      if (!guard) return;
      if (performance.now() > guard.until) { expire(); return; }
      const was = judgeBy(guard.rec.marks);
      try {
        judge(ev);
      } finally {
        judgeBy(was);
      }
    }
    function judge(ev) {
      let t = ev.composedPath()[0];
      if (!(t instanceof Element)) return;
      if (isClosedHost(t)) { // the event comes from inside a closed tree
        t = ev instanceof MouseEvent ? deepFromPoint(t, ev.clientX, ev.clientY) : ev.type === "submit" ? t : deepActive() || t;
      }
      const c = collector();
      if ((ev.type === "submit" || ev.type === "formdata") && t instanceof HTMLFormElement) {
        formMarks(guard.rec, t, ev.submitter || null, c);
        for (const el of sweep()) if (el.form === t) interactionOf(el, c); // it would send a value put back
        // A script may go around the User's control instead of changing
        // it: take it out of the form (replaced by a clone with its value,
        // or by an unmarked field of its name), or put a covered one in.
        for (const [el, v] of guard.saved) {
          if (v.form === t && formOf(el) !== t) for (const [kind, marked] of v.marks) c.add(kind, marked, el);
        }
        for (const el of formElements.call(t)) if (isField(el) && !guard.saved.has(el)) interactionOf(el, c);
      }
      switch (ev.type) {
        case "input": case "change": // the agent's own input was checked before it: a script's
          interactionOf(t, c);
          if (c.list.length) restore(t);
          break;
        case "keydown": keyMarks(t, ev.key, c); break;
        case "beforeinput": interactionOf(t, c); break;
        case "submit": case "formdata":
          if (t instanceof HTMLFormElement) submissionOf(t, c, ev.submitter || t);
          break;
        default: clickMarks(t, c); // click, auxclick, dblclick
      }
      if (!c.list.length) return;
      if (ev.type === "formdata") holdOut(t);
      ev.preventDefault();
      ev.stopImmediatePropagation();
      c.list.sort((x, y) => (x.kind === "submission") - (y.kind === "submission"));
      guard.caught ??= { event: ev.type, marks: c.list };
    }
    const sameList = (a, b) => (a || []).length === (b || []).length && (a || []).every((x, i) => x === b[i]);
    function same(el, v) {
      const now = stateOf(el);
      return now.value === v.value && now.checked === v.checked && sameList(now.selected, v.selected) && sameList(now.files, v.files);
    }
    function restore(el) {
      const v = guard.saved && guard.saved.get(el);
      if (!v || same(el, v)) return;
      if (v.files && !sameList(Array.from(el.files || []), v.files)) {
        const dt = new DataTransfer();
        for (const f of v.files) dt.items.add(f);
        el.files = dt.files;
      } else if (!v.files && el.value !== v.value) {
        el.value = v.value;
      }
      if (v.selected) v.selected.forEach((s, i) => { if (el.options[i] && el.options[i].selected !== s) el.options[i].selected = s; });
      if ("checked" in el && el.checked !== v.checked) el.checked = v.checked;
    }
    // sweep puts back every covered control a tool's script changed since
    // the arming, event or none, remembers the change as caught, and returns
    // the controls it put back.
    function sweep() {
      if (!guard || !guard.saved.size) return [];
      const back = [], c = collector();
      const was = judgeBy(guard.rec.marks);
      try {
        for (const [el, v] of guard.saved) {
          if (!el.isConnected || same(el, v)) continue;
          restore(el);
          interactionOf(el, c);
          back.push(el);
        }
      } finally {
        judgeBy(was);
      }
      if (c.list.length) guard.caught ??= { event: "value change", marks: c.list };
      return back;
    }
    // holdOut takes form out of its tree until the current script ends, so
    // that the submission whose entry list is being built stops.
    function holdOut(form) {
      const parent = form.parentNode, next = form.nextSibling;
      if (!parent) return;
      form.remove();
      queueMicrotask(() => {
        if (!form.isConnected && parent.isConnected) parent.insertBefore(form, next && next.parentNode === parent ? next : null);
      });
    }
    for (const type of GUARDED) addEventListener(type, guardEvent, { capture: true });
    // standDown is the User's take of control (control epoch epoch), sent
    // in the step that makes the frame read "user" (package injector): the
    // guard stops judging at once, so no input of the User's is stopped or
    // put back. What it caught of the agent's run (a tool's changes up to
    // now, swept first) is kept for the run's disarm. An agent's check of
    // that epoch or an older one (it raced the take) arms nothing.
    let kept = null, late = null, userEpoch = -1;
    function standDown(epoch) {
      if (guard && performance.now() <= guard.until) sweep();
      if (guard && guard.after) late ??= guard.caught;
      else kept = guard && guard.caught || kept;
      guard = null;
      userEpoch = Math.max(userEpoch, epoch);
    }
    // expire ends a guard past its time, keeping what it stopped after
    // its action for takeLate.
    function expire() {
      if (guard && guard.after) late ??= guard.caught;
      guard = null;
    }
    function disarm() {
      if (guard && performance.now() <= guard.until) sweep();
      const caught = guard && !guard.after && guard.caught || kept;
      kept = null;
      if (guard && !guard.after && performance.now() <= guard.until) {
        guard = { ...guard, until: performance.now() + AFTER_MS, caught: null, after: true };
      } else if (!(guard && guard.after && performance.now() <= guard.until)) {
        expire(); // a window after (armNew's, when the action's navigation came first) stays
      }
      return { caught: caught || null, title: docTitle.call(document) };
    }
    // takeLate returns, once, what the guard stopped after its action
    // returned (see AFTER_MS), or null; the guard stays as it is.
    // undisarmed says the gate's last action did not disarm this frame: it
    // could not arm it in time (a busy tab) or its disarm failed, so an
    // action's guard armed here later, and what it stopped, are that
    // action's too.
    function takeLate(undisarmed) {
      if (undisarmed === true && guard && !guard.after) {
        if (performance.now() <= guard.until) sweep();
        late ??= guard.caught;
        guard.caught = null;
      }
      if (undisarmed === true) {
        late ??= kept;
        kept = null;
      }
      if (guard && guard.after) {
        if (performance.now() <= guard.until) sweep();
        late ??= guard.caught;
        guard.caught = null;
        if (performance.now() > guard.until) guard = null;
      }
      const out = late;
      late = null;
      return out;
    }

    // armNew arms the guard in a new document of the Company's website
    // (domain, the Company's organization.domain, and its subdomains) at
    // its start, before any script of the page runs, when the gate says an
    // action's window is open until the wall-clock time until (ms since the
    // epoch): the action may have caused this navigation, and a page that
    // submits its marked form on load would take the User's step for the
    // agent. Another website's document is never armed: its steps are not
    // the Company's to mark. It is a window after (what it stops waits in
    // late for the gate's next call); it judges by the marks now, as the
    // document has none at its start. A take replaces the script that
    // calls it before the User's input can come, and stands down the
    // documents it armed.
    function armNew(until, domain) {
      // Ended (a take): a document may run the version it retires first.
      if (!(until > 0)) {
        if (guard && guard.atStart && (!docElement.call(document) || initialBlank())) guard = null;
        return;
      }
      // At most the bound of an action and its window after: a browser
      // whose clock is behind the runtime's still arms, for no longer.
      const left = Math.min(until - Date.now(), GUARD_MS + AFTER_MS);
      // Only at a document's start (nothing parsed yet), or in a new
      // window's initial about:blank: a browser may also run the script
      // at once in the documents already loaded.
      if ((docElement.call(document) && !initialBlank()) || guard || !(left > 0)) return;
      if (!companyDocument(domain)) return;
      const rec = record(listenRoots(guardEvent));
      guard = { until: performance.now() + left, caught: null, rec, saved: rec.saved, after: true, atStart: true };
    }

    // peek is what the guard has stopped so far, without disarming it.
    function peek() {
      if (guard && performance.now() <= guard.until) sweep();
      return guard && guard.caught || kept;
    }

    function check(a) {
      // The window after the last action: what it stopped waits in late,
      // and it goes on if this check arms nothing.
      let after = null;
      if (guard && guard.after) {
        if (performance.now() <= guard.until) sweep();
        late ??= guard.caught;
        if (performance.now() <= guard.until) after = { ...guard, caught: null };
      } else if (guard) {
        // An earlier action's guard that no disarm reached (its arming
        // came late, in a tab busy past the gate's bound, or its disarm
        // failed): what it stopped is that action's, reported as late.
        if (performance.now() <= guard.until) sweep();
        late ??= guard.caught;
      }
      late ??= kept; // kept for a disarm that never came
      guard = kept = null;
      const mayArm = !(a.agent && a.epoch <= userEpoch);
      // A page's WebMCP tool runs, or an action elsewhere (another frame or
      // tab) whose script may reach this frame: nothing here is touched yet.
      if (a.kind === "tool" || a.kind === "guard") {
        if (!mayArm) return { stale: false, marks: [], obscured: false, point: null, focused: false };
        const rec = record(listenRoots(guardEvent));
        const tool = a.kind === "tool" || a.tool;
        guard = { until: performance.now() + (tool ? TOOL_MS : GUARD_MS), caught: null, tool, rec, saved: rec.saved };
        return { stale: false, marks: [], obscured: false, point: null, focused: false };
      }
      const out = checkNow(a);
      if (a.arm && mayArm && !out.stale && !out.obscured && out.marks.length === 0) {
        const rec = record(listenRoots(guardEvent));
        guard = { until: performance.now() + GUARD_MS, caught: null, rec, saved: rec.saved };
      } else {
        guard = after;
      }
      return out;
    }
    return { check, disarm, peek, takeLate, standDown, armNew };
  })();
