// Fixture: section 6's pattern: the controller goes into a hidden field
// when the form is submitted; the page does not read it while loading.
(function () {
  "use strict";
  const form = document.getElementById("check-in");
  form.addEventListener("submit", function () {
    form.elements.controller.value = navigator.poppy ? navigator.poppy.controller : "";
  });
})();
