// The live view: shows the agent's tab and, while this viewer holds control,
// sends the User's taps, mouse, keys and text to it over the User channel
// websocket (docs/live-view.md describes the messages).
//
// Desktop: printable characters typed on the focused picture without
// Ctrl/Alt/Meta are sent as {"type":"text"}; every other key as
// {"type":"key"} down and up; pasted text as one {"type":"text"}.
// Phone: a finger on the picture is sent as {"type":"touch"}; after a tap
// the runtime says which text field has the focus, and a transparent
// textarea (#keys) is put over it and focused, so the phone's keyboard
// opens. What the User types there (keys, IME composition, autocorrect) is
// sent as the difference it makes to the textarea: Backspaces for what went,
// text for what came.
// Coordinates are scaled from the picture on screen to the page's viewport
// in CSS pixels, whatever the window size or pinch-zoom.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const banner = $("banner"), status = $("status"), screen = $("screen"), img = $("frame");
  const keys = $("keys"), address = $("address"), stepBox = $("step-box");
  const token = new URLSearchParams(location.search).get("token") || "";
  let ws = null, connected = false, retry = 0, state = null;
  let viewport = { width: 0, height: 0 }, frameSize = viewport, pendingMove = null;
  img.addEventListener("load", () => {
    const first = !viewport.width;
    viewport = frameSize;
    if (first && state) showStepBox(state.controller === "user" ? null : state.step_box);
  });

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }
  // mine: this viewer holds control (the runtime decides; it drops the rest).
  const mine = () => !!state && state.controller === "user" && state.viewer !== "another";

  // --- the story: who holds control, what was asked, what happened ---

  function showState(msg) {
    state = msg;
    const user = msg.controller === "user", offer = msg.offer || null;
    const company = msg.company || "the Company", agent = msg.agent || "The agent";
    let text, cls = "";
    if (user && msg.viewer === "another") text = "You have control on another screen";
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
    take.textContent = user && msg.viewer === "another" ? "Take control here" : "Take control";
    take.hidden = user && msg.viewer !== "another";
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

  // --- the connection: reconnects by itself, with backoff ---

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
      "/live/ws" + (token ? "?token=" + encodeURIComponent(token) : "");
    ws = new WebSocket(url);
    ws.onopen = () => {
      connected = true;
      retry = 0;
      status.textContent = "";
      sendViewer(true);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      switch (msg.type) {
        case "state": showState(msg); break;
        case "frame":
          // The size goes with the picture when it is shown: a tap on the
          // picture still on screen maps with that picture's size.
          frameSize = { width: msg.width, height: msg.height };
          img.src = "data:image/jpeg;base64," + msg.data;
          break;
        case "focus": showKeys(msg.field || null); break;
        case "error": status.textContent = msg.message; break;
      }
    };
    ws.onclose = () => {
      const was = connected;
      connected = false;
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
  // can use, its pixel ratio, and whether it is a phone or tablet. While this
  // viewer holds control on a phone, the page is laid out at this size.
  // It is sent again whenever that area changes: a rotate, or the lines
  // above the picture growing or shrinking with the story.
  let sentViewer = "";
  function sendViewer(always) {
    const top = screen.getBoundingClientRect().top + window.scrollY;
    const coarse = matchMedia("(pointer: coarse)").matches;
    const touch = navigator.maxTouchPoints > 0;
    const msg = {
      type: "viewer",
      width: Math.round(screen.clientWidth),
      height: Math.max(200, Math.round(window.innerHeight - Math.min(top, window.innerHeight / 3))),
      scale: window.devicePixelRatio || 1,
      mobile: coarse && touch,
      touch,
    };
    const key = JSON.stringify(msg);
    if (key === sentViewer && !always) return;
    sentViewer = key;
    send(msg);
  }
  const above = new ResizeObserver(() => sendViewer(false));
  for (const el of screen.parentElement.children) {
    if (el === screen) break;
    if (el.tagName !== "SCRIPT") above.observe(el);
  }
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    if (state) showStepBox(state.controller === "user" ? null : state.step_box);
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(sendViewer, 300);
  });

  // --- buttons ---

  $("take").addEventListener("click", () => { status.textContent = ""; hideKeys(); send({ type: "take" }); });
  for (const id of ["hand_back", "cancel"]) {
    $(id).addEventListener("click", () => {
      status.textContent = ""; hideKeys();
      const note = $("note");
      send({ type: id, text: note.value.trim() });
      note.value = "";
    });
  }
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

  // --- the picture: mouse and touch ---

  // point maps a pointer on the picture to viewport CSS pixels.
  function point(ev) {
    const r = img.getBoundingClientRect();
    if (!r.width || !r.height || !viewport.width) return null;
    return {
      x: (ev.clientX - r.left) * viewport.width / r.width,
      y: (ev.clientY - r.top) * viewport.height / r.height,
    };
  }
  const buttons = ["left", "middle", "right"];

  function mouse(ev, kind) {
    if (!mine()) return;
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
  img.addEventListener("contextmenu", (ev) => { if (mine()) ev.preventDefault(); });

  // One finger is passed on (a tap, a swipe that scrolls the page); two are
  // the User zooming the picture itself (touch-action: pinch-zoom), and
  // whatever the first finger started is cancelled.
  let finger = null, pendingTouch = null;
  function touches(ev) {
    const t = ev.changedTouches[0];
    const p = point(t);
    return p ? [{ x: p.x, y: p.y, id: 0 }] : null;
  }
  screen.addEventListener("touchstart", (ev) => {
    if (!mine()) return;
    if (ev.touches.length > 1) {
      if (finger !== null) send({ type: "touch", event: "cancel" });
      finger = -1; // ignored until every finger is up
      return;
    }
    const pts = touches(ev);
    if (!pts) return;
    finger = ev.changedTouches[0].identifier;
    send({ type: "touch", event: "start", points: pts });
  }, { passive: true });
  screen.addEventListener("touchmove", (ev) => {
    if (!mine() || finger === null || finger < 0) return;
    const pts = touches(ev);
    if (!pts) return;
    if (!pendingTouch) requestAnimationFrame(() => { send(pendingTouch); pendingTouch = null; });
    pendingTouch = { type: "touch", event: "move", points: pts };
  }, { passive: true });
  screen.addEventListener("touchend", (ev) => {
    if (!mine()) return;
    ev.preventDefault(); // no mouse events or click after the touch: the tap went to the page
    if (ev.touches.length > 0) return;
    if (finger !== null && finger >= 0) {
      if (pendingTouch) { send(pendingTouch); pendingTouch = null; }
      send({ type: "touch", event: "end" });
    }
    finger = null;
  }, { passive: false });
  screen.addEventListener("touchcancel", () => {
    if (finger !== null && finger >= 0) send({ type: "touch", event: "cancel" });
    finger = null;
  });

  // --- typing: the desktop keyboard on the picture ---

  const printable = (ev) => ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey;
  const sendKey = (key) => {
    send({ type: "key", event: "down", key });
    send({ type: "key", event: "up", key });
  };
  screen.addEventListener("keydown", (ev) => {
    if (ev.target === keys || !mine() || ev.isComposing) return;
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "v") return; // the paste event sends it
    ev.preventDefault();
    if (printable(ev)) send({ type: "text", text: ev.key });
    else send({ type: "key", event: "down", key: ev.key });
  });
  screen.addEventListener("keyup", (ev) => {
    if (ev.target === keys || !mine() || ev.isComposing || printable(ev)) return;
    ev.preventDefault();
    send({ type: "key", event: "up", key: ev.key });
  });
  screen.addEventListener("paste", (ev) => {
    if (ev.target === keys || !mine()) return;
    ev.preventDefault();
    const text = ev.clipboardData && ev.clipboardData.getData("text/plain");
    if (text) send({ type: "text", text });
  });

  // --- typing: a phone's keyboard, through #keys over the tapped field ---

  // The textarea starts with one invisible character, so a Backspace on an
  // empty textarea still makes an input event (and reaches the page).
  const SENTINEL = "\u200b";
  let typed = SENTINEL;
  function resetKeys() {
    keys.value = typed = SENTINEL;
    keys.setSelectionRange(1, 1);
  }
  function showKeys(field) {
    if (!field || !mine()) { hideKeys(); return; }
    const r = img.getBoundingClientRect(), s = screen.getBoundingClientRect();
    const k = viewport.width ? r.width / viewport.width : 1;
    Object.assign(keys.style, {
      left: (r.left - s.left + field.x * k) + "px", top: (r.top - s.top + field.y * k) + "px",
      width: Math.max(1, field.width * k) + "px", height: Math.max(1, field.height * k) + "px",
    });
    const modes = { email: "email", tel: "tel", number: "decimal", url: "url", search: "search" };
    keys.setAttribute("inputmode", modes[field.kind] || "text");
    keys.setAttribute("autocapitalize", field.kind === "text" ? "sentences" : "none");
    keys.setAttribute("autocorrect", field.kind === "text" ? "on" : "off");
    resetKeys();
    keys.focus({ preventScroll: true });
  }
  function hideKeys() {
    if (document.activeElement === keys) keys.blur();
  }
  // flushKeys sends what changed in the textarea since the last flush.
  function flushKeys() {
    const before = Array.from(typed), after = Array.from(keys.value);
    let same = 0;
    while (same < before.length && same < after.length && before[same] === after[same]) same++;
    let gone = before.length - same;
    if (same === 0 && before[0] === SENTINEL) gone--; // the sentinel was never the page's
    for (let i = 0; i < gone; i++) sendKey("Backspace");
    const added = after.slice(same).join("").replaceAll(SENTINEL, "");
    const lines = added.split("\n");
    lines.forEach((line, i) => {
      if (i > 0) sendKey("Enter");
      if (line) send({ type: "text", text: line });
    });
    typed = keys.value;
    if (!typed.startsWith(SENTINEL) || lines.length > 1 || typed.length > 200) resetKeys();
  }
  keys.addEventListener("input", (ev) => { if (!ev.isComposing && mine()) flushKeys(); });
  keys.addEventListener("compositionend", () => { if (mine()) flushKeys(); });
  keys.addEventListener("beforeinput", (ev) => {
    if (ev.inputType === "insertLineBreak" || ev.inputType === "insertParagraph") {
      ev.preventDefault();
      if (mine()) sendKey("Enter");
      resetKeys();
    }
  });
  const passOn = new Set(["Enter", "Tab", "Escape", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown", "Delete"]);
  keys.addEventListener("keydown", (ev) => {
    if (!mine() || ev.isComposing) return;
    if (passOn.has(ev.key) || ((ev.ctrlKey || ev.metaKey) && ev.key.length === 1 && ev.key.toLowerCase() !== "v")) {
      ev.preventDefault();
      sendKey((ev.ctrlKey ? "Control+" : "") + (ev.metaKey ? "Meta+" : "") + ev.key);
      if (ev.key === "Enter" || ev.key === "Tab") resetKeys();
    }
  });

  connect();
})();
