// host.js: a minimal MCP Apps host (io.modelcontextprotocol/ui,
// 2026-01-26), written from the specification for the tests: it renders
// the app's ui:// HTML in a sandboxed iframe (scripts only, an opaque
// origin) under the CSP the resource declares, answers ui/initialize,
// hands the app a tool result, and records ui/message and
// ui/request-display-mode, and ui/open-link (whose URL the test opens
// top-level, as a host opens a link in the User's browser).
"use strict";
window.host = { initialized: false, messages: [], modes: [], methods: [], links: [] };
const frame = document.getElementById("app");
let pending = null;
function post(msg) { frame.contentWindow.postMessage(msg, "*"); }
function deliverNow(result) {
  post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: {} } });
  post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result });
}
window.addEventListener("message", (ev) => {
  if (ev.source !== frame.contentWindow) return;
  const m = ev.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.method) host.methods.push(m.method);
  switch (m.method) {
    case "ui/initialize":
      post({ jsonrpc: "2.0", id: m.id, result: {
        protocolVersion: m.params.protocolVersion,
        hostInfo: { name: "poppy-test-host", version: "1" },
        hostCapabilities: { message: { text: {} }, serverTools: {} },
        hostContext: { displayMode: "inline", availableDisplayModes: ["inline", "fullscreen"] },
      } });
      break;
    case "ui/notifications/initialized":
      host.initialized = true;
      if (pending) { deliverNow(pending); pending = null; }
      break;
    case "ui/message":
      host.messages.push(m.params);
      post({ jsonrpc: "2.0", id: m.id, result: {} });
      break;
    case "ui/request-display-mode":
      host.modes.push(m.params.mode);
      document.body.dataset.mode = m.params.mode;
      post({ jsonrpc: "2.0", id: m.id, result: { mode: m.params.mode } });
      break;
    case "ui/open-link":
      host.links.push(m.params.url);
      post({ jsonrpc: "2.0", id: m.id, result: {} });
      break;
    default:
      if (m.id !== undefined && m.method) post({ jsonrpc: "2.0", id: m.id, result: {} });
  }
});
// render shows the app's HTML with its CSP (as a host builds it from
// _meta.ui.csp).
window.render = (html, csp) => {
  host.initialized = false;
  const meta = '<meta http-equiv="Content-Security-Policy" content="' + csp + '">';
  frame.srcdoc = html.replace("<head>", "<head>" + meta);
};
// deliver hands the app a tool result, once it has initialized.
window.deliver = (result) => { if (host.initialized) deliverNow(result); else pending = result; };
