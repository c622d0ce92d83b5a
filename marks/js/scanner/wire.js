// wire.js: the scan as it crosses to Go: each entry an array of its fields by
// position instead of an object with named fields, defaults left off the
// end, one JSON string for the whole scan. A snapshot of a large page is
// thousands of entries: keys and defaults were most of its bytes, and bytes
// cost twice (CDP's own string escaping, then Go's decoding). The positions
// of an entry's fields are layout.js's, written from the table that
// marks/wire.go reads them with.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Wire = (() => {
    const { docTitle } = Dom;
    const { remembered, remember } = Memo;
    const { scan } = Text;
    const { packed } = Layout;

    // scanWire is scan(rootID) for Go: [url, title, pendingHosts, memo key,
    // same, entry...] as one JSON string, or "null" when the root is gone
    // (decodeWire in marks/wire.go reads it). A scan of the whole document
    // is recorded and remembered under a key (memo.js); given the key of
    // the memo that still holds (since), it answers same = 1 and no
    // entries: the caller holds them; given the key of the memo the new one
    // reused blocks of, same = 2 and the entries as runs of the caller's
    // and new ones (wireDelta). The URL and the title are read anew every
    // time.
    // With whole, it is a scan of the whole document that neither uses nor
    // changes the memo (for the tests that hold the memo's scans to it).
    function scanWire(rootID, since, whole) {
      const head = (pendingHosts, key, same) => JSON.stringify([location.href, docTitle.call(document), pendingHosts, key, same]);
      const withEntries = (h, entries) => entries ? h.slice(0, -1) + "," + entries + "]" : h;
      if (rootID || whole) {
        const s = scan(rootID);
        return s ? withEntries(head(s.pendingHosts, "", 0), wireEntries(s.elements)) : "null";
      }
      const m = remembered() || remember(scanAll);
      if (!m) return "null";
      if (since && since === m.key) return head(0, m.key, 1);
      // A caller that holds the scan this one reused blocks of is sent the
      // entries that are new, and the runs of its own it takes over.
      if (since && since === m.from) return withEntries(head(m.pending, m.key, 2), wireDelta(m));
      m.entries ??= wireEntries(m.out);
      return withEntries(head(m.pending, m.key, 0), m.entries);
    }
    // wireDelta is the memo's entries as the entries of the memo before it
    // (m.from) they take over, each run of them two numbers (its start and
    // end there), and the new ones in the wire form.
    function wireDelta(m) {
      const out = m.out, parts = [];
      let o = 0;
      for (const [at, start, end] of m.runs) {
        for (; o < at; o++) parts.push(wireOf(out[o]));
        parts.push(start, end);
        o = at + end - start;
      }
      for (; o < out.length; o++) parts.push(wireOf(out[o]));
      return parts.join(",");
    }
    const scanAll = () => scan(0);
    // wireEntries is a scan's entries in the wire form, without the
    // brackets. Each entry keeps its own (under a symbol, which JSON leaves
    // out): the entries of the blocks a scan reuses are written once.
    const WIRE = Symbol("wire");
    const wireOf = (e) => e[WIRE] ??= JSON.stringify(packed(e));
    const wireEntries = (els) => els.map(wireOf).join(",");
    return { scanWire };
  })();
