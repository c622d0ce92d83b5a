// exports.js: what the scanner offers the Go package and the other scripts of
// its world; it closes the function prelude.js opens.
// A fragment of the marks scanner: marks/scanner.go joins the files of
// js/scanner/ in a fixed order inside the function prelude.js opens.

  // idOf gives other scripts of this world (js/watch.js) the local id of an
  // element, elementOf the element of a local id (null when gone; for
  // js/locate.js), and shadowRootOf the open or adopted closed root of a
  // host, so the watcher sees what the scanner sees.
  return Object.freeze({ scan, check, disarm, focus, selectValues, scrollBy, ref, marks: marksNow, pendingHosts, adopt, idOf: idFor, elementOf: lookup, shadowRootOf: rootOf });
})();
