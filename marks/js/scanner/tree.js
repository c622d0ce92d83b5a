// tree.js: the element tree: parents across shadow roots, adopted closed
// roots and the hosts that may hide one, focus.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Tree = (() => {
    const { docActive } = Dom;

    // Shadow roots: open ones, and closed ones the Go side adopted over CDP
    // (closed roots are out of this world's reach otherwise). Reading a host
    // over CDP costs a round trip, so a scan lists only the elements that may
    // host a closed root it has not seen (pending): custom elements, and
    // the built-in elements that may host one (DOM 4.2.14 attachShadow) when
    // they show no light content of their own, as a host whose shadow tree
    // renders instead of its children does. Each is read once.
    const closedRoots = new WeakMap();
    const described = new WeakSet();
    let pending = [];
    let closedCount = 0; // roots adopted: while none, a walk asks no map
    const rootOf = (el) => el.shadowRoot || (closedCount && closedRoots.get(el)) || null;
    // isClosedHost: whether el hosts a closed root this world adopted.
    const isClosedHost = (el) => closedRoots.has(el);
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
    // The hosts to read: a scan starts the list (clearPending) and adds to
    // it (addPending); Go takes it (takePending) and hands their closed
    // roots over (adoptRoot).
    function clearPending() {
      pending = [];
    }
    function addPending(el) {
      pending.push(el);
    }
    const pendingCount = () => pending.length;
    const pendingSince = (i) => pending.slice(i);
    // readAgain makes el the one host to read: focus inside it says it
    // hosts a closed root attached since it was read.
    function readAgain(el) {
      described.delete(el);
      pending = [el];
    }
    function takePending() {
      const hosts = pending.filter((el) => el.isConnected && !described.has(el));
      pending = [];
      for (const el of hosts) described.add(el);
      return hosts;
    }
    // adoptRoot keeps root as host's closed root; false when it is not.
    function adoptRoot(host, root) {
      if (!(host instanceof Element && root instanceof ShadowRoot && root.host === host)) return false;
      if (!closedRoots.has(host)) closedCount++;
      closedRoots.set(host, root);
      return true;
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
    return {
      rootOf, isClosedHost, canHost, mayHost, clearPending, addPending, pendingCount, pendingSince, readAgain, takePending, adoptRoot,
      parentOf, within, closest, deepActive,
    };
  })();
