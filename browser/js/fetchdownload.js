// fetchdownload.js: fetches a download the browser refused, in the frame
// that started it (its cookies, its origin; blob: and data: URLs too), at
// most max bytes, and keeps the bytes in this isolated world under key
// for readdownload.js. The page's own scripts never see them.
async function fetchDownload(url, max, key) {
  const r = await fetch(url, { credentials: "include" });
  if (!r.ok) throw new Error("the server answered HTTP " + r.status);
  const reader = r.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      reader.cancel();
      throw new Error("too big: over " + max + " bytes");
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  (globalThis.__poppyDownloads ||= new Map()).set(key, all);
  return { Size: size, Type: r.headers.get("content-type") || "" };
}
