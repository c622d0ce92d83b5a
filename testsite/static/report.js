// Reports what this document sees of navigator.poppy to POST /report on its
// own host: on load, whenever it changes (polled every 100 ms), and when a
// message {"poppyReport": true, "event"?: string} arrives. A top-level page
// forwards that message to its frames.
(function () {
  "use strict";

  function read() {
    const p = navigator.poppy;
    return {
      hasPoppy: "poppy" in navigator,
      controller: p?.controller ?? null,
      keys: Object.keys(p || {}),
    };
  }

  function report(event) {
    const body = Object.assign({ event: event }, read());
    fetch("/report", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
      keepalive: true,
    }).catch(function () {});
  }

  let last = JSON.stringify(read());
  report("load");
  setInterval(function () {
    const now = JSON.stringify(read());
    if (now !== last) {
      last = now;
      report("change");
    }
  }, 100);

  window.addEventListener("message", function (e) {
    if (!e.data || e.data.poppyReport !== true) {
      return;
    }
    report(typeof e.data.event === "string" ? e.data.event : "message");
    if (window === window.top) {
      for (let i = 0; i < window.frames.length; i++) {
        window.frames[i].postMessage(e.data, "*");
      }
    }
  });
})();
