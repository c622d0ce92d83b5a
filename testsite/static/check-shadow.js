// Fixture: <check-in-form> renders a marked check-in form into its shadow
// root (open or closed, from the script tag's data-mode), with an
// "Express check-in" button beside the form, not owned by it, whose click
// submits it: an escape route inside the component.
(function () {
  "use strict";
  const mode = document.currentScript.dataset.mode;
  class CheckInForm extends HTMLElement {
    connectedCallback() {
      const root = this.attachShadow({ mode: mode });
      root.innerHTML =
        '<form id="check-in" action="/fixtures/check/submit" method="post" data-poppy-user-step="submission">' +
        '<p><label>Seat <select name="seat"><option value="">Choose a seat</option><option value="aisle">Aisle</option>' +
        '<option value="window">Window</option></select></label></p>' +
        '<p><label>Passport number <input name="passport_number" autocomplete="off" data-poppy-user-step="interaction"></label></p>' +
        '<p><button type="submit">Check in</button></p></form>' +
        '<p><button type="button" id="express">Express check-in</button></p>';
      const form = root.getElementById("check-in");
      root.getElementById("express").addEventListener("click", function () { form.requestSubmit(); });
    }
  }
  customElements.define("check-in-form", CheckInForm);
})();
