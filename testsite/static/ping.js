// Calls /api/ping on this host once with fetch and once with XHR, so the
// server records the headers of script requests.
(function () {
  "use strict";
  const out = document.getElementById("ping");
  fetch("/api/ping", { cache: "no-store" })
    .then(function (r) { return r.json(); })
    .then(function (d) { if (out) out.textContent = d.ok ? "Connected" : ""; })
    .catch(function () {});
  const xhr = new XMLHttpRequest();
  xhr.open("GET", "/api/ping");
  xhr.send();
})();
