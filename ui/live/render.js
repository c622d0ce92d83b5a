// render.js: the story (who holds control, what was asked, what happened),
// the picture's size, the step's outline on it, the address bar and the
// tabs.

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
  // A page that cannot be shown says why, in its own words: not the
  // red of a lost connection (the live view itself is fine).
  const lost = {
    tab_crashed: ["The page crashed", user && msg.viewer === "you" ?
      "The browser tab showing this page crashed. Reload it (More, then ↻) to go on; your turn goes on." :
      "The browser tab showing this page crashed; it comes back when the page is loaded again."],
    browser_gone: ["The browser stopped", "The browser this page was in has stopped (it crashed or was closed), so there is nothing to show here. " +
      agent + " gets a new one the next time it uses the browser."],
  }[msg.lost];
  if (lost) { text = lost[0]; cls = "gone"; }
  else if (msg.presence && msg.presence.unpaired && !msg.presence.proved) { text = "This device was unpaired"; cls = "gone"; }
  banner.textContent = text;
  banner.className = cls;
  $("gone").hidden = !lost;
  $("gone").textContent = lost ? lost[1] : "";
  // During this viewer's turn the chrome is one slim bar; "More" opens
  // the rest (the message, the agent's request, the address).
  const turn = user && mine();
  if (turn !== document.body.classList.contains("turn")) setMore(false);
  document.body.classList.toggle("turn", turn);
  if (!user) liveStep = null;

  $("offer").hidden = !offer;
  $("reason").textContent = offer ? offer.reason : "";
  const said = offer && offer.step && offer.step.text;
  $("step-line").hidden = !said;
  $("step-from").textContent = company + "'s page says";
  $("step").textContent = said || "";
  showStory(msg, agent);

  const take = $("take");
  take.textContent = user && msg.viewer !== "you" ? "Take control here" : "Take control";
  take.hidden = user && msg.viewer === "you";
  take.disabled = !connected;
  if (!proved() && offer) take.textContent = "Take control with your passkey";
  $("hand_back").hidden = !user || !mine();
  const cancel = $("cancel");
  cancel.hidden = !(user ? mine() : offer);
  cancel.textContent = user ? "Cancel my turn" : "Decline";
  cancel.disabled = !connected;
  // The User's words for the agent go with a hand back, cancel or decline.
  $("note-line").hidden = cancel.hidden;

  showPresence();
  showNav(msg);
  const d = msg.dialog || null;
  $("dialog").hidden = !d;
  if (d) {
    $("dialog-text").textContent = d.message;
    $("dialog-input").hidden = d.type !== "prompt";
    $("dialog-ok").disabled = $("dialog-cancel").disabled = !mine();
    $("dialog-note").textContent = mine() ? "" : "Take control to answer it.";
  }
  showFiles(msg); // files.js
  showDownloads(msg);
  if (!mine()) hideKeys();
  layout();
}

function setMore(open) {
  document.body.classList.toggle("open", open);
  $("more").setAttribute("aria-expanded", String(open));
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

// The picture is as large as the area below the bars allows, whole.
// During an offer, when that would make the agent's page too small to
// read (its desktop layout on a phone), the picture is shown at a legible
// scale instead, panned to the step: the User reads what they are asked
// to do before they take control, and the agent's layout stays as it is.
const LEGIBLE = 0.6;
let scale = 1, zoomedOn = "";
function layout() {
  if (!viewport.width || !viewport.height) return;
  const sw = screen.clientWidth, sh = screen.clientHeight;
  if (!sw || !sh) return;
  let k = Math.min(sw / viewport.width, sh / viewport.height);
  const box = state && state.controller !== "user" && state.offer ? state.step_box : null;
  const zoom = !!box && k < LEGIBLE;
  // Zoomed: the page's whole width when that is legible (a phone in
  // landscape: the User scrolls down to the step, no edge is cut), else
  // a legible scale panned to the step (a phone upright).
  if (zoom) k = sw / viewport.width >= LEGIBLE ? Math.min(1, sw / viewport.width) : Math.min(1, Math.max(k, sw / 480));
  scale = k;
  screen.classList.toggle("zoom", zoom);
  pic.style.width = viewport.width * k + "px";
  pic.style.height = viewport.height * k + "px";
  // Pan to the step once for each step (the User may pan away after).
  const key = zoom ? [box.x, box.y, box.width, box.height, sw, sh].join() : "";
  if (zoom && key !== zoomedOn) {
    screen.scrollLeft = (box.x + box.width / 2) * k - sw / 2;
    screen.scrollTop = (box.y + box.height / 2) * k - sh / 2;
  }
  zoomedOn = key;
  showStepBox();
}

// showStepBox outlines the step on the picture: where the agent last saw
// it while the agent holds control, where it is now during the User's
// turn (a "step" message).
function showStepBox() {
  const box = !state ? null : state.controller === "user" ? liveStep : state.step_box;
  stepBox.hidden = !box || !viewport.width;
  if (stepBox.hidden) return;
  const k = pic.clientWidth / viewport.width;
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
