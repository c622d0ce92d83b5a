// title reads the document's title from the browser's own world.
function title() {
  return document.title;
}
