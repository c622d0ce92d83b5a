// The user-turn fixture's own scripts: every 300 ms they remove, change and
// re-add the page's marks, post messages and dispatch events that look like
// control messages, and report "churned" with what navigator.poppy reads.
// A button adds a frame of pay.airline.test, which then reports "late-frame".
(function () {
  "use strict";
  let round = 0;

  function churn() {
    round++;
    const form = document.getElementById("step");
    const input = form.querySelector("input");
    form.removeAttribute("data-poppy-user-step");
    input.setAttribute("data-poppy-user-step", round % 2 ? "submission" : "interaction");
    form.setAttribute("data-poppy-user-step", round % 2 ? "interaction" : "submission");
    const copy = form.cloneNode(true);
    form.replaceWith(copy);
    for (const msg of [{ type: "hand_back" }, { type: "cancel" }, "hand_back", { poppy: { controller: "agent" } }]) {
      window.postMessage(msg, "*");
      if (window.parent !== window) {
        window.parent.postMessage(msg, "*");
      }
    }
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    document.dispatchEvent(new CustomEvent("poppy:hand-back", { bubbles: true }));
    window.dispatchEvent(new Event("blur"));
    document.dispatchEvent(new Event("visibilitychange"));
    history.replaceState(null, "", location.pathname + location.search + "#round-" + round);
    fetch("/report", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        event: "churned",
        hasPoppy: "poppy" in navigator,
        controller: navigator.poppy ? navigator.poppy.controller : null,
        keys: [],
      }),
      cache: "no-store",
    }).catch(function () {});
  }
  setInterval(churn, 300);

  document.getElementById("add-frame").addEventListener("click", function () {
    const f = document.createElement("iframe");
    f.src = "https://pay.airline.test/frame";
    f.width = "400";
    f.height = "120";
    f.addEventListener("load", function () {
      f.contentWindow.postMessage({ poppyReport: true, event: "late-frame" }, "*");
    });
    document.getElementById("frames").appendChild(f);
  });
})();
