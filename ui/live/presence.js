// presence.js: the User's proof of presence in this view. Until the
// runtime has it, the view is the offer card alone: no picture, no page.
// The proof is a passkey ceremony (WebAuthn, user verification required)
// whose challenge the runtime made for this connection and the offer open
// now: "presence_begin" asks for it, "presence_challenge" brings it, the
// device's answer goes back as "presence", and the next state says
// proved (or "presence_refused" says why not).

let proving = false, takeAfterProof = false;
const proved = () => !!state && !!state.presence && state.presence.proved;

const fromB64u = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const toB64u = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

// prove starts the ceremony; thenTake: take control once proved.
function prove(thenTake) {
  if (proving || !connected) return;
  if (!window.PublicKeyCredential) {
    status.textContent = "This browser cannot use a passkey here. Open the live view in a browser that can (on this computer, at localhost).";
    return;
  }
  proving = true;
  takeAfterProof = thenTake;
  status.textContent = "";
  showPresence();
  send({ type: "presence_begin" });
}

async function answerChallenge(options) {
  const pk = options.publicKey;
  pk.challenge = fromB64u(pk.challenge);
  for (const c of pk.allowCredentials || []) c.id = fromB64u(c.id);
  let cred;
  try {
    cred = await navigator.credentials.get({ publicKey: pk });
  } catch (err) {
    presenceRefused("The passkey check did not finish" + (err && err.name === "NotAllowedError" ? " (cancelled, or timed out)." : ": " + (err && err.message || err)));
    return;
  }
  const r = cred.response;
  send({ type: "presence", credential: {
    id: cred.id, rawId: toB64u(cred.rawId), type: cred.type,
    response: {
      authenticatorData: toB64u(r.authenticatorData), clientDataJSON: toB64u(r.clientDataJSON),
      signature: toB64u(r.signature), userHandle: r.userHandle ? toB64u(r.userHandle) : null,
    },
    clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
  } });
}

function presenceRefused(message) {
  proving = false;
  takeAfterProof = false;
  status.textContent = message;
  showPresence();
}

// afterState follows a new state: a proof just made ends the ceremony,
// and takes control when that is what the User asked for.
function afterState() {
  if (!proved()) return;
  proving = false;
  if (takeAfterProof) {
    takeAfterProof = false;
    if (state.controller !== "user" || state.viewer !== "you") send({ type: "take" });
  }
}

// showPresence shows the card's line about the proof.
function showPresence() {
  const p = (state && state.presence) || {};
  document.body.classList.toggle("card", !!state && !p.proved);
  $("card-company").textContent = state ? "For " + (state.company || "the Company") : "";
  const line = $("presence-text");
  if (p.proved) { line.textContent = ""; return; }
  const offer = state && state.offer;
  if (proving) line.textContent = "Confirm with your passkey on this device…";
  else if (p.unpaired) line.textContent = p.passkeys ?
    "This device was unpaired (poppy-browser pair --revoke), so this page no longer shows the browser. Confirm it's you with a passkey still paired to see it again." :
    "This device was unpaired (poppy-browser pair --revoke), so this page no longer shows the browser. Pair a device again from your terminal (poppy-browser pair) to see it.";
  else if (!p.passkeys) line.textContent = "No device is paired with this runtime yet. Pair this one from your terminal (poppy-browser pair, or p in the terminal UI), then come back.";
  else line.textContent = (offer ? "To take control" : "To see the browser") + ", confirm it's you with the passkey you paired. Until then this page shows nothing of the browser.";
  const exp = p.expires ? new Date(p.expires) : null;
  $("expiry").textContent = exp ? "This view's login ends at " + exp.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) + " if you don't take control." : "";
  $("prove").hidden = !!offer;
  $("prove").disabled = $("take").disabled = proving || !connected || !p.passkeys;
}
