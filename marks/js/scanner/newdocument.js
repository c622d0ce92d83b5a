// newdocument.js: which new documents the guard arms at their start (see
// armNew in guard.js): the Company's, over https, and a new window's
// initial about:blank.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const NewDocument = (() => {
    const docDomain = Object.getOwnPropertyDescriptor(Document.prototype, "domain").get;
    function companyDocument(domain) {
      // The host of the document's origin ("" when opaque), inherited by
      // about:blank and srcdoc frames; nothing is parsed yet, so no named
      // element can shadow it.
      let host = (docDomain.call(document) || "").toLowerCase();
      if (host.endsWith(".")) host = host.slice(0, -1);
      if (typeof domain !== "string" || domain === "" || !(host === domain || host.endsWith("." + domain))) return false;
      // Over https only (or http on a loopback name), as the runtime's
      // Company frames are (spec.MayDeclare): a take stands down only
      // those, so a guard armed elsewhere could meet the User's input.
      const scheme = window.origin.split(":")[0] + ":"; // an about:blank's is its opener's
      return scheme === "https:" || (scheme === "http:" && /^(localhost|.*\.localhost|127(\.\d+){3}|\[::1\])$/.test(host));
    }
    const docURL = Object.getOwnPropertyDescriptor(Document.prototype, "URL").get;
    // initialBlank says the document is the initial about:blank of a
    // window a script opened and keeps as its opener (window.open(url)):
    // Chromium keeps its Window, and this world's context, for the first
    // same-origin document the window loads, and runs no script of a new
    // document there, so the guard armed now is the one that document
    // meets.
    function initialBlank() {
      return docURL.call(document) === "about:blank" && window.top === window && window.opener !== null && window.history.length <= 1;
    }
    return { companyDocument, initialBlank };
  })();
