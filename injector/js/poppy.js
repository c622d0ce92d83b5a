// navigator.poppy for the Company's pages (browser-control v1, section 6).
// Runs in the page's main world before the page's scripts. It defines one
// property, navigator.poppy, and nothing else; on any other host it does
// nothing at all, so other websites cannot tell this browser is an agent's.
(function (domain, initial) {
  "use strict";
  let origin;
  try {
    origin = new URL(self.origin); // inherited by about:blank and srcdoc frames
  } catch (e) {
    return; // opaque origin: a sandboxed or data: frame is nobody's
  }
  let host = origin.hostname.toLowerCase();
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host !== domain && !host.endsWith("." + domain)) return;
  // Only where the Poppy-Extensions header goes (spec.MayDeclare): over TLS,
  // or in the clear to a loopback host. A script that the network injects
  // into a cleartext page must not learn what the browser is.
  const loopback = host === "localhost" || host.endsWith(".localhost") ||
    /^127\.\d+\.\d+\.\d+$/.test(host) || host === "[::1]";
  if (origin.protocol !== "https:" && !(origin.protocol === "http:" && loopback)) return;

  let value = initial;
  let reads = 0; // how often the page read the value, for conformance checks
  // The runtime's handle: a private field of navigator.poppy. No script of
  // the page can name it (private names are lexical to the class below);
  // only the DevTools protocol lists it and calls it by object id. It takes
  // a value, never a secret, and "reads" answers the count of reads.
  const runtime = (next) => {
    if (next === "agent" || next === "user") value = next;
    else if (next === "reads") return reads;
    return value;
  };
  // The base constructor returns the object it is given, so the private
  // field lands on a plain object and the class is reachable from nowhere.
  class Adopt { constructor(o) { return o; } }
  class Stamp extends Adopt { #runtime = runtime; }
  const poppy = {};
  new Stamp(poppy);
  Object.defineProperty(poppy, "controller", {
    get: function () { reads++; return value; },
    enumerable: true,
    configurable: false,
  });
  Object.freeze(poppy);
  Object.defineProperty(navigator, "poppy", { value: poppy, enumerable: true, configurable: false, writable: false });
  try {
    // Keep window.navigator from being swapped for a look-alike.
    Object.defineProperty(self, "navigator", { configurable: false });
  } catch (e) {}
})
