// pair.js: the pairing page's button. It asks the runtime for the
// registration's options (spending the link), has this device make a
// passkey with user verification, and sends the new credential back.
"use strict";
(() => {
  const go = document.getElementById("go"), why = document.getElementById("why"), done = document.getElementById("done");
  const fromB64u = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const toB64u = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const post = async (step, body) => {
    const r = await fetch(location.pathname + "/" + step, {
      method: "POST", credentials: "omit", cache: "no-store",
      headers: { "Content-Type": "application/json", "X-Poppy-Pair": "1" }, body: JSON.stringify(body || {}),
    });
    const j = await r.json();
    if (!r.ok) throw new Error(j.error || "The runtime refused the pairing.");
    return j;
  };
  go.addEventListener("click", async () => {
    go.disabled = true;
    why.textContent = "";
    try {
      if (!window.PublicKeyCredential) throw new Error("This browser cannot make a passkey here.");
      const opts = (await post("begin")).publicKey;
      opts.challenge = fromB64u(opts.challenge);
      opts.user.id = fromB64u(opts.user.id);
      for (const c of opts.excludeCredentials || []) c.id = fromB64u(c.id);
      const cred = await navigator.credentials.create({ publicKey: opts });
      const r = cred.response;
      const res = await post("finish", { name: document.getElementById("name").value.trim(), credential: {
        id: cred.id, rawId: toB64u(cred.rawId), type: cred.type,
        response: {
          attestationObject: toB64u(r.attestationObject), clientDataJSON: toB64u(r.clientDataJSON),
          transports: r.getTransports ? r.getTransports() : [],
        },
        clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      } });
      done.textContent = "Paired. This device's passkey id is " + res.id + ". You can close this page.";
      go.hidden = true;
    } catch (err) {
      why.textContent = err && err.message ? err.message : "The pairing did not finish.";
      if (err && err.name === "NotAllowedError") why.textContent = "The device did not make a passkey (cancelled, or timed out). This link is spent: make a new one in your terminal.";
    }
  });
})();
