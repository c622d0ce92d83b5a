// routes.js: reads for check's BC-4-mark-all, changing nothing: the other
// ways to submit a form that one of its submitters' interaction mark is
// meant to leave to the User, and the control a marked wrapper names.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Routes = (() => {
    const { attr, rootQuery, rootByID, idFor, lookup, formElements } = Dom;
    const { rootOf } = Tree;
    const { kindOf, isSubmit, collector, clickMarks, keyMarks, submitOrder, blocksImplicit, implicitTarget, interactionOf, formOf } = Rules;
    const { nameOf } = Scan;

    const shown = (el) => el.getClientRects().length > 0;
    // marksOf: the marks that fn (one of the gate's rules) finds.
    function marksOf(fn) {
      const c = collector();
      fn(c);
      return c.list;
    }
    // forms: every form of the document and of the shadow roots the
    // scanner sees (open ones and adopted closed ones).
    function forms() {
      const out = [];
      const walk = (root) => {
        for (const el of rootQuery(root, "*")) {
          if (el instanceof HTMLFormElement) out.push(el);
          const r = rootOf(el);
          if (r) walk(r);
        }
      };
      walk(document);
      return out;
    }
    // escapes lists, for each form no submission mark is on and one of
    // whose submitters an interaction mark covers (the gate refuses a click
    // on it), the ways an agent may still submit that form, by the same
    // rules the gate judges input by (HTML 4.10.21.2 implicit submission,
    // 4.10.18.3 form owners): a click on each other submitter no mark
    // covers, in tree order (the form's default button first, those outside
    // it with form= too), and Enter in each text field whose Enter no mark
    // covers and that submits the form (through its default button).
    // Hidden and disabled controls are left out: an agent cannot use them.
    // A form with a marked submitter and no such route is listed too, with
    // its scripted buttons (see below) and no routes.
    const SCRIPTED = "button,input[type=button],[role~=button]";
    // LINKS: links that go nowhere by themselves ("#", "javascript:"): a
    // script may submit a form from them, which a probe can try.
    const LINKS = "a[href^='#'],a[href^='javascript:' i],a[href='']";
    // STEP_BUTTONS: controls with a button's role that are not submitters
    // (a div role=button): one an interaction mark covers, in the form,
    // stands for the form's step as a marked submitter does.
    const STEP_BUTTONS = "[role~=button]:not(button):not(input)";
    // target: where a submitter sends its form, "METHOD URL", when the
    // page names it (a formaction, or the form's action); "" when it does
    // not (a form without action goes back to its page, as most do).
    const target = (el, f) => {
      if (!el.hasAttribute("formaction") && !f.hasAttribute("action")) return "";
      const method = (el.hasAttribute("formmethod") ? el.formMethod : f.method) || "get";
      const action = el.hasAttribute("formaction") ? el.formAction : f.action;
      return method.toLowerCase() + " " + action;
    };
    const interactionMarked = (el) => marksOf((c) => clickMarks(el, c)).some((m) => m.kind === "interaction");
    function escapes() {
      const out = [];
      const all = forms();
      for (const f of all) {
        if (kindOf(f) === "submission") continue;
        const order = submitOrder(f);
        const def = order.find(isSubmit) || null; // the default button
        const submitters = order.filter((el) => isSubmit(el) && !el.matches(":disabled"));
        const marked = submitters.filter(interactionMarked);
        const stepButtons = Array.from(rootQuery(f.getRootNode(), STEP_BUTTONS)).filter((el) => f.contains(el) && interactionMarked(el));
        if (!marked.length && !stepButtons.length) continue;
        const routes = [];
        for (const el of submitters) {
          if (marked.includes(el) || !shown(el) || marksOf((c) => clickMarks(el, c)).length) continue;
          routes.push({ id: idFor(el), enter: false, via: 0, isDefault: el === def, outside: !f.contains(el) });
        }
        for (const el of order) {
          if (!blocksImplicit(el) || el.matches(":disabled") || !shown(el)) continue;
          const t = implicitTarget(el);
          if (!t || marksOf((c) => keyMarks(el, "Enter", c)).length) continue;
          routes.push({ id: idFor(el), enter: true, via: t === f ? 0 : idFor(t), isDefault: false, outside: !f.contains(el) });
        }
        // sameTarget: a submitter of another form that sends it where a
        // marked submitter sends this one (formaction, formmethod): the
        // request the step makes, made another way.
        const targets = new Set(marked.map((el) => target(el, f)).filter((t) => t));
        for (const g of all) {
          if (g === f || !targets.size || kindOf(g) === "submission") continue;
          for (const el of submitOrder(g)) {
            if (!isSubmit(el) || el.matches(":disabled") || !shown(el) || marksOf((c) => clickMarks(el, c)).length) continue;
            if (targets.has(target(el, g))) routes.push({ id: idFor(el), enter: false, via: 0, isDefault: false, outside: true, sameTarget: true });
          }
        }
        // scripted: buttons of the form (owned by it, or inside it) with
        // no default action of their own that no mark covers, and the
        // links beside the form that go nowhere by themselves: only a
        // script could submit the form from them, which a probe can try.
        const scripted = [];
        for (const el of rootQuery(f.getRootNode(), SCRIPTED + "," + LINKS)) {
          if (isSubmit(el) || el.matches(":disabled") || !shown(el) || marked.includes(el) || stepButtons.includes(el)) continue;
          if (!el.matches(LINKS) && formOf(el) !== f && !f.contains(el)) continue;
          if (marksOf((c) => clickMarks(el, c)).length) continue;
          scripted.push(idFor(el));
        }
        out.push({ form: idFor(f), name: nameOf(f), marked: marked.concat(stepButtons).map(idFor), routes, scripted });
      }
      return out;
    }
    // labelled: the control a marked element that covers none names: the
    // control of the label it is or is in, or the control whose
    // aria-labelledby lists its id; 0 when there is none.
    function labelled(id) {
      const el = lookup(id);
      if (!el) return 0;
      for (let n = el; n instanceof Element; n = n.parentElement) {
        if (n instanceof HTMLLabelElement && n.control) return idFor(n.control);
      }
      const own = attr(el, "id");
      if (!own) return 0;
      const root = el.getRootNode();
      for (const c of rootQuery(root, "[aria-labelledby]")) {
        if (attr(c, "aria-labelledby").split(/\s+/).includes(own) && rootByID(root, own) === el) return idFor(c);
      }
      return 0;
    }
    // FIELD: the listed controls whose value goes into the form's data
    // under their name (buttons only as the submitter, so not here).
    const FIELD = (el) => (el instanceof HTMLInputElement && !/^(submit|image|reset|button|hidden)$/.test(el.type)) ||
      el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
    // sameName lists, for each field an interaction mark covers (the agent
    // may not change it) that belongs to a form, the other fields of the
    // same form with the same name that no mark covers and an agent can
    // reach (shown, enabled): the form's data carries both values under
    // that name, so a server that reads the other takes from a control the
    // agent may change a value the mark leaves to the User. Radios of one
    // group are left out (the gate judges a click on one radio by every
    // radio it unchecks), and so is a label outside the mark (a click on
    // it activates its control, which the gate judges as the control).
    function sameName() {
      const out = [];
      for (const f of forms()) {
        const fields = Array.from(formElements.call(f)).filter((el) => FIELD(el) && el.name);
        for (const el of fields) {
          if (!marksOf((c) => interactionOf(el, c)).length) continue;
          const others = fields.filter((o) => o !== el && o.name === el.name && !o.matches(":disabled") && shown(o) &&
            !(o.type === "radio" && el.type === "radio") && !marksOf((c) => interactionOf(o, c)).length);
          if (others.length) out.push({ field: idFor(el), form: idFor(f), formName: nameOf(f), name: el.name, others: others.map(idFor) });
        }
      }
      return out;
    }
    return { escapes, labelled, sameName };
  })();
