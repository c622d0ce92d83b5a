// Fixture: choosing a seat submits the form at once, so filling in the
// submission form performs the step.
(function () {
  "use strict";
  const form = document.getElementById("check-in");
  document.getElementById("seat").addEventListener("change", function () {
    form.requestSubmit();
  });
})();
