// stepbox.js: where the element pinstep.js kept is now, in the visual
// viewport the live view's picture shows (CSS pixels); null when it is
// gone or not shown.
function() {
  const ref = globalThis.__poppyLiveStep, el = ref && ref.deref();
  if (!el || !el.isConnected) return null;
  const r = el.getBoundingClientRect();
  if (!r.width && !r.height) return null;
  const v = visualViewport;
  return {x: r.x - v.offsetLeft, y: r.y - v.offsetTop, width: r.width, height: r.height};
}
