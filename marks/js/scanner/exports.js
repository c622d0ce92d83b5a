// exports.js: what the scanner offers the Go package and the other scripts of
// its world; it closes the function prelude.js opens.
// A fragment of the marks scanner (see prelude.js): it defines no
// namespace; it reads the others' exports as Namespace.name.

  // pendingHosts hands Go the hosts that may hide a closed root, and adopt
  // takes one's root: the scans to come look into it (the memo drops), and
  // so does the guard's next arming.
  function pendingHosts() {
    Memo.hostsAsked();
    return Tree.takePending();
  }
  function adopt(host, root) {
    if (Tree.adoptRoot(host, root)) {
      Memo.forget();
      Roots.rootsChanged();
    }
  }

  // implicitRule is exported for its table test (TestImplicitRule).
  // idOf gives other scripts of this world (js/watch.js) the local id of an
  // element, elementOf the element of a local id (null when gone; for
  // js/locate.js), and shadowRootOf the open or adopted closed root of a
  // host, so the watcher sees what the scanner sees.
  return Object.freeze({
    scan: Text.scan, scanWire: Wire.scanWire, check: Guard.check, disarm: Guard.disarm,
    focus: Helpers.focus, selectKeys: Helpers.selectKeys, selectedValues: Helpers.selectedValues,
    scrollBy: Helpers.scrollBy, ref: Helpers.ref, marks: Helpers.marksNow, pendingHosts, adopt,
    escapes: Routes.escapes, labelled: Routes.labelled, sameName: Routes.sameName, peek: Guard.peek, takeLate: Guard.takeLate, standDown: Guard.standDown, armNew: Guard.armNew,
    toolForms: WebMCP.toolForms, toolPlan: WebMCP.plan, toolFill: WebMCP.fill,
    implicitRule: Rules.implicitRule, reusedBlocks: Memo.reused, idOf: Dom.idFor, elementOf: Dom.lookup, shadowRootOf: Tree.rootOf,
  });
})();
