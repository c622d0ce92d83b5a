// text.js: the walk of a scan: every visible text in reading order, with
// controls and links in their sentences.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Text = (() => {
    const { ATTR, attr, hasAttrs, firstRole, rootByID, lookup, docElement, docTitle } = Dom;
    const { clip } = Fields;
    const { parentOf, closest, canHost, mayHost, clearPending, addPending, pendingCount } = Tree;
    const { ROLES, isControl } = Rules;
    const { read, segOpen, segClose, deepIn, deepOut, reuse, R_SHOWN, R_RENDERED, R_CONTENTS, R_BOX, R_ROOT, R_SLOT, R_DESIGN } = Memo;
    const { watch, refer, refID } = Changes;
    const { textOf, entry, NO_BOX, boxIfShown, markWalk } = Scan;

    // A block element starts a line of its own; text and inline elements
    // continue the line of their block. A control or link inside a line is a
    // part of it ("... the [link "Authority" e12] rode ..."); one standing
    // alone is a line of its own.
    const INLINE = new Set("a abbr b bdi bdo big br cite code data del dfn em font i img ins kbd label mark nobr q s samp small span strike strong sub sup time tt u var wbr output meter progress button input select textarea".split(" "));
    const SKIP = new Set("script style template noscript head svg".split(" "));
    // isInteractive is el.matches(INTERACTIVE) without the selector engine:
    // the walk asks it of every element.
    const INTERACTIVE_TAGS = new Set("button select textarea summary iframe".split(" "));
    const ROLE_SET = new Set(ROLES);
    function isInteractive(el, tag, attrs) {
      if (INTERACTIVE_TAGS.has(tag)) return true;
      if (!attrs) return tag === "input"; // no href, no role; an input without type is text
      if (tag === "a" || tag === "area") return el.hasAttribute("href");
      if (tag === "input") return el.type !== "hidden";
      const role = attr(el, "role");
      if (role) for (const r of role.split(/\s+/)) if (ROLE_SET.has(r)) return true;
      return false;
    }
    // Block roles kept in a line's prefix; any other block is plain "text".
    const LINE_ROLES = /^(listitem|cell|columnheader|rowheader|row|caption|term|definition|legend|status|alert|dialog|alertdialog|note|blockquote|code|tooltip|log|marquee|timer)$/;
    const BLOCK_ROLE = { li: "listitem", td: "cell", th: "columnheader", caption: "caption", figcaption: "caption", dt: "term", dd: "definition", legend: "legend", dialog: "dialog", blockquote: "blockquote", pre: "pre" };
    // Lines inside these are indented one step more.
    const NESTS = /^(li|dialog|fieldset|details|blockquote|form|ul|ol|dl)$/;
    const CTRL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

    // groupOf: the line a landmark or a list opens, which the lines inside
    // it hang from ({role, name, group}), or null. header and footer are
    // banner and contentinfo only outside sectioning content; a section is a
    // region only with a name.
    const LANDMARKS = { nav: "navigation", main: "main", aside: "complementary", search: "search", form: "form", ul: "list", ol: "list", menu: "list" };
    const GROUP_ROLES = /^(banner|navigation|main|complementary|contentinfo|search|form|region|list)$/;
    function groupOf(el, tag) {
      let role = firstRole(el);
      if (!role) {
        role = LANDMARKS[tag];
        if ((tag === "header" || tag === "footer") && !(parentOf(el) && closest(parentOf(el), "article,aside,main,nav,section"))) role = tag === "header" ? "banner" : "contentinfo";
        if (tag === "section") role = "region";
      }
      if (!role || !GROUP_ROLES.test(role)) return null;
      let name = clip(attr(el, "aria-label") || "", 100);
      const by = !name && attr(el, "aria-labelledby");
      if (by) {
        name = clip(by.split(/\s+/).map((id) => {
          refID(id);
          const t = id && rootByID(el.getRootNode(), id);
          if (!t) return "";
          refer(t, el);
          return textOf(t, false);
        }).join(" "), 100);
      }
      if (role === "region" && !name) return null;
      return { id: 0, role, name, depth: 0, group: true };
    }

    function lineRole(el) {
      const explicit = firstRole(el);
      if (explicit === "heading") return "h" + (parseInt(attr(el, "aria-level"), 10) || 2);
      if (explicit && LINE_ROLES.test(explicit)) return explicit;
      const tag = el.localName;
      if (/^h[1-6]$/.test(tag)) return tag;
      return BLOCK_ROLE[tag] || "text";
    }

    // scan walks the document (or, with rootID, the subtree of one element)
    // and returns its entries in reading order: interactive and marked
    // elements, and lines of text ({role, text, parts?}) whose parts hold
    // strings and the ids of the entries inline in them.
    function scan(rootID) {
      const out = [];
      let line = null; // the open line: {role, depth, parts, inline, pre}
      let flat = 0; // > 0 inside a table row: its cells are parts of one line
      const open = (role, depth, pre) => { line = { role, depth, parts: [], inline: [], pre }; };
      const put = (s) => {
        if (!line || !s) return;
        s = s.replace(CTRL, " ");
        const p = line.parts, last = p.length - 1;
        if (last >= 0 && typeof p[last] === "string") p[last] += s;
        else p.push(s);
      };
      // close ends the open line: an entry when it holds text (or is a
      // heading); controls alone in it stay lines of their own.
      const close = () => {
        const l = line;
        if (!l) return;
        const parts = [];
        let text = "", words = false;
        for (let p of l.parts) {
          if (typeof p === "string") {
            p = l.pre ? p.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n") : p.replace(/\s+/g, " ");
            if (p.trim()) words = true;
            if (p) parts.push(p);
            text += p;
          } else {
            parts.push(p.id);
            text += p.name ? " " + p.name + " " : " ";
          }
        }
        const inline = l.inline;
        l.parts = [];
        l.inline = [];
        if (!words && !(/^h\d$/.test(l.role) && parts.length)) return;
        if (typeof parts[0] === "string") parts[0] = parts[0].trimStart();
        const n = parts.length - 1;
        if (typeof parts[n] === "string") parts[n] = parts[n].trimEnd();
        for (const e of inline) e.inline = true;
        const e = { id: 0, role: l.role, depth: l.depth, text: l.pre ? text.trim() : text.replace(/\s+/g, " ").trim() };
        if (inline.length) e.parts = parts.filter((p) => p !== "");
        if (l.pre) e.pre = true;
        out.push(e);
      };
      // visit walks el. text says whether its text is read (not inside a
      // control, whose name carries it, nor inside a hidden subtree).
      // A subtree that changed as a whole (deepIn) is scanned again
      // throughout: none of its blocks is reused.
      const visit = (el, depth, hidden, inEditable, text) => {
        if (deepIn(el)) {
          visitEl(el, depth, hidden, inEditable, text);
          deepOut();
        } else {
          visitEl(el, depth, hidden, inEditable, text);
        }
      };
      const visitEl = (el, depth, hidden, inEditable, text) => {
        const tag = el.localName;
        // Most elements of a page have no attribute: then none is asked.
        const attrs = hasAttrs.call(el);
        const marked = attrs && attr(el, ATTR) !== null;
        if (SKIP.has(tag) && !marked) return;
        hidden = hidden || attrs && attr(el, "aria-hidden") === "true";
        const editableRoot = !inEditable && (designMode || attrs && attr(el, "contenteditable") !== null) && el.isContentEditable;
        const interactive = !inEditable && (editableRoot || isInteractive(el, tag, attrs) || marked && isControl(el));
        const ed = inEditable || editableRoot;
        if (interactive) {
          const box = hidden ? null : boxIfShown(el);
          let d = depth;
          if (box || marked) {
            const e = entry(el, depth, true, box || (read(R_RENDERED, el) ? read(R_BOX, el) : NO_BOX));
            const inline = box && line && INLINE.has(tag);
            if (!inline) close();
            out.push(e);
            d = depth + 1;
            if (inline) {
              line.parts.push(e);
              line.inline.push(e);
            }
          }
          children(el, d, hidden || !box, ed, false);
          return;
        }
        const shown = !hidden && (read(R_SHOWN, el) || read(R_CONTENTS, el));
        if (!shown) {
          // A hidden subtree shows nothing but the marks in it.
          if (marked) close(), out.push(entry(el, depth, false, NO_BOX));
          children(el, marked ? depth + 1 : depth, true, ed, false);
          return;
        }
        if (!text) { // inside a control: only what has a line of its own
          if (marked) out.push(entry(el, depth, false, read(R_BOX, el)));
          children(el, marked ? depth + 1 : depth, false, ed, false);
          return;
        }
        if (tag === "math") { // a formula is a part of its sentence, its tokens one run of text
          put(" " + (attr(el, "alttext") || el.textContent) + " ");
          return;
        }
        if (tag === "img" || tag === "area" || (attr(el, "role") === "img" && !el.firstElementChild)) {
          put(" " + (attr(el, "alt") || attr(el, "aria-label") || "") + " ");
          return;
        }
        if (tag === "br") { put(line && line.pre ? "\n" : " "); return; }
        if (el instanceof HTMLLabelElement && (refID(attr(el, "for")), el.control) && read(R_RENDERED, el.control)) {
          // Its control carries its text as the control's name (a label of
          // a control not rendered, a styled toggle, is read as text).
          children(el, depth, false, ed, false);
          return;
        }
        const block = !INLINE.has(tag);
        if (!block || flat > 0 && tag !== "tr") {
          if (flat > 0 && block) put(" ");
          if (marked) close(), out.push(entry(el, depth, false, read(R_BOX, el)));
          children(el, depth, false, ed, true);
          if (flat > 0 && block) put(" ");
          return;
        }
        // A block: the line before it ends, it opens its own, and the text
        // after it continues its parent's block as a new line.
        const outer = line;
        close();
        // A block under which nothing changed since the memo's scan, in the
        // same state, is taken from it as it was (Memo.reuse).
        const key = depth * 4096 + Math.min(flat, 1023) * 4 + (ed ? 2 : 0) + (outer && outer.pre ? 1 : 0);
        const after = () => { line = outer ? { role: "text", depth: outer.depth, parts: [], inline: [], pre: outer.pre } : null; };
        if (reuse(el, key, out)) return after();
        const seg = segOpen(el, key, out.length);
        let d = depth;
        let group = null; // a landmark's or list's own line, dropped if nothing hangs from it
        if (marked) {
          out.push(entry(el, depth, false, read(R_BOX, el)));
          d = depth + 1;
        } else if ((group = groupOf(el, tag))) {
          group.depth = depth;
          out.push(group);
          d = depth + 1;
        } else if (NESTS.test(tag) && tag !== "li") {
          d = depth + 1;
        }
        const row = tag === "tr" && !el.querySelector("table");
        open(row ? "row" : lineRole(el), d, tag === "pre" || !!(outer && outer.pre));
        if (row) {
          flat++;
          let first = true;
          for (let k = el.firstElementChild; k; k = k.nextElementSibling) {
            if (!first) put(" | ");
            first = false;
            visit(k, d, false, ed, true);
          }
          flat--;
        } else {
          children(el, tag === "li" ? d + 1 : d, false, ed, true);
        }
        close();
        if (group && out[out.length - 1] === group) out.pop();
        segClose(seg, out.length);
        after();
      };
      const children = (el, depth, hidden, inEditable, text) => {
        // Only an element that may host a shadow root is asked for one.
        const root = canHost(el) ? read(R_ROOT, el) : null;
        if (root) watch(root);
        else if (mayHost(el)) addPending(el);
        const assigned = el instanceof HTMLSlotElement ? read(R_SLOT, el) : null;
        const kids = assigned && assigned.length ? assigned : null;
        if (kids) {
          for (const k of kids) node(k, depth, hidden, inEditable, text);
          return;
        }
        // Sibling links, not children collections: no wrapper per node.
        for (let k = (root || el).firstChild; k; k = k.nextSibling) node(k, depth, hidden, inEditable, text);
      };
      const node = (k, depth, hidden, inEditable, text) => {
        if (k.nodeType === 3) {
          if (text && !hidden) put(k.data);
        } else if (k.nodeType === 1) {
          visit(k, depth, hidden, inEditable, text);
        }
      };
      clearPending();
      const designMode = read(R_DESIGN, document) === "on";
      const start = rootID ? lookup(rootID) : docElement.call(document);
      if (!start) return null; // the root is gone: Go reads null as ErrStale
      open("text", 0, false);
      markWalk(() => {
        if (rootID) visit(start, 0, false, false, true);
        else children(start, 0, false, false, true);
      });
      close();
      return { url: location.href, title: docTitle.call(document), elements: out, pendingHosts: pendingCount() };
    }
    return { scan };
  })();
