// Fixture: a field outside the marked form, not owned by it, whose Enter
// key submits the form: no click reaches anything, only a key press.
(function () {
  "use strict";
  const form = document.getElementById("check-in");
  document.getElementById("ffn").addEventListener("keydown", function (e) {
    if (e.key === "Enter") {
      e.preventDefault();
      form.requestSubmit();
    }
  });
})();
