// readdownload.js: a slice of a fetched download's bytes, base64; the
// last read forgets them.
function readDownload(key, at, n) {
  const m = globalThis.__poppyDownloads, all = m && m.get(key);
  if (!all) throw new Error("no such download");
  const part = all.subarray(at, at + n);
  let bin = "";
  for (let i = 0; i < part.length; i += 4096) bin += String.fromCharCode.apply(null, part.subarray(i, i + 4096));
  if (at + n >= all.length) m.delete(key);
  return btoa(bin);
}
