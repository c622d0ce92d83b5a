// focused returns the box of the focused element in the visual viewport
// (what a picture of the page shows, panned within a page zoomed in) when it
// takes typed text (a text input, a textarea, an editable element), looking
// into open shadow roots, or null. The live view puts its own editable
// element over that box so a phone's keyboard opens.
function focused() {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el) return null;
  const tag = el.tagName;
  const textTypes = ["text", "search", "email", "tel", "url", "password", "number", ""];
  let kind = "";
  if (tag === "TEXTAREA") kind = "text";
  else if (tag === "INPUT" && textTypes.includes((el.getAttribute("type") || "").toLowerCase())) kind = el.type;
  else if (el.isContentEditable) kind = "text";
  if (!kind || el.disabled || el.readOnly) return null;
  const b = el.getBoundingClientRect(), v = visualViewport;
  return { X: b.x - v.offsetLeft, Y: b.y - v.offsetTop, Width: b.width, Height: b.height, Kind: kind };
}
