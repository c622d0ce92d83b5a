// chooser.js: what the live view shows of a file input that opened a
// chooser: its label (the page's words) and its accept attribute.
function chooser() {
  let label = "";
  if (this.labels && this.labels.length) label = this.labels[0].innerText;
  label = label || this.getAttribute("aria-label") || this.title || this.name || "";
  return { Label: label.replace(/\s+/g, " ").trim().slice(0, 200), Accept: (this.getAttribute("accept") || "").slice(0, 500) };
}
