// roots.js: the shadow roots the guard listens in.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Roots = (() => {
    const { rootQuery } = Dom;
    const { rootOf } = Tree;

    // listenRoots adds handler (the guard's listener) for the events that are not
    // composed to every shadow root it has not seen, through open and adopted
    // closed roots (the rest reach the window). The walk costs many times a
    // check, so it runs again only after the document or a root it found
    // gained nodes (a new root comes with new nodes: its host inserted, or
    // its content) or a closed root was adopted.
    const listening = new WeakSet();
    const GROWS = { childList: true, subtree: true };
    let rootsGrew = true;
    let roots = [document]; // the document and the shadow roots the last walk found
    const growth = new MutationObserver(() => {
      rootsGrew = true;
      growth.disconnect(); // one record is enough until the next walk
    });
    function listenRoots(handler) {
      if (!rootsGrew && !growth.takeRecords().length) return roots;
      rootsGrew = false;
      growth.disconnect();
      growth.observe(document, GROWS);
      roots = [document];
      const walk = (root) => {
        for (const el of rootQuery(root, "*")) {
          const r = rootOf(el);
          if (!r) continue;
          roots.push(r);
          if (!listening.has(r)) {
            listening.add(r);
            for (const type of ["submit", "formdata"]) r.addEventListener(type, handler, { capture: true });
          }
          growth.observe(r, GROWS);
          walk(r);
        }
      };
      walk(document);
      return roots;
    }
    // rootsChanged: a closed root was adopted; the next arming listens in it.
    function rootsChanged() {
      rootsGrew = true;
    }
    return { listenRoots, rootsChanged };
  })();
