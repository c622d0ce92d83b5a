// memo.js: the last scan of the whole document, so that a snapshot of a
// page that stayed as it was costs about one plain walk of it, not a scan,
// and one after a change scans again only the blocks the change touched
// (changes.js says which).
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Memo = (() => {
    const { docDesignMode } = Dom;
    const { rootOf, mayHost, addPending, pendingCount, pendingSince } = Tree;
    const { recording, reset, fresh, take, isDirty, isDeep, anyChange, isLost } = Changes;
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
    // holds says whether the recorded reads m from i (values from j) up to
    // end give the same values again.
    function holds(m, i, j, end) {
      const { els, kinds, vals } = m;
      for (; i < end; i++) {
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
    const unchanged = (m) => holds(m, 0, 0, m.els.length);

    // The memo: the recorded reads, the scan's entries (objects, and in the
    // wire form), its blocks (segments, below), its key, the base URL and
    // design mode it was made under, and the hosts it left for Go to look
    // into (pending: until Go has asked for them, see hostsAsked, the memo
    // does not answer; a closed root adopted then drops it).
    // runs: the entries taken over from the memo before (from), as
    // [at, start, end]: out[at...] is from.out[start:end].
    let memo = null; // {reads, segs, index, out, key, pending, base, design, reused, from, runs}
    // A memo's key is unique across documents and scanners: a caller that
    // holds a scan of another document never takes it for this one's.
    const memoSeed = Math.random().toString(36).slice(2, 10);
    let memoCount = 0;

    // remembered is the memo when it still holds, else null.
    function remembered() {
      if (!memo || memo.pending) return null;
      take();
      if (anyChange() || isLost() || memo.base !== document.baseURI || !unchanged(memo.reads)) return null;
      return memo;
    }

    // Segments: the part of a recording scan that one block (Text's visit
    // of an element that opens a line of its own) gave: its entries, its
    // reads, the blocks inside it and the hosts it listed, with the state
    // it was visited in (key: depth, editing, table row, preformatted).
    // The blocks under which nothing changed and whose reads hold are taken
    // from the memo's scan as they were (reuse); the rest is scanned.
    let segs = null, index = null; // the recording scan's segments, and each element's
    let prev = null; // the memo whose segments the recording scan may reuse
    let noReuse = 0; // > 0 inside a deep subtree
    let reusedCount = 0; // the blocks the recording scan took over
    let runs = null; // the entries it took over, as the memo says (runs)
    function segOpen(el, key, o) {
      if (!reads) return null;
      index.set(el, segs.length);
      const s = { el, key, o0: o, o1: o, i0: reads.els.length, j0: reads.vals.length, i1: 0, j1: 0, s1: 0, p0: pendingCount(), hosts: null };
      segs.push(s);
      return s;
    }
    function segClose(s, o) {
      if (!s) return;
      s.o1 = o;
      s.i1 = reads.els.length;
      s.j1 = reads.vals.length;
      s.s1 = segs.length;
      s.hosts = pendingCount() > s.p0 ? pendingSince(s.p0) : null;
    }
    // deepIn and deepOut bracket the visit of an element: inside a deep
    // one, nothing is reused.
    function deepIn(el) {
      if (prev && isDeep(el)) {
        noReuse++;
        return true;
      }
      return false;
    }
    function deepOut() {
      noReuse--;
    }
    // reuse appends to out the entries el's block gave the memo's scan, and
    // takes over its reads and segments, when nothing under el changed, it
    // was visited in the same state (key) and its reads hold; false when it
    // must be scanned.
    function reuse(el, key, out) {
      if (!prev || noReuse || isDirty(el)) return false;
      const x = prev.index.get(el);
      if (x === undefined) return false;
      const ps = prev.segs, s = ps[x], pr = prev.reads;
      if (s.key !== key || !holds(pr, s.i0, s.j0, s.i1)) return false;
      const di = reads.els.length - s.i0, dj = reads.vals.length - s.j0, dout = out.length - s.o0, ds = segs.length - x;
      const dp = pendingCount() - s.p0;
      for (let i = s.i0; i < s.i1; i++) {
        reads.els.push(pr.els[i]);
        reads.kinds.push(pr.kinds[i]);
      }
      for (let j = s.j0; j < s.j1; j++) reads.vals.push(pr.vals[j]);
      for (let y = x; y < s.s1; y++) {
        const t = ps[y];
        index.set(t.el, segs.length);
        segs.push({ el: t.el, key: t.key, o0: t.o0 + dout, o1: t.o1 + dout, i0: t.i0 + di, j0: t.j0 + dj, i1: t.i1 + di, j1: t.j1 + dj, s1: t.s1 + ds, p0: t.p0 + dp, hosts: t.hosts });
      }
      reusedCount += s.s1 - x;
      const last = runs[runs.length - 1];
      if (last && last[2] === s.o0 && last[0] + last[2] - last[1] === out.length) last[2] = s.o1;
      else if (s.o1 > s.o0) runs.push([out.length, s.o0, s.o1]);
      const po = prev.out;
      for (let o = s.o0; o < s.o1; o++) out.push(po[o]);
      // A host listed then is listed again unless Go has read it since.
      if (s.hosts) for (const h of s.hosts) if (mayHost(h)) addPending(h);
      return true;
    }

    // remember runs scanAll, the scan of the whole document, recording its
    // reads, and keeps it as the memo with its entries;
    // null when the document has no root element (scanAll gives null). It
    // reuses the blocks of the memo's scan that nothing changed; a memo made
    // under another base URL or design mode, or a change it cannot place,
    // makes it a whole scan.
    function remember(scanAll) {
      take();
      prev = memo && !isLost() && memo.base === document.baseURI && memo.design === docDesignMode.call(document) ? memo : null;
      if (!prev) forget();
      reads = { els: [], kinds: [], vals: [] };
      segs = [];
      index = new Map();
      runs = [];
      recording(true);
      Changes.watch(document);
      let s = null, ok = false;
      try {
        s = scanAll();
        ok = true;
      } finally {
        const recorded = reads, sg = segs, ix = index, from = prev && prev.key, taken = runs;
        reads = segs = index = prev = runs = null;
        recording(false);
        noReuse = 0;
        fresh();
        const reused = reusedCount;
        reusedCount = 0;
        if (ok && s) {
          memo = { reads: recorded, segs: sg, index: ix, out: s.elements, key: memoSeed + "." + ++memoCount, pending: s.pendingHosts, base: document.baseURI, design: docDesignMode.call(document), reused, from, runs: taken };
        } else {
          forget();
        }
      }
      return memo;
    }
    // reused: how many blocks the memo's scan took over from the one before
    // (for tests and benchmarks).
    const reused = () => memo ? memo.reused : 0;
    function forget() {
      memo = null;
      reset();
    }
    // hostsAsked: Go has asked for the hosts the memo's scan left pending.
    function hostsAsked() {
      if (memo) memo.pending = 0;
    }
    return {
      R_SHOWN, R_RENDERED, R_CONTENTS, R_BOX, R_VALUE, R_CHECKED, R_SELECTED, R_ROOT, R_SLOT, R_DESIGN,
      read, forget, remembered, remember, hostsAsked, reused, segOpen, segClose, deepIn, deepOut, reuse,
    };
  })();
