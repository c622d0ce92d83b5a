// The live view's script is these files, in this order, in one function
// scope (ui/http.go joins them into the page's one inline script):
// connection.js (the websocket, the viewer's screen), presence.js (the
// User's proof of presence: the passkey ceremony), render.js (what the
// page shows), controls.js (the buttons), input.js (mouse, touch, keys),
// start.js. docs/live-view.md describes the messages.
//
// connection.js: the elements and state every part uses, and the
// connection to the runtime, which reconnects by itself.
const $ = (id) => document.getElementById(id);
const banner = $("banner"), status = $("status"), screen = $("screen"), img = $("frame");
const keys = $("keys"), address = $("address"), stepBox = $("step-box"), pic = $("pic");
// The credential: the per-run token in the address (the terminal's URL),
// else the viewer's secret a link's page kept in this origin's
// sessionStorage, presented as a websocket subprotocol (never in a URL).
const token = new URLSearchParams(location.search).get("token") || "";
const viewerSecret = token ? "" : sessionStorage.getItem("poppy_viewer") || "";
let ws = null, connected = false, retry = 0, state = null, ended = false, refused = 0;
let viewport = { width: 0, height: 0 }, frameSize = viewport, pendingMove = null;
// liveStep is where the step is on the page during the User's turn (a
// "step" message), followed as the page scrolls or changes.
let liveStep = null;
img.addEventListener("load", () => {
  const changed = viewport.width !== frameSize.width || viewport.height !== frameSize.height;
  viewport = frameSize;
  if (changed) layout();
});

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}
// mine: this viewer holds control (the runtime decides; it drops the rest).
// A viewer holds it only by its own take.
const mine = () => !!state && state.controller === "user" && state.viewer === "you";

// endLogin shows that this viewer's login is over (its turn ended, its
// time ran out, or it never had one): no reconnecting, a new link is needed.
function endLogin(message, title) {
  ended = true;
  connected = false;
  sessionStorage.removeItem("poppy_viewer");
  sessionStorage.removeItem("poppy_take");
  banner.textContent = title || "This live view has ended";
  banner.className = "lost";
  status.textContent = message;
  $("take").disabled = $("cancel").disabled = true;
  $("take").hidden = false;
  $("hand_back").hidden = true;
}

// endTurn shows the end of a turn the User ended themselves through a
// login that was for it (a hand back, a cancel, a decline): done, in calm
// words, with the User's own message; the answered offer is gone, and
// nothing reads as an error.
function endTurn(msg) {
  ended = true;
  connected = false;
  sessionStorage.removeItem("poppy_viewer");
  sessionStorage.removeItem("poppy_take");
  const who = (state && state.agent) || "the agent";
  const words = {
    handed_back: "You handed back: " + who + " continues.",
    cancelled: "You cancelled: control went back to " + who + ".",
    declined: "You declined: " + who + " keeps control.",
    expired: "This link's time ran out",
  };
  // Nothing of the offer card stays: the proof it asked for and its
  // login's end time are moot now.
  document.body.classList.remove("turn", "card");
  $("presence-text").textContent = $("expiry").textContent = "";
  banner.textContent = words[msg.kind] || "Your turn is over";
  banner.className = "done ended";
  status.textContent = "";
  // An expired link: the runtime's words for what to do (ask again), as
  // a note, not an error.
  $("gone").hidden = msg.kind !== "expired";
  $("gone").textContent = msg.kind === "expired" ? msg.message : "";
  $("offer").hidden = true;
  $("story").hidden = !msg.note;
  $("story-text").textContent = msg.note ? "You said: " + msg.note : "";
  $("take").hidden = $("cancel").hidden = $("hand_back").hidden = $("note-line").hidden = true;
  $("take").disabled = $("cancel").disabled = true;
}

// --- the connection: reconnects by itself, with backoff ---

function connect() {
  if (!token && !viewerSecret) {
    endLogin("Open the live view from the link you were given (each link works once).", "Not signed in");
    return;
  }
  // The page is served at its base path (/live, or /live/INSTANCE/KEY on
  // a listener shared by many live views); the websocket is below it.
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
    location.pathname.replace(/\/+$/, "") + "/ws" + (token ? "?token=" + encodeURIComponent(token) : "");
  ws = viewerSecret ? new WebSocket(url, ["poppy-live", "poppy-viewer." + viewerSecret]) : new WebSocket(url);
  ws.onopen = () => {
    connected = true;
    retry = 0;
    refused = 0;
    status.textContent = "";
    sendViewer(true);
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    switch (msg.type) {
      case "state":
        showState(msg);
        afterState();
        // A click on an offer's link page was the User's take: made here,
        // once, after this screen's size went out; it asks for the proof
        // of presence first when this view has none.
        if (sessionStorage.getItem("poppy_take") === "1") {
          sessionStorage.removeItem("poppy_take");
          if (msg.controller === "agent" && msg.offer) {
            if (proved()) send({ type: "take" });
            else if (msg.presence && msg.presence.passkeys) prove(true);
          }
        }
        break;
      case "presence_challenge": answerChallenge(msg.options); break;
      case "presence_refused": presenceRefused(msg.message); break;
      case "ended": if (msg.kind) endTurn(msg); else endLogin(msg.message); break;
      case "frame":
        // The size goes with the picture when it is shown: a tap on the
        // picture still on screen maps with that picture's size.
        frameSize = { width: msg.width, height: msg.height };
        img.src = "data:image/jpeg;base64," + msg.data;
        break;
      case "focus": showKeys(msg.field || null); break;
      case "step": liveStep = msg.box || null; showStepBox(); break;
      case "error": status.textContent = msg.message; break;
      case "file_sent": case "file_refused": fileAnswer(msg); break;
      case "download_chunk": downloadChunk(msg); break;
    }
  };
  ws.onclose = () => {
    const was = connected;
    connected = false;
    if (ended) return;
    // A login the runtime no longer knows is refused at the handshake.
    if (!was && viewerSecret && ++refused >= 3) {
      endLogin("This live view's login has ended or is not valid here. To take control again, open a new link.");
      return;
    }
    if (state && state.story && state.story.kind === "finished") {
      // The run is over: nothing to reconnect to, and nothing went wrong.
      banner.textContent = (state.agent || "The agent") + " finished";
      $("take").disabled = $("cancel").disabled = true;
      return;
    }
    banner.textContent = "Disconnected";
    banner.className = "lost";
    status.textContent = was ? "The live view lost its connection; reconnecting…" : "Reconnecting…";
    $("take").disabled = $("cancel").disabled = true;
    $("hand_back").hidden = true;
    const delay = Math.min(250 * 2 ** retry, 8000);
    retry++;
    setTimeout(connect, delay);
  };
}

// sendViewer tells the runtime this screen's size: the area the picture
// gets during the User's turn (the window below the one slim bar), its
// pixel ratio, and whether it is a phone or tablet. While this viewer
// holds control on a phone, the page is laid out at this size.
// It is sent again whenever that area changes: a rotate, a resize.
let sentViewer = "";
function sendViewer(always) {
  const coarse = matchMedia("(pointer: coarse)").matches;
  const touch = navigator.maxTouchPoints > 0;
  const bar = $("bar").getBoundingClientRect().height;
  const margin = screen.offsetLeft; // the picture's side margins (none on a phone)
  const msg = {
    type: "viewer",
    width: Math.round(document.documentElement.clientWidth - 2 * margin),
    height: Math.max(200, Math.round(window.innerHeight - bar - margin)),
    scale: window.devicePixelRatio || 1,
    mobile: coarse && touch,
    touch,
  };
  const key = JSON.stringify(msg);
  if (key === sentViewer && !always) return;
  sentViewer = key;
  send(msg);
}
// The picture follows the area it has (bars opening and closing, a
// rotate); the runtime hears of a new window size once it settles.
new ResizeObserver(() => layout()).observe(screen);
let resizeTimer = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(sendViewer, 300);
});
