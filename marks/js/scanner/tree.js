// tree.js: the element tree: parents across shadow roots, adopted closed
// roots, focus.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

  // Shadow roots: open ones, and closed ones the Go side adopted over CDP
  // (closed roots are out of this world's reach otherwise). Reading a host
  // over CDP costs a round trip, so a scan lists only the elements that may
  // host a closed root it has not seen (pendingHosts): custom elements, and
  // the built-in elements that may host one (DOM 4.2.14 attachShadow) when
  // they show no light content of their own, as a host whose shadow tree
  // renders instead of its children does. Each is read once.
  const closedRoots = new WeakMap();
  const described = new WeakSet();
  let pending = [];
  let closedCount = 0; // roots adopted: while none, a walk asks no map
  const rootOf = (el) => el.shadowRoot || (closedCount && closedRoots.get(el)) || null;
  const HOSTS = new Set("article aside blockquote body div footer h1 h2 h3 h4 h5 h6 header main nav p section span".split(" "));
  // canHost: whether el may have a shadow root (DOM 4.2.14 attachShadow).
  const canHost = (el) => HOSTS.has(el.localName) || el.localName.includes("-");
  function mayHost(el) {
    const tag = el.localName, custom = tag.includes("-");
    if (!custom && (!HOSTS.has(tag) || el.firstElementChild)) return false;
    if (described.has(el)) return false;
    if (custom) return true;
    for (let k = el.firstChild; k; k = k.nextSibling) if (k.nodeType === 3 && k.data.trim()) return false;
    return true;
  }
  function pendingHosts() {
    const hosts = pending.filter((el) => el.isConnected && !described.has(el));
    pending = [];
    if (memo) memo.pending = 0;
    for (const el of hosts) described.add(el);
    return hosts;
  }
  function adopt(host, root) {
    if (host instanceof Element && root instanceof ShadowRoot && root.host === host) {
      if (!closedRoots.has(host)) closedCount++;
      closedRoots.set(host, root);
      forget(); // the scans to come look into it
      rootsGrew = true; // the guard's next arming listens in it
    }
  }

  // The parent element, crossing from a shadow root to its host.
  function parentOf(n) {
    const p = n.parentNode;
    if (p instanceof ShadowRoot) return p.host;
    return p instanceof Element ? p : null;
  }
  function within(outer, n) {
    for (; n; n = parentOf(n)) if (n === outer) return true;
    return false;
  }
  function closest(el, sel) {
    for (let n = el; n; n = parentOf(n)) if (n.matches(sel)) return n;
    return null;
  }
  function deepActive() {
    let a = docActive.call(document);
    for (let r = a && rootOf(a); r && r.activeElement; r = rootOf(a)) a = r.activeElement;
    return a;
  }
