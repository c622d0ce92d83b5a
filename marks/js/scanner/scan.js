// scan.js: the scan: what the agent may read.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Scan = (() => {
    const { ATTR, attr, rootByID, firstRole, idFor } = Dom;
    const { clip, VALUE_MAX, checkedOf } = Fields;
    const { parentOf } = Tree;
    const { INTERACTIVE, CONTENT, FIELD_ROLES, kindOf, formOf, isSubmit, isTextField, collector, interactionOf, submissionOf } = Rules;
    const { read, R_SHOWN, R_VALUE, R_CHECKED, R_SELECTED } = Memo;
    const { refer, refID } = Changes;
    const { sizedPart } = HitTest;

    // ---- the scan: what the agent may read ----
    const NAME_MAX = 300;
    // textOf: visible text of el; with own, without the text of interactive
    // descendants and, but in a label (whose text names its control and has
    // no line of its own), of content descendants (they have lines of their
    // own). Its budget counts words, not a page's indentation.
    // Sibling links and a set, not childNodes and a regular expression: a
    // scan asks it of every button and link.
    const UNREAD = new Set(["script", "style", "template", "select", "textarea", "noscript"]);
    function textOf(el, own) {
      let s = "";
      const content = own && !(el instanceof HTMLLabelElement);
      const visit = (n) => {
        for (let ch = n.firstChild; ch; ch = ch.nextSibling) {
          if (s.length > 2 * NAME_MAX && (s = s.replace(/\s+/g, " ")).length > 2 * NAME_MAX) return;
          const type = ch.nodeType;
          if (type === 3) s += ch.data;
          else if (type !== 1 || ch.hidden || UNREAD.has(ch.localName)) continue;
          else if (ch.localName === "img") s += " " + (attr(ch, "alt") || "") + " ";
          else if (ch.isContentEditable) continue; // the User's text, or a line of its own
          else if (!own || !(ch.matches(INTERACTIVE) || content && ch.matches(CONTENT))) {
            s += " ";
            visit(ch);
            s += " ";
          }
        }
      };
      visit(el);
      return s;
    }
    function nameOf(el) {
      const label = attr(el, "aria-label");
      if (label && label.trim()) return clip(label, NAME_MAX);
      const by = attr(el, "aria-labelledby");
      if (by) {
        const root = el.getRootNode();
        const s = by.split(/\s+/).map((id) => {
          refID(id);
          const t = id && rootByID(root, id);
          if (!t) return "";
          refer(t, el);
          return textOf(t, false);
        }).join(" ");
        if (s.trim()) return clip(s, NAME_MAX);
      }
      if (el instanceof HTMLFormElement) return clip(attr(el, "name") || attr(el, "id") || attr(el, "title") || "", NAME_MAX);
      const field = el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
      let s = "";
      // el.labels walks the whole tree on first use: ask it only of fields.
      const labels = field || el.localName.includes("-") ? el.labels : null;
      if (labels && labels.length) {
        s = Array.from(labels, (l) => {
          refer(l, el);
          refID(attr(l, "for"));
          return textOf(l, true);
        }).join(" ");
      }
      if (!s.trim() && field) s = attr(el, "placeholder") || "";
      if (!s.trim() && el instanceof HTMLInputElement && /^(submit|reset|button|image)$/.test(el.type)) {
        s = el.type === "image" ? attr(el, "alt") || "" : el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : "");
      }
      if (!s.trim() && !field && !el.isContentEditable && !(el instanceof HTMLIFrameElement)) s = textOf(el, false);
      if (!s.trim()) s = attr(el, "title") || attr(el, "alt") || (el instanceof HTMLIFrameElement ? attr(el, "name") || "" : "");
      return clip(s, NAME_MAX);
    }
    const INPUT_ROLES = { button: "button", submit: "button", reset: "button", image: "button", file: "button", color: "button", checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox" };
    const TAG_ROLES = { button: "button", summary: "button", textarea: "textbox", form: "form", iframe: "iframe", li: "listitem", p: "paragraph", td: "cell", th: "columnheader", dialog: "dialog", label: "label", legend: "legend", caption: "caption", dt: "term", dd: "definition", figcaption: "caption", option: "option" };
    function roleOf(el) {
      const explicit = firstRole(el);
      if (explicit) return explicit;
      const tag = el.localName;
      if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : "generic";
      if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
      if (tag === "input") return INPUT_ROLES[el.type] || "textbox";
      if (/^h[1-6]$/.test(tag)) return "heading";
      if (TAG_ROLES[tag]) return TAG_ROLES[tag];
      return el.isContentEditable ? "textbox" : "generic";
    }
    // entry describes a shown element. Its mark is the strongest covering it
    // as a click would meet it (interaction beats submission), or its own.
    // entry.actionable is the one notion of what the agent may act on (its
    // snapshot gives it a ref): a control, link, widget (ROLES) or editable
    // root, and every element bearing a mark. An iframe is shown but not
    // actionable: the agent acts inside its frame.
    function entry(el, depth, interactive, r) {
      const e = { id: idFor(el), role: roleOf(el), name: "", tag: el.localName, box: { x: round(r.x), y: round(r.y), width: round(r.width), height: round(r.height) }, depth };
      if (interactive && !(el instanceof HTMLIFrameElement) || kindOf(el)) e.actionable = true;
      const c = collector();
      refID(attr(el, "form"));
      const f = formOf(el);
      // Most elements have no mark above them or their form: the rules would
      // walk their ancestors to find none.
      if (markUp(el) || f && markUp(f)) interactionOf(el, c);
      const covered = c.list.length > 0;
      if (!covered && kindOf(el)) c.add(kindOf(el), el, el);
      if (!c.list.length && f && isSubmit(el) && markUp(f)) submissionOf(f, c, el);
      if (c.list.length) e.marked = { kind: c.list[0].kind, marked: c.list[0].marked };
      if (!interactive) {
        if (!(el instanceof HTMLFormElement)) e.text = clip(textOf(el, true), NAME_MAX);
        if (el instanceof HTMLFormElement || e.marked) e.name = nameOf(el);
        return e;
      }
      e.name = nameOf(el);
      if (el instanceof HTMLInputElement || el instanceof HTMLButtonElement) e.type = el.type;
      if (canBeDisabled(el.localName) && el.matches(":disabled") || attr(el, "aria-disabled") === "true") e.disabled = true;
      if (f && kindOf(f)) e.form = idFor(f);
      if (covered) {
        if (isTextField(el) || checkedOf(el) !== undefined || el.localName.includes("-") || FIELD_ROLES.test(e.role)) e.userField = true;
      } else {
        const v = read(R_VALUE, el);
        if (v) e.value = v.length > VALUE_MAX ? v.slice(0, VALUE_MAX - 1) + "…" : v;
        const ch = read(R_CHECKED, el);
        if (ch !== undefined) e.checked = ch;
      }
      const ex = attr(el, "aria-expanded");
      if (ex === "true" || ex === "false") e.expanded = ex === "true";
      if (el instanceof HTMLDetailsElement || el.localName === "summary" && el.parentElement instanceof HTMLDetailsElement) {
        e.expanded = (el.localName === "summary" ? el.parentElement : el).open;
      }
      if (el instanceof HTMLAnchorElement && el.href) e.href = el.href;
      if (el instanceof HTMLSelectElement) {
        // Option labels are the page's; which is selected is the User's when
        // a mark covers the select.
        const opts = el.options;
        e.options = [];
        for (let i = 0; i < opts.length && i < OPTIONS_MAX; i++) e.options.push(clip(opts[i].label || opts[i].text, NAME_MAX));
        if (opts.length > OPTIONS_MAX) e.moreOptions = opts.length - OPTIONS_MAX;
        if (!covered) {
          const sel = read(R_SELECTED, el);
          e.selected = sel ? sel.split(",").map(Number).filter((i) => i < OPTIONS_MAX) : [];
        }
      }
      return e;
    }
    const OPTIONS_MAX = 100;
    // The elements :disabled can match (HTML 4.16.3), but custom elements,
    // which are asked always: the selector engine costs more than the test.
    const DISABLABLE = new Set("button input select textarea optgroup option fieldset".split(" "));
    const canBeDisabled = (tag) => DISABLABLE.has(tag) || tag.includes("-");
    // markUp says whether n or an element above it (across shadow roots)
    // bears a mark. It is remembered for one walk only (marksSeen, see
    // markWalk): marks are read anew by every call; outside a walk it says
    // true, so that nothing is skipped.
    let marksSeen = null;
    // markWalk runs walk, a scan's walk, with markUp remembering what it
    // found until walk returns.
    function markWalk(walk) {
      marksSeen = new Map();
      try {
        walk();
      } finally {
        marksSeen = null;
      }
    }
    function markUp(n) {
      if (!marksSeen) return true;
      const path = [];
      let v = false;
      for (; n; n = parentOf(n)) {
        const known = marksSeen.get(n);
        if (known !== undefined) { v = known; break; }
        if (attr(n, ATTR) !== null) { v = true; marksSeen.set(n, true); break; }
        path.push(n);
      }
      for (const m of path) marksSeen.set(m, v);
      return v;
    }
    const round = (v) => Math.round(v * 100) / 100;
    const NO_BOX = { x: 0, y: 0, width: 0, height: 0 };
    // boxIfShown: the element's box when it is rendered, visible and sized
    // (its sizedPart's: a card's link shows where its floated content is).
    function boxIfShown(el) {
      if (!read(R_SHOWN, el)) return null;
      const part = sizedPart(el);
      return part && part[1];
    }
    return { textOf, entry, NO_BOX, boxIfShown, markWalk, nameOf };
  })();
