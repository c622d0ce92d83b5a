// app.js: the MCP App of the User's turn, inside the User's MCP client.
// It speaks to the host with the official App SDK (ExtApps: App and
// PostMessageTransport from @modelcontextprotocol/ext-apps, vendored in
// ext-apps/) and to the live view over its websocket with the login the
// host hands it in the tool result's _meta (never shown to the model).
// Control is taken only on the User's click on Take control here.
"use strict";
const $ = (id) => document.getElementById(id);
const META = "poppy-browser/live";
const app = new ExtApps.App({ name: "poppy-browser live view", version: "1" }, {});
let ws = null, login = null, controller = "agent", mine = false, turnTaken = false, frameSize = null, ended = false;
// proved: the live view has the User's proof of presence for this app's
// view. It never has, unless the runtime runs --insecure-take-by-link: a
// passkey ceremony runs on the live view's own origin, so Take control
// opens the live view top-level (ui/open-link), where it runs.
let proved = false;

function banner(text) { $("banner").textContent = text; }
// A click before the websocket has opened (the buttons show at once) is
// sent when it opens, not lost.
let pending = [];
function send(msg) {
  if (!ws) return;
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  else if (ws.readyState === WebSocket.CONNECTING) pending.push(msg);
}
function say(text) {
  // The User's own words, into the conversation: the agent reads them as
  // the User's message.
  return app.sendMessage({ role: "user", content: [{ type: "text", text }] }).catch(() => {});
}
function displayMode(mode) {
  const caps = app.getHostContext && app.getHostContext();
  const modes = caps && caps.availableDisplayModes;
  if (modes && !modes.includes(mode)) return;
  app.requestDisplayMode({ mode }).catch(() => {});
}

function render() {
  const user = controller === "user";
  $("answer").hidden = ended || user || !login;
  $("return").hidden = !(user && mine);
  if (ended) return;
  if (user && mine) banner("You have control: the agent waits. Hand back when you are done.");
  else if (user) banner("You have control in another window.");
  else if (login) banner("The agent asks you to take control.");
}

function connect(l) {
  if (ws) ws.close();
  login = l; ended = false; turnTaken = false;
  pending = [];
  ws = new WebSocket(l.ws, ["poppy-live", "poppy-viewer." + l.viewer]);
  ws.onopen = (ev) => { for (const msg of pending.splice(0)) ev.target.send(JSON.stringify(msg)); };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    if (msg.type === "frame") {
      frameSize = { w: msg.width, h: msg.height };
      $("frame").src = "data:image/jpeg;base64," + msg.data;
    } else if (msg.type === "state") {
      const was = controller;
      controller = msg.controller;
      mine = controller === "user" && msg.viewer === "you";
      proved = !!(msg.presence && msg.presence.proved);
      if (mine) turnTaken = true;
      if (msg.offer && msg.offer.reason) { $("reason").textContent = msg.offer.reason; $("offer").hidden = false; }
      if (was === "user" && controller === "agent") finish("Your turn is over: the agent has control again.");
      render();
    } else if (msg.type === "ended") {
      // kind names the User's own end of the turn, wherever they took it
      // (the live view this app opened top-level, for a passkey).
      const over = turnTaken || msg.kind === "handed_back" || msg.kind === "cancelled";
      finish(over ? "Your turn is over: the agent has control again." : "This offer is over.");
    } else if (msg.type === "error") {
      banner(msg.message || "The live view refused that.");
    }
  };
  ws.onclose = () => { if (!ended) finish("The live view closed."); };
  render();
}

function finish(text) {
  ended = true; login = null; mine = false;
  $("answer").hidden = $("return").hidden = true;
  banner(text);
  displayMode("inline");
}

function fromToolResult(result) {
  const l = result && result._meta && result._meta[META];
  const sc = result && result.structuredContent;
  const offer = sc && sc.offer;
  if (offer && offer.reason) { $("reason").textContent = offer.reason; $("offer").hidden = false; }
  if (l && l.ws && l.viewer) connect(l);
  else if (!ws) banner(sc && sc.message ? sc.message : "No offer of control is open.");
}

app.ontoolresult = fromToolResult;

$("take").addEventListener("click", () => {
  if (!proved && login && login.link) {
    // The ceremony and the take happen in the live view, top-level.
    app.openLink({ url: login.link }).catch(() => {});
    banner("Confirm it's you with your passkey in the window that opened, then take control there.");
    return;
  }
  send({ type: "take" });
  displayMode("fullscreen");
});
$("decline").addEventListener("click", () => {
  // Before a take, cancel declines the offer.
  send({ type: "cancel" });
  say("I declined your offer of control.");
  finish("You declined the offer.");
});
function endTurn(type) {
  const note = $("note").value.trim();
  $("note").value = "";
  send({ type, text: note });
  const what = type === "hand_back" ? "I handed control of the browser back to you." : "I cancelled the step and gave control back to you.";
  say(note ? what + " My message: " + note : what);
}
$("hand_back").addEventListener("click", () => endTurn("hand_back"));
$("cancel").addEventListener("click", () => endTurn("cancel"));

// Input while the User holds control here: pointer positions in the
// page's viewport CSS pixels (the frame is shown letterboxed).
function pagePoint(ev) {
  const img = $("frame"), r = img.getBoundingClientRect();
  if (!frameSize || !r.width || !r.height) return null;
  const scale = Math.min(r.width / frameSize.w, r.height / frameSize.h);
  const left = r.left + (r.width - frameSize.w * scale) / 2, top = r.top + (r.height - frameSize.h * scale) / 2;
  const x = (ev.clientX - left) / scale, y = (ev.clientY - top) / scale;
  if (x < 0 || y < 0 || x > frameSize.w || y > frameSize.h) return null;
  return { x, y };
}
const buttons = ["left", "middle", "right"];
for (const [type, event] of [["pointerdown", "down"], ["pointerup", "up"], ["pointermove", "move"]]) {
  $("screen").addEventListener(type, (ev) => {
    if (!mine) return;
    const p = pagePoint(ev);
    if (!p) return;
    if (event === "down") { ev.preventDefault(); $("keys").focus({ preventScroll: true }); }
    send({ type: "mouse", event, x: p.x, y: p.y, button: buttons[ev.button] || "left" });
  });
}
$("screen").addEventListener("wheel", (ev) => {
  if (!mine) return;
  const p = pagePoint(ev);
  if (!p) return;
  ev.preventDefault();
  send({ type: "mouse", event: "wheel", x: p.x, y: p.y, deltaX: ev.deltaX, deltaY: ev.deltaY });
}, { passive: false });
const named = new Set(["Enter", "Backspace", "Tab", "Escape", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Delete", "Home", "End", "PageUp", "PageDown"]);
$("keys").addEventListener("keydown", (ev) => {
  if (!mine || !named.has(ev.key)) return;
  ev.preventDefault();
  send({ type: "key", event: "down", key: ev.key });
  send({ type: "key", event: "up", key: ev.key });
});
$("keys").addEventListener("input", () => {
  const t = $("keys").value;
  $("keys").value = "";
  if (mine && t) send({ type: "text", text: t });
});

app.connect(new ExtApps.PostMessageTransport(window.parent, window.parent)).catch((err) => {
  banner("This app could not reach its host: " + (err && err.message ? err.message : err));
});
