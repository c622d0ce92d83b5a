// pinstep.js: finds the element the offer's step box outlines (the box is
// where the agent last saw it, viewport CSS pixels) and keeps it, in this
// isolated world, for stepbox.js to follow during the User's turn. The
// page sees nothing of it. Returns whether an element matched the box.
function(x, y, w, h) {
  const near = (r) => Math.abs(r.x - x) < 4 && Math.abs(r.y - y) < 4 &&
    Math.abs(r.width - w) < 4 && Math.abs(r.height - h) < 4;
  let el = document.elementFromPoint(x + w / 2, y + h / 2);
  while (el && !near(el.getBoundingClientRect())) el = el.parentElement;
  globalThis.__poppyLiveStep = el ? new WeakRef(el) : null;
  return !!el;
}
