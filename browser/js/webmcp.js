// webmcp reads, from the browser's own world, whether the top document has
// the WebMCP API (document.modelContext) and is a secure context, where the
// API runs.
function webmcp() {
  return { api: "modelContext" in document, secure: isSecureContext };
}
