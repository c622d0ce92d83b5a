// files.js: the page's file chooser in the User's turn ("airline.test asks
// for a file: Passport scan"), answered with files from this device
// (camera included where the device offers it for the input's accept),
// sent in chunks over the websocket; and the downloads of the turn,
// offered to save here.

const fileChunk = 32 << 10; // bytes a file_chunk carries: within the runtime's message bound
let fileShown = 0; // the request the picker was set up for
let fileSending = false;

function showFiles(msg) {
  const r = msg.file_request || null;
  $("files").hidden = !r;
  if (!mine()) $("files-done").textContent = "";
  if (!r) { fileShown = 0; return; }
  if (fileShown !== r.id) $("files-done").textContent = "";
  $("files-ask").textContent = (r.host || "The page") + " asks for a file" + (r.label ? ": " : "");
  $("files-label").textContent = r.label || "";
  const pick = $("files-pick");
  if (fileShown !== r.id) {
    fileShown = r.id;
    pick.value = "";
    pick.accept = r.accept || "";
    pick.multiple = !!r.multiple;
    $("files-note").textContent = "";
  }
  pick.disabled = $("files-cancel").disabled = !mine() || fileSending;
  if (!mine()) $("files-note").textContent = "Take control here to send a file.";
}

async function sendFiles() {
  const r = state && state.file_request;
  const files = Array.from($("files-pick").files || []);
  if (!r || !files.length || !mine()) return;
  const note = $("files-note");
  const big = files.find((f) => f.size > r.max_bytes);
  if (big) {
    note.textContent = "\u201c" + big.name + "\u201d is " + sizeWords(big.size) + "; the largest file the live view sends is " + sizeWords(r.max_bytes) + ".";
    $("files-pick").value = "";
    return;
  }
  fileSending = true;
  $("files-pick").disabled = $("files-cancel").disabled = true;
  note.textContent = "Sending…";
  try {
    send({ type: "file_begin", request: r.id, files: files.map((f) => ({ name: f.name, type: f.type, size: f.size })) });
    for (const f of files) {
      for (let at = 0; at < f.size; at += fileChunk) {
        const bytes = new Uint8Array(await f.slice(at, at + fileChunk).arrayBuffer());
        let bin = "";
        for (let i = 0; i < bytes.length; i += 4096) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096));
        send({ type: "file_chunk", request: r.id, data: btoa(bin) });
      }
    }
  } catch {
    note.textContent = "This device could not read the file.";
    fileSending = false;
    $("files-pick").disabled = $("files-cancel").disabled = !mine();
  }
}

// fileAnswer is the runtime's word on the files sent: set on the page, or
// refused with why.
function fileAnswer(msg) {
  fileSending = false;
  $("files-note").textContent = msg.message;
  $("files-pick").value = "";
  $("files-pick").disabled = $("files-cancel").disabled = !mine();
  if (msg.type === "file_sent") $("files-done").textContent = msg.message;
}

function sizeWords(n) {
  if (n < 1024) return n + " bytes";
  if (n < 1 << 20) return (n / 1024).toFixed(1) + " KB";
  return (n / (1 << 20)).toFixed(1) + " MB";
}

$("files-pick").addEventListener("change", sendFiles);
$("files-cancel").addEventListener("click", () => {
  const r = state && state.file_request;
  if (r) send({ type: "file_cancel", request: r.id });
});

// --- downloads: offered here only, saved on this device ---

const incoming = new Map(); // download id -> {parts, got}

function showDownloads(msg) {
  const list = $("downloads-list");
  const ds = msg.downloads || [];
  $("downloads").hidden = !ds.length;
  const key = JSON.stringify(ds);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.textContent = "";
  for (const d of ds) {
    const li = document.createElement("li");
    const what = document.createElement("span");
    what.textContent = (d.host ? d.host + ": " : "") + d.name + (d.refused ? "" : " (" + sizeWords(d.size) + ")");
    li.append(what);
    if (d.refused) {
      const why = document.createElement("span");
      why.className = "why";
      why.textContent = " cannot be saved: " + d.refused;
      li.append(why);
    } else {
      const save = document.createElement("button");
      save.type = "button";
      save.textContent = "Save";
      save.dataset.download = d.id;
      save.addEventListener("click", () => {
        save.disabled = true;
        save.textContent = "Saving…";
        send({ type: "download_get", download: d.id });
      });
      li.append(" ", save);
    }
    list.append(li);
  }
}

// downloadChunk collects a download's bytes; once whole, the device saves
// them under the page's name for it.
function downloadChunk(msg) {
  let d = incoming.get(msg.id);
  if (!d || msg.at === 0) { d = { parts: [], got: 0 }; incoming.set(msg.id, d); }
  const bin = atob(msg.data || "");
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  d.parts.push(bytes);
  d.got += bytes.length;
  if (d.got < msg.size) return;
  incoming.delete(msg.id);
  const url = URL.createObjectURL(new Blob(d.parts, { type: msg.mime || "application/octet-stream" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = msg.name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  const b = document.querySelector('#downloads-list button[data-download="' + CSS.escape(msg.id) + '"]');
  if (b) { b.textContent = "Saved"; b.disabled = false; }
}
