// The live view: shows the agent's tab and, while the User holds control,
// sends their mouse, keys and text to it over the User channel websocket.
//
// Printable characters typed without Ctrl/Alt/Meta are sent as
// {"type":"text"} (one message per character, so any layout and any script
// works); every other key (Enter, Tab, Backspace, arrows, shortcuts) is sent
// as {"type":"key"} down and up with its KeyboardEvent.key name. Pasted text
// is sent as one {"type":"text"}. Coordinates are scaled from the picture on
// screen to the page's viewport in CSS pixels, whatever the window size.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const banner = $("banner"), status = $("status"), screen = $("screen"), img = $("frame");
  const offerBox = $("offer"), reason = $("reason"), stepLine = $("step-line"), step = $("step");
  const token = new URLSearchParams(location.search).get("token") || "";
  let ws = null, controller = "agent", viewport = { width: 0, height: 0 }, pendingMove = null;

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  function showState(msg) {
    controller = msg.controller;
    const user = controller === "user";
    const offer = msg.offer || null;
    banner.textContent = user ? "You have control" :
      offer ? "The agent is using the browser and offers you control" : "The agent is using the browser";
    banner.className = user ? "user" : offer ? "offer" : "";
    screen.className = user ? "user" : "";
    offerBox.hidden = !offer;
    reason.textContent = offer ? offer.reason : "";
    const text = offer && offer.step && offer.step.text;
    stepLine.hidden = !text;
    step.textContent = text || "";
    $("take").disabled = user;
    $("hand_back").disabled = !user;
    $("cancel").disabled = !user && !offer;
    // The address of the tab shown: the User must see which site they type into.
    $("address").textContent = msg.url || "";
    const d = msg.dialog || null;
    $("dialog").hidden = !d;
    if (d) {
      $("dialog-text").textContent = d.message;
      $("dialog-input").hidden = d.type !== "prompt";
      $("dialog-ok").disabled = $("dialog-cancel").disabled = !user;
      $("dialog-note").textContent = user ? "" : "Take control to answer it.";
    }
    if (user) screen.focus();
  }

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
      "/live/ws?token=" + encodeURIComponent(token);
    ws = new WebSocket(url);
    ws.onopen = () => { status.textContent = ""; };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      switch (msg.type) {
        case "state": showState(msg); break;
        case "frame":
          viewport = { width: msg.width, height: msg.height };
          img.src = "data:image/jpeg;base64," + msg.data;
          break;
        case "error": status.textContent = msg.message; break;
      }
    };
    ws.onclose = () => {
      banner.textContent = "Disconnected";
      banner.className = "";
      status.textContent = "The live view lost its connection; reload to try again.";
    };
  }

  for (const id of ["take", "hand_back", "cancel"]) {
    $(id).addEventListener("click", () => { status.textContent = ""; send({ type: id }); });
  }
  for (const [id, accept] of [["dialog-ok", true], ["dialog-cancel", false]]) {
    $(id).addEventListener("click", () => {
      const input = $("dialog-input");
      send({ type: "dialog", accept, text: accept && !input.hidden ? input.value : "" });
      input.value = "";
    });
  }

  // point maps a pointer event on the picture to viewport CSS pixels.
  function point(ev) {
    const r = img.getBoundingClientRect();
    if (!r.width || !r.height || !viewport.width) return null;
    return {
      x: (ev.clientX - r.left) * viewport.width / r.width,
      y: (ev.clientY - r.top) * viewport.height / r.height,
    };
  }
  const buttons = ["left", "middle", "right"];
  const active = () => controller === "user";

  function mouse(ev, kind) {
    if (!active()) return;
    const p = point(ev);
    if (!p) return;
    ev.preventDefault();
    const msg = { type: "mouse", event: kind, x: p.x, y: p.y };
    if (kind === "down" || kind === "up") {
      msg.button = buttons[ev.button] || "left";
      msg.clickCount = ev.detail || 1;
      screen.focus();
    }
    if (kind === "wheel") { msg.deltaX = ev.deltaX; msg.deltaY = ev.deltaY; }
    if (kind === "move") {
      // At most one move per animation frame.
      if (!pendingMove) requestAnimationFrame(() => { send(pendingMove); pendingMove = null; });
      pendingMove = msg;
      return;
    }
    if (pendingMove) { send(pendingMove); pendingMove = null; }
    send(msg);
  }
  img.addEventListener("mousedown", (ev) => mouse(ev, "down"));
  img.addEventListener("mouseup", (ev) => mouse(ev, "up"));
  img.addEventListener("mousemove", (ev) => mouse(ev, "move"));
  img.addEventListener("wheel", (ev) => mouse(ev, "wheel"), { passive: false });
  img.addEventListener("contextmenu", (ev) => { if (active()) ev.preventDefault(); });

  const printable = (ev) => ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey;
  screen.addEventListener("keydown", (ev) => {
    if (!active() || ev.isComposing) return;
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "v") return; // the paste event sends it
    ev.preventDefault();
    if (printable(ev)) send({ type: "text", text: ev.key });
    else send({ type: "key", event: "down", key: ev.key });
  });
  screen.addEventListener("keyup", (ev) => {
    if (!active() || ev.isComposing || printable(ev)) return;
    ev.preventDefault();
    send({ type: "key", event: "up", key: ev.key });
  });
  screen.addEventListener("paste", (ev) => {
    if (!active()) return;
    ev.preventDefault();
    const text = ev.clipboardData && ev.clipboardData.getData("text/plain");
    if (text) send({ type: "text", text });
  });

  connect();
})();
