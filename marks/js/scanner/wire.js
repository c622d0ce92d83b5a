// wire.js: the scan as it crosses to Go: each entry an array of its fields by
// position instead of an object with named fields, defaults left off the
// end, one JSON string for the whole scan. A snapshot of a large page is
// thousands of entries: keys and defaults were most of its bytes, and bytes
// cost twice (CDP's own string escaping, then Go's decoding). marks/wire.go
// reads it; the positions here and there must agree (TestWireMatchesScan).
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

  // Flags of an entry (wireFlag* in wire.go).
  const F_ACTIONABLE = 1, F_USER_FIELD = 2, F_DISABLED = 4, F_GROUP = 8, F_INLINE = 16, F_PRE = 32;
  const F_CHECKED = 64, F_CHECKED_TRUE = 128, F_EXPANDED = 256, F_EXPANDED_TRUE = 512;
  function flagsOf(e) {
    let f = 0;
    if (e.actionable) f |= F_ACTIONABLE;
    if (e.userField) f |= F_USER_FIELD;
    if (e.disabled) f |= F_DISABLED;
    if (e.group) f |= F_GROUP;
    if (e.inline) f |= F_INLINE;
    if (e.pre) f |= F_PRE;
    if (e.checked !== undefined) f |= e.checked ? F_CHECKED | F_CHECKED_TRUE : F_CHECKED;
    if (e.expanded !== undefined) f |= e.expanded ? F_EXPANDED | F_EXPANDED_TRUE : F_EXPANDED;
    return f;
  }
  // trimmed drops the trailing fields that hold their default ("" or 0).
  function trimmed(a) {
    let n = a.length;
    while (n > 1 && (a[n - 1] === "" || a[n - 1] === 0)) n--;
    a.length = n;
    return a;
  }
  // A line or a group (id 0): [0, role, depth, flags, text, parts, name].
  // An element: [id, role, name, tag, depth, flags, x, y, width, height,
  // type, value, mark kind, marked id, form id, href, text, options,
  // moreOptions, selected]. A list that is absent is 0.
  function packed(e) {
    const f = flagsOf(e);
    if (!e.id) return trimmed([0, e.role, e.depth, f, e.text || "", e.parts || 0, e.name || ""]);
    const b = e.box, m = e.marked;
    return trimmed([e.id, e.role, e.name, e.tag, e.depth, f, b.x, b.y, b.width, b.height,
      e.type || "", e.value || "", m ? m.kind : "", m ? m.marked : 0, e.form || 0, e.href || "",
      e.text || "", e.options || 0, e.moreOptions || 0, e.selected || 0]);
  }
  // scanWire is scan(rootID) for Go: [url, title, pendingHosts, memo key,
  // same, entry...] as one JSON string, or "null" when the root is gone. A
  // scan of the whole document is recorded and remembered under a key
  // (memo.js); given the key of the memo that still holds (since), it
  // answers same = 1 and no entries: the caller holds them. The URL and the
  // title are read anew every time.
  function scanWire(rootID, since) {
    const head = (pendingHosts, key, same) => JSON.stringify([location.href, docTitle.call(document), pendingHosts, key, same]);
    const withEntries = (h, entries) => entries ? h.slice(0, -1) + "," + entries + "]" : h;
    if (rootID) {
      const s = scan(rootID);
      return s ? withEntries(head(s.pendingHosts, "", 0), wireEntries(s)) : "null";
    }
    const m = remembered() || remember(wireEntries);
    if (!m) return "null";
    if (since && since === m.key) return head(0, m.key, 1);
    return withEntries(head(m.pending, m.key, 0), m.entries);
  }
  // wireEntries is a scan's entries in the wire form, without the brackets.
  const wireEntries = (s) => JSON.stringify(s.elements.map(packed)).slice(1, -1);
