// locate scrolls the first element matching a CSS selector into view and
// returns its box in the viewport, for scripted users of the live view.
function locate(selector) {
  const el = document.querySelector(selector);
  if (!el) return null;
  el.scrollIntoView({ block: "center", inline: "center" });
  const b = el.getBoundingClientRect();
  return { X: b.x, Y: b.y, Width: b.width, Height: b.height };
}
