// layout.js: the wire layout of an entry: the position of each of its
// fields, and the bits of its flags. Written from the tables of
// marks/wirelayout.go, which marks/wire.go reads the entries with, by
// go generate ./marks: do not edit.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Layout = (() => {
    // flagsOf: the bits of an entry's flags slot.
    function flagsOf(e) {
      let f = 0;
      if (e.actionable) f |= 1;
      if (e.userField) f |= 2;
      if (e.disabled) f |= 4;
      if (e.group) f |= 8;
      if (e.inline) f |= 16;
      if (e.pre) f |= 32;
      if (e.checked !== undefined) f |= e.checked ? 192 : 64;
      if (e.expanded !== undefined) f |= e.expanded ? 768 : 256;
      return f;
    }
    // trimmed drops the trailing slots that hold their default ("" or 0).
    function trimmed(a) {
      let n = a.length;
      while (n > 1 && (a[n - 1] === "" || a[n - 1] === 0)) n--;
      a.length = n;
      return a;
    }
    // packed is entry e in the wire form: a line or a group (id 0), or an
    // element.
    function packed(e) {
      if (!e.id) return trimmed([
        0, // 0
        e.role, // 1
        e.depth, // 2
        flagsOf(e), // 3
        e.text || "", // 4
        e.parts || 0, // 5
        e.name || "", // 6
      ]);
      return trimmed([
        e.id, // 0
        e.role, // 1
        e.name, // 2
        e.tag, // 3
        e.depth, // 4
        flagsOf(e), // 5
        e.box.x, // 6
        e.box.y, // 7
        e.box.width, // 8
        e.box.height, // 9
        e.type || "", // 10
        e.value || "", // 11
        e.marked ? e.marked.kind : "", // 12
        e.marked ? e.marked.marked : 0, // 13
        e.form || 0, // 14
        e.href || "", // 15
        e.text || "", // 16
        e.options || 0, // 17
        e.moreOptions || 0, // 18
        e.selected || 0, // 19
      ]);
    }
    return { packed };
  })();
