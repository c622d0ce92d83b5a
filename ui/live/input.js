// input.js: while this viewer holds control, the User's taps, mouse, keys
// and text go to the page.
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
    screen.focus({ preventScroll: true });
  }
  if (kind === "wheel") { msg.deltaX = ev.deltaX; msg.deltaY = ev.deltaY; }
  if (kind === "move") {
    // At most one move per animation frame.
    if (!pendingMove) requestAnimationFrame(() => { if (pendingMove) send(pendingMove); pendingMove = null; });
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
let finger = null, pendingTouch = null, tapStart = null, tapMoved = false;
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
  tapStart = pts[0];
  tapMoved = false;
  send({ type: "touch", event: "start", points: pts });
}, { passive: true });
screen.addEventListener("touchmove", (ev) => {
  if (!mine() || finger === null || finger < 0) return;
  const pts = touches(ev);
  if (!pts) return;
  if (tapStart && Math.hypot(pts[0].x - tapStart.x, pts[0].y - tapStart.y) * scale > 10) tapMoved = true;
  if (!pendingTouch) requestAnimationFrame(() => { if (pendingTouch) send(pendingTouch); pendingTouch = null; });
  pendingTouch = { type: "touch", event: "move", points: pts };
}, { passive: true });
screen.addEventListener("touchend", (ev) => {
  if (!mine()) return;
  ev.preventDefault(); // no mouse events or click after the touch: the tap went to the page
  if (ev.touches.length > 0) return;
  if (finger !== null && finger >= 0) {
    if (pendingTouch) { send(pendingTouch); pendingTouch = null; }
    send({ type: "touch", event: "end" });
    // A tap may focus a text field: the live view's own editable element
    // takes the focus now, inside the tap's user gesture, so a phone
    // (iOS above all) opens its keyboard. The runtime's "focus" answer
    // then puts it over the field, or closes it when the tap focused none.
    if (!tapMoved && tapStart) {
      placeKeys({ x: tapStart.x, y: tapStart.y, width: 1, height: 1 });
      resetKeys();
      keys.focus({ preventScroll: true });
    }
  }
  finger = null;
  tapStart = null;
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
function placeKeys(field) {
  const k = viewport.width ? pic.clientWidth / viewport.width : 1;
  Object.assign(keys.style, {
    left: field.x * k + "px", top: field.y * k + "px",
    width: Math.max(1, field.width * k) + "px", height: Math.max(1, field.height * k) + "px",
  });
}
function showKeys(field) {
  if (!field || !mine()) { hideKeys(); return; }
  placeKeys(field);
  const modes = { email: "email", tel: "tel", number: "decimal", url: "url", search: "search" };
  keys.setAttribute("inputmode", modes[field.kind] || "text");
  keys.setAttribute("autocapitalize", field.kind === "text" ? "sentences" : "none");
  keys.setAttribute("autocorrect", field.kind === "text" ? "on" : "off");
  resetKeys();
  if (document.activeElement !== keys) keys.focus({ preventScroll: true });
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
