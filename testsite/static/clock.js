// Clock fixture: the text changes 10 times a second, so a screencast of
// the page sends frames all the time.
(function () {
  "use strict";
  const el = document.getElementById("clock");
  let n = 0;
  setInterval(function () { el.textContent = String(++n); }, 100);
})();
