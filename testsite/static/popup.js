// Opens the check-in page in a popup window.
(function () {
  "use strict";
  document.getElementById("open-popup").addEventListener("click", function () {
    window.open(this.dataset.url, "check-in", "popup,width=640,height=640");
  });
})();
