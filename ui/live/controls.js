// controls.js: the buttons: take (after the proof of presence), watch
// (the proof alone), hand back, cancel or decline (with the
// User's message), more (the rest of the chrome during the User's turn),
// back, forward, reload, the address, a dialog's answer.

$("take").addEventListener("click", () => {
  status.textContent = ""; hideKeys();
  if (proved()) send({ type: "take" });
  else prove(true); // the proof first, then the take (presence.js)
});
$("prove").addEventListener("click", () => prove(false));
for (const id of ["hand_back", "cancel"]) {
  $(id).addEventListener("click", () => {
    status.textContent = ""; hideKeys();
    const note = $("note");
    send({ type: id, text: note.value.trim() });
    note.value = "";
  });
}
$("more").addEventListener("click", () => setMore(!document.body.classList.contains("open")));
for (const [id, action] of [["back", "back"], ["forward", "forward"], ["reload", "reload"]]) {
  $(id).addEventListener("click", () => send({ type: "nav", action }));
}
$("address-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (!mine() || !address.value.trim()) return;
  send({ type: "nav", action: "go", url: address.value.trim() });
  address.blur();
});
for (const [id, accept] of [["dialog-ok", true], ["dialog-cancel", false]]) {
  $(id).addEventListener("click", () => {
    const input = $("dialog-input");
    send({ type: "dialog", accept, text: accept && !input.hidden ? input.value : "" });
    input.value = "";
  });
}
