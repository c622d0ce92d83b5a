// render.js: the story (who holds control, what was asked, what happened),
// the step's outline on the picture, the address bar and the tabs.

function showState(msg) {
  state = msg;
  const user = msg.controller === "user", offer = msg.offer || null;
  const company = msg.company || "the Company", agent = msg.agent || "The agent";
  let text, cls = "";
  if (user && msg.viewer !== "you") text = "You have control on another screen";
  else if (user) { text = "You have control"; cls = "user"; }
  else if (offer) { text = agent + " asks you to take control"; cls = "offer"; }
  else if (msg.story && msg.story.kind === "finished") { text = agent + " finished"; cls = "done"; }
  else text = agent + " is using the browser";
  banner.textContent = text;
  banner.className = cls;
  screen.className = user && mine() ? "user" : "";

  $("offer").hidden = !offer;
  $("reason").textContent = offer ? offer.reason : "";
  const said = offer && offer.step && offer.step.text;
  $("step-line").hidden = !said;
  $("step-from").textContent = company + "'s page says";
  $("step").textContent = said || "";
  showStory(msg, agent);
  showStepBox(user ? null : msg.step_box);

  const take = $("take");
  take.textContent = user && msg.viewer !== "you" ? "Take control here" : "Take control";
  take.hidden = user && msg.viewer === "you";
  take.disabled = !connected;
  $("hand_back").hidden = !user || !mine();
  const cancel = $("cancel");
  cancel.hidden = !(user ? mine() : offer);
  cancel.textContent = user ? "Cancel my turn" : "Decline";
  cancel.disabled = !connected;
  // The User's words for the agent go with a hand back, cancel or decline.
  $("note-line").hidden = cancel.hidden;

  showNav(msg);
  const d = msg.dialog || null;
  $("dialog").hidden = !d;
  if (d) {
    $("dialog-text").textContent = d.message;
    $("dialog-input").hidden = d.type !== "prompt";
    $("dialog-ok").disabled = $("dialog-cancel").disabled = !mine();
    $("dialog-note").textContent = mine() ? "" : "Take control to answer it.";
  }
  if (!mine()) hideKeys();
}

function showStory(msg, agent) {
  const s = msg.story || null;
  const who = msg.agent || "the agent";
  const words = {
    handed_back: "You handed back: " + who + " continues.",
    cancelled: "You cancelled: control went back to " + who + ".",
    declined: "You declined: " + who + " keeps control.",
    finished: agent + " finished" + (s && s.message ? ": " : "."),
  };
  const show = s && !msg.offer && msg.controller !== "user" && words[s.kind];
  $("story").hidden = !show;
  $("story-text").textContent = show ? words[s.kind] + (s.kind === "finished" && s.message ? s.message : "") : "";
}

function showStepBox(box) {
  stepBox.hidden = !box || !viewport.width;
  if (stepBox.hidden) return;
  const r = img.getBoundingClientRect(), k = r.width / viewport.width;
  Object.assign(stepBox.style, {
    left: box.x * k + "px", top: box.y * k + "px", width: box.width * k + "px", height: box.height * k + "px",
  });
}

function showNav(msg) {
  const on = mine();
  for (const id of ["back", "forward", "reload"]) $(id).hidden = $(id).disabled = !on;
  address.readOnly = !on;
  if (document.activeElement !== address) address.value = msg.url || "";
  const tabs = $("tabs");
  tabs.textContent = "";
  const list = msg.tabs || [];
  if (list.length < 2) return;
  for (const t of list) {
    const el = document.createElement("span");
    el.className = "tab" + (t.active ? " active" : "");
    const pick = document.createElement("button");
    pick.type = "button";
    pick.textContent = t.title || t.url || "New tab";
    pick.title = t.url;
    pick.disabled = !on || t.active;
    pick.addEventListener("click", () => send({ type: "tab", action: "select", index: t.index }));
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "×";
    close.setAttribute("aria-label", "Close the tab " + (t.title || t.url));
    close.disabled = !on;
    close.addEventListener("click", () => send({ type: "tab", action: "close", index: t.index }));
    el.append(pick, close);
    tabs.append(el);
  }
}
