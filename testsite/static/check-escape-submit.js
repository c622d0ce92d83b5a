// Fixture: a script-bound button outside the marked form submits it; it is
// not owned by the form, so the form's mark does not cover it.
(function () {
  "use strict";
  const form = document.getElementById("check-in");
  document.getElementById("quick").addEventListener("click", function () {
    form.requestSubmit();
  });
  document.getElementById("help").addEventListener("click", function () {
    document.getElementById("help-text").hidden = false;
  });
})();
