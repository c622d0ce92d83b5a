// choose.js: sets the files the User picked on a file input, as a chooser
// of the browser would: a FileList built with DataTransfer from the bytes
// (base64), so the page sees input.files and its input and change events.
// It runs in the isolated world on the input's node; the bytes never pass
// through a path on a disk (the browser may be on another machine).
function choose(files) {
  const dt = new DataTransfer();
  for (const f of files) {
    const bin = atob(f.data);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    dt.items.add(new File([bytes], f.name, { type: f.type || "" }));
  }
  this.files = dt.files;
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
  return this.files.length;
}
