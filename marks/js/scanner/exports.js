// exports.js: what the scanner offers the Go package and the other scripts of
// its world; it closes the function prelude.js opens.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

  // implicitRule is exported for its table test (TestImplicitRule).
  // idOf gives other scripts of this world (js/watch.js) the local id of an
  // element, elementOf the element of a local id (null when gone; for
  // js/locate.js), and shadowRootOf the open or adopted closed root of a
  // host, so the watcher sees what the scanner sees.
  return Object.freeze({ scan, scanWire, check, disarm, focus, selectKeys, selectedValues, scrollBy, ref, marks: marksNow, pendingHosts, adopt, implicitRule, idOf: idFor, elementOf: lookup, shadowRootOf: rootOf });
})();
