// Check-in page script: shows the notice while the agent controls the
// browser, and sends navigator.poppy.controller with the form.
(function () {
  "use strict";
  const form = document.getElementById("check-in");
  const notice = document.getElementById("agent-notice");

  function update() {
    if (notice) {
      notice.hidden = navigator.poppy?.controller !== "agent";
    }
  }
  update();
  setInterval(update, 100);
  window.addEventListener("focus", update);

  form.addEventListener("submit", function () {
    form.elements.controller.value = navigator.poppy?.controller ?? "";
  });
})();
