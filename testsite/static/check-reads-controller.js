// Fixture: reads navigator.poppy.controller once at load and shows a notice
// to the agent; it does not send the value with the form.
(function () {
  "use strict";
  const who = navigator.poppy ? navigator.poppy.controller : "";
  document.getElementById("for-agent").hidden = who !== "agent";
})();
