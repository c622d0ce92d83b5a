// webmcpdefs.js: the WebMCP tool definitions of the top document as the
// page wrote them, for check to validate: each declarative form (a form
// with toolname or tooldescription) with its fields, and the scripts where
// imperative tools are registered (an inline script's text; a same-origin
// script's source, fetched as the page would), and the document as served
// (fetched again, from the cache when it is there). It changes nothing.
// Arguments: the most characters of a script to return; whether the
// page has imperative tools to locate (else no script is fetched). Nothing
// is fetched for a page with no tool to validate.
async function (maxScript, imperative) {
  const startTag = (el) => {
    const h = el.outerHTML, end = h.indexOf(">");
    return (end < 0 ? h : h.slice(0, end + 1)).slice(0, 200);
  };
  // A selector that matches exactly el in its document.
  const selectorOf = (el) => {
    if (el.id && document.querySelectorAll("#" + CSS.escape(el.id)).length === 1) return "#" + CSS.escape(el.id);
    const parts = [];
    for (let e = el; e && e.parentElement; e = e.parentElement) {
      parts.unshift(e.localName + ":nth-child(" + (Array.prototype.indexOf.call(e.parentElement.children, e) + 1) + ")");
    }
    return "html > " + parts.join(" > ");
  };
  const notParameters = new Set(["submit", "button", "reset", "image", "hidden"]);
  const forms = [];
  for (const f of document.querySelectorAll("form[toolname], form[tooldescription]")) {
    const fields = [];
    for (const el of f.elements) {
      const tag = el.localName, type = (el.getAttribute("type") || "").toLowerCase();
      if (!["input", "select", "textarea"].includes(tag) || (tag === "input" && notParameters.has(type))) continue;
      const labelled = (el.labels && el.labels.length > 0) || ["aria-label", "aria-labelledby", "toolparamdescription", "title"].some((a) => (el.getAttribute(a) || "").trim() !== "");
      fields.push({ name: el.getAttribute("name") || "", type: tag === "input" ? type || "text" : tag, labelled, selector: selectorOf(el), html: startTag(el) });
    }
    forms.push({
      has_name: f.hasAttribute("toolname"), name: f.getAttribute("toolname") || "",
      has_description: f.hasAttribute("tooldescription"), description: (f.getAttribute("tooldescription") || "").trim(),
      selector: selectorOf(f), html: startTag(f), fields,
    });
  }
  const scripts = [];
  if (!imperative && forms.length === 0) return { forms, scripts, source: "" };
  for (const s of imperative ? document.scripts : []) {
    if (!s.src) {
      scripts.push({ src: "", text: s.text.slice(0, maxScript) });
      continue;
    }
    let text = "";
    try {
      if (new URL(s.src).origin === location.origin) {
        const r = await fetch(s.src, { credentials: "same-origin", cache: "force-cache" });
        if (r.ok) text = (await r.text()).slice(0, maxScript);
      }
    } catch {}
    scripts.push({ src: s.src, text });
  }
  // The document as served (for lines), from the cache when it is there.
  let source = "";
  try {
    const r = await fetch(location.href, { credentials: "same-origin", cache: "force-cache" });
    if (r.ok) source = (await r.text()).slice(0, maxScript);
  } catch {}
  return { forms, scripts, source };
}
