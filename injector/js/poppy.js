// navigator.poppy for the Company's pages (browser-control v1, section 6).
// Runs in the page's main world before the page's scripts. It defines one
// property, navigator.poppy, and nothing else; on any other host it does
// nothing at all, so other websites cannot tell this browser is an agent's.
(function (domain, initial, secret) {
  "use strict";
  let host = "";
  try {
    host = new URL(self.origin).hostname.toLowerCase(); // inherited by about:blank frames
  } catch (e) {
    return; // opaque origin
  }
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host !== domain && !host.endsWith("." + domain)) return;

  let value = initial;
  let reads = 0; // how often the page read the value, for conformance checks
  // The getter doubles as the runtime's setter: called directly with the
  // per-run secret, it takes the new value ("reads" instead answers the
  // count of reads). Reading the property passes no arguments and only reads.
  const controller = function (token, next) {
    if (arguments.length === 2 && token === secret) {
      if (next === "agent" || next === "user") value = next;
      else if (next === "reads") return reads;
      return value;
    }
    reads++;
    return value;
  };
  const poppy = {};
  Object.defineProperty(poppy, "controller", { get: controller, enumerable: true, configurable: false });
  Object.freeze(poppy);
  Object.defineProperty(navigator, "poppy", { value: poppy, enumerable: true, configurable: false, writable: false });
  try {
    // Keep window.navigator from being swapped for a look-alike.
    Object.defineProperty(self, "navigator", { configurable: false });
  } catch (e) {}
})
