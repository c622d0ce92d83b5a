// link.js: the button of a link's page. Its POST spends the link (a GET,
// such as a link preview, does not) and answers the viewer's secret, kept
// in this origin's sessionStorage (never a cookie, never the URL); the page
// then replaces itself with the live view, so no history entry holds the
// link. An offer's link asks the live view to take control at once.
"use strict";
(() => {
  const go = document.getElementById("go"), why = document.getElementById("why");
  go.addEventListener("click", async () => {
    go.disabled = true;
    why.textContent = "";
    try {
      const r = await fetch(location.pathname, {
        method: "POST", credentials: "omit", cache: "no-store",
        headers: { "Content-Type": "application/json", "X-Poppy-Link": "take" }, body: "{}",
      });
      const j = await r.json();
      if (!r.ok || !j.viewer) throw new Error(j.error || "This link does not work.");
      sessionStorage.setItem("poppy_viewer", j.viewer);
      if (j.take) sessionStorage.setItem("poppy_take", "1");
      else sessionStorage.removeItem("poppy_take");
      location.replace(location.pathname.replace(/\/link\/[^/]*$/, "")); // the live view's page
    } catch (err) {
      why.textContent = err && err.message ? err.message : "The live view did not answer: try again.";
      go.disabled = false;
    }
  });
})();
