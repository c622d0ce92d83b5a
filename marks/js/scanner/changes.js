// changes.js: what changed in the document since the memo's scan, from
// the mutation records, placed on the elements under which it changed.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Changes = (() => {
    const { ATTR } = Dom;
    const { rootOf } = Tree;

    // on: a scan that keeps a memo is being recorded (Memo.remember): it
    // observes the roots it walks and notes the references it follows.
    let on = false;
    const recording = (v) => { on = v; };

    // What changed since the memo's scan, from the mutation records of the
    // document and of every shadow root a scan walked: the elements under
    // which something changed (dirty: their blocks are scanned again), the
    // subtrees whose every block is scanned again (deep: added, moved, an
    // attribute that their descendants inherit the effect of, a host whose
    // slotted content changed), and whether any record came. A change this
    // cannot place (lost: a mark, an id, a label or a form added, removed
    // or renamed, too many records) makes the next scan a whole one.
    let watched = new WeakSet();
    let dirty = new WeakSet(), deep = new WeakSet();
    let changed = false, lost = false, count = 0;
    // The references a block's scan followed out of its subtree: the
    // elements whose text names another (a label, an aria-labelledby
    // target: nameRefs maps each to the elements it names) and the ids a
    // scan looked up (refIDs). A change under a name's source dirties the
    // elements it names; an element with a looked-up id added or removed is
    // a change this cannot place.
    let nameRefs = new WeakMap(), refIDs = new Set();
    const MAX_RECORDS = 2000;
    const WATCH = { subtree: true, childList: true, attributes: true, characterData: true };
    const mutations = new MutationObserver((records) => note(records));
    // reset forgets every change and reference and stops observing: the
    // next recording scan is a whole one and observes anew.
    function reset() {
      mutations.disconnect();
      watched = new WeakSet();
      fresh();
      nameRefs = new WeakMap();
      refIDs = new Set();
      lost = false;
    }
    function fresh() {
      dirty = new WeakSet();
      deep = new WeakSet();
      changed = false;
      count = 0;
    }
    function lose() {
      lost = true;
      mutations.disconnect();
      watched = new WeakSet();
    }
    // Attributes whose effect stays on their element (or reaches the page
    // only through what is rendered, which the reads compare): a change of
    // one scans the blocks around the element again, not its subtree.
    const SHALLOW = new Set("class style title alt value href placeholder tabindex aria-label aria-checked aria-pressed aria-selected aria-current aria-describedby aria-expanded".split(" "));
    const PLACED = new Set(["id", "for", "form", ATTR]);
    const qs = Element.prototype.querySelector;
    const qsa = Element.prototype.querySelectorAll;
    // unplaced: whether an added or removed node holds what a scan reached
    // from elsewhere: a label, a form, a base URL, an element with an id a
    // scan looked up.
    function unplaced(nodes) {
      for (const n of nodes) {
        if (n.nodeType !== 1) continue;
        const tag = n.localName;
        if (tag === "label" || tag === "form" || tag === "base" || qs.call(n, "label,form,base")) return true;
        if (refIDs.size) {
          if (n.id && refIDs.has(n.id)) return true;
          for (const x of qsa.call(n, "[id]")) if (refIDs.has(x.id)) return true;
        }
      }
      return false;
    }
    function note(records) {
      if (!records.length || lost) return;
      changed = true;
      count += records.length;
      if (count > MAX_RECORDS) return lose();
      for (const r of records) {
        const t = r.target;
        if (r.type === "attributes") {
          const a = r.attributeName;
          if (PLACED.has(a) || t.localName === "base") return lose();
          if (!SHALLOW.has(a) && !a.startsWith("data-")) deep.add(t);
          touched(t);
        } else if (r.type === "characterData") {
          touched(t);
        } else {
          if (t.nodeType === 9 || unplaced(r.addedNodes) || unplaced(r.removedNodes)) return lose();
          for (const n of r.addedNodes) if (n.nodeType === 1) deep.add(n);
          // Which legend of a fieldset is its first changes what it disables.
          if (t.localName === "fieldset") deep.add(t);
          touched(t);
        }
      }
    }
    // touched marks node's element and its ancestors (across shadow roots)
    // dirty. A host whose light content changed is deep: the content shows
    // through slots in its shadow tree, which no ancestor walk reaches.
    function touched(node) {
      let n = node;
      if (n.nodeType !== 1) {
        const p = n.parentNode;
        if (n instanceof ShadowRoot) n = n.host;
        else if (p instanceof ShadowRoot) n = p.host;
        else if (p instanceof Element) {
          if (rootOf(p)) deep.add(p);
          n = p;
        } else return; // detached, or the document's own child
      }
      while (n) {
        dirty.add(n);
        const refs = nameRefs.get(n);
        if (refs) for (const r of refs) if (!dirty.has(r)) touched(r);
        const p = n.parentNode;
        if (p instanceof ShadowRoot) n = p.host;
        else if (p instanceof Element) {
          if (rootOf(p)) deep.add(p);
          n = p;
        } else break;
      }
    }
    // refer: source's text names el (a label, an aria-labelledby target);
    // refID: a scan looked up id. Recorded by the scans that keep a memo.
    function refer(source, el) {
      if (!on) return;
      let s = nameRefs.get(source);
      if (!s) nameRefs.set(source, (s = new Set()));
      s.add(el);
    }
    function refID(id) {
      if (on && id) refIDs.add(id);
    }

    // watch observes a root the recording scan walks.
    function watch(root) {
      if (on && !watched.has(root)) {
        watched.add(root);
        mutations.observe(root, WATCH);
      }
    }
    // take notes the records not delivered yet.
    function take() {
      note(mutations.takeRecords());
    }
    const isDirty = (el) => dirty.has(el);
    const isDeep = (el) => deep.has(el);
    const anyChange = () => changed;
    const isLost = () => lost;
    return { recording, reset, fresh, take, watch, refer, refID, isDirty, isDeep, anyChange, isLost };
  })();
