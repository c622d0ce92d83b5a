// memo.js: the last scan of the whole document, kept while nothing it read
// has changed, so that a snapshot of a page that stayed as it was costs
// about one plain walk of it, not a scan.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Memo = (() => {
    const { docDesignMode } = Dom;
    const { rootOf } = Tree;
    const { valueOf, checkedOf } = Fields;

    // A scan is a function of the DOM and of a few reads no DOM mutation
    // reports: what is rendered (style sheets, media queries, :hover), boxes
    // (scrolling, layout), what a person typed, checked or selected, shadow
    // roots attached and slots assigned, design mode. A whole-document scan
    // records each such read in order (read); the next one is answered from
    // the memo when no mutation was observed since and every read, made
    // again in the same order, gives the same value (unchanged). Marks are
    // DOM attributes: a memo never outlives a change of one. The gate's
    // decisions never use a scan (check reads the page at each action).
    const R_SHOWN = 0, R_RENDERED = 1, R_CONTENTS = 2, R_BOX = 3, R_VALUE = 4;
    const R_CHECKED = 5, R_SELECTED = 6, R_ROOT = 7, R_SLOT = 8, R_DESIGN = 9;
    const VISIBILITY = { visibilityProperty: true };
    function readNow(kind, el) {
      switch (kind) {
        case R_SHOWN: return el.checkVisibility(VISIBILITY);
        case R_RENDERED: return el.checkVisibility();
        case R_CONTENTS: return getComputedStyle(el).display === "contents";
        case R_BOX: return el.getBoundingClientRect();
        case R_VALUE: return valueOf(el);
        case R_CHECKED: return checkedOf(el);
        case R_SELECTED: return Array.from(el.selectedOptions, (o) => o.index).join(",");
        case R_ROOT: return rootOf(el);
        case R_SLOT: return el.assignedNodes();
        case R_DESIGN: return docDesignMode.call(document);
      }
    }
    // reads: the reads of the scan being recorded, as parallel lists (a box
    // is its four numbers), or null when the scan records nothing.
    let reads = null;
    function read(kind, el) {
      const v = readNow(kind, el);
      if (reads) {
        reads.els.push(el);
        reads.kinds.push(kind);
        if (kind === R_BOX) reads.vals.push(v.x, v.y, v.width, v.height);
        else reads.vals.push(v);
      }
      return v;
    }
    function unchanged(m) {
      const { els, kinds, vals } = m;
      for (let i = 0, j = 0; i < els.length; i++) {
        const k = kinds[i], v = readNow(k, els[i]);
        if (k === R_BOX) {
          if (v.x !== vals[j] || v.y !== vals[j + 1] || v.width !== vals[j + 2] || v.height !== vals[j + 3]) return false;
          j += 4;
        } else if (k === R_SLOT) {
          const was = vals[j++];
          if (v.length !== was.length || v.some((n, x) => n !== was[x])) return false;
        } else if (v !== vals[j++]) {
          return false;
        }
      }
      return true;
    }

    // The memo: the recorded reads, the scan's entries in the wire form, its
    // key, and the hosts it left for Go to look into (pending: until Go has
    // asked for them, see hostsAsked, the memo is not used; a closed root
    // adopted then drops it). A mutation anywhere in the document or a
    // shadow root the scan walked drops it, and the observer with it: a page
    // that keeps changing pays one mutation record, not one per change.
    let memo = null; // {reads, entries, key, pending}
    // A memo's key is unique across documents and scanners: a caller that
    // holds a scan of another document never takes it for this one's.
    const memoSeed = Math.random().toString(36).slice(2, 10);
    let memoCount = 0;
    let watched = new WeakSet();
    const WATCH = { subtree: true, childList: true, attributes: true, characterData: true };
    const mutations = new MutationObserver(() => forget());
    function forget() {
      memo = null;
      mutations.disconnect();
      watched = new WeakSet();
    }
    // watch observes a root the recording scan walks.
    function watch(root) {
      if (reads && !watched.has(root)) {
        watched.add(root);
        mutations.observe(root, WATCH);
      }
    }
    // remembered is the memo when it still holds, else null.
    function remembered() {
      if (!memo || memo.pending) return null;
      if (mutations.takeRecords().length || !unchanged(memo.reads)) {
        forget();
        return null;
      }
      return memo;
    }
    // remember runs scanAll, the scan of the whole document, recording its
    // reads, and keeps it as the memo with its entries as pack writes them;
    // null when the document has no root element (scanAll gives null).
    function remember(scanAll, pack) {
      forget();
      reads = { els: [], kinds: [], vals: [] };
      watch(document);
      let s = null;
      try {
        s = scanAll();
      } finally {
        const recorded = reads;
        reads = null;
        if (s) memo = { reads: recorded, entries: pack(s), key: memoSeed + "." + ++memoCount, pending: s.pendingHosts };
        else forget();
      }
      return memo;
    }
    // hostsAsked: Go has asked for the hosts the memo's scan left pending.
    function hostsAsked() {
      if (memo) memo.pending = 0;
    }
    return {
      R_SHOWN, R_RENDERED, R_CONTENTS, R_BOX, R_VALUE, R_CHECKED, R_SELECTED, R_ROOT, R_SLOT, R_DESIGN,
      read, watch, forget, remembered, remember, hostsAsked,
    };
  })();
