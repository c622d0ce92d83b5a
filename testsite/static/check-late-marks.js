// Fixture: marks the form and the passport field only after the form has
// been painted (two animation frames), then a little later.
(function () {
  "use strict";
  requestAnimationFrame(function () {
    requestAnimationFrame(function () {
      setTimeout(function () {
        document.getElementById("check-in").setAttribute("data-poppy-user-step", "submission");
        document.getElementById("passport").setAttribute("data-poppy-user-step", "interaction");
      }, 150);
    });
  });
})();
