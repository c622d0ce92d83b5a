// Fixture: the marks come two seconds after load (a timer standing in for
// feature flags or a framework's hydration), long after the form is shown.
(function () {
  "use strict";
  addEventListener("load", function () {
    setTimeout(function () {
      document.getElementById("check-in").setAttribute("data-poppy-user-step", "submission");
      document.getElementById("passport").setAttribute("data-poppy-user-step", "interaction");
    }, 2000);
  });
})();
