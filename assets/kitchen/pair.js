// Pairing this device with a setup key, where its QR code leads
// (`/kitchen/pair?code=…`): no login. A kitchen screen is then signed in as the
// device and goes to its board; any other device (a POS terminal, a phone) is
// shown its credential, once, to enter in its own settings.

import { html, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { pair, signInAsDevice } from "/shared/api.js";
import { Field, Notice } from "/shared/ui.js";

/** The role names a manager picks a setup key's role by. */
const ROLE = {
  manager: "Manager", cashier: "Cashier", server: "Server", host: "Host", kitchen: "Kitchen",
};

/** Selects the text of `element`, for copying by hand. */
function selectText(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

/** The credential of a device that is not a kitchen screen, shown this once. */
function Credential({ paired }) {
  const [copied, setCopied] = useState(null);

  async function copy() {
    const key = document.getElementById("device-key");
    try {
      // The clipboard API needs a secure origin; a box on the LAN is plain http.
      if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(paired.api_key);
      else {
        selectText(key);
        if (!document.execCommand("copy")) throw new Error("copy refused");
      }
      setCopied(true);
    } catch {
      selectText(key);
      setCopied(false);
    }
  }

  return html`<div class="pair-done" data-paired=${paired.device.role}>
    <${Notice} kind="success">Paired as “${paired.device.name}” (${ROLE[paired.device.role] || paired.device.role}) with ${paired.tenant.name}.<//>
    <p><strong>Enter this key in the terminal's settings; it is shown once.</strong></p>
    <p class="pair-label">Device key</p>
    <code id="device-key" class="pair-key" data-key>${paired.api_key}</code>
    <div class="actions">
      <button type="button" class="btn primary" data-action="copy" onClick=${copy}>Copy</button>
      ${copied === true ? html`<span class="muted" role="status">Copied.</span>`
        : copied === false ? html`<span class="muted" role="status">The key is selected: copy it with the keyboard or the menu.</span>`
        : null}
    </div>
    <p class="muted">Leaving this page hides the key for good. If it is lost, a manager revokes this device and makes a new setup key.</p>
  </div>`;
}

export function Pair({ onSignedIn }) {
  const [code, setCode] = useState((new URLSearchParams(location.search).get("code") || "").toUpperCase());
  const [name, setName] = useState("Kitchen screen");
  const [checked, setChecked] = useState({});
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const [paired, setPaired] = useState(null);

  async function submit(event) {
    event.preventDefault();
    const missing = {};
    if (!code.trim()) missing.code = "Enter the setup key's code.";
    if (!name.trim()) missing.device_name = "Name this device.";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    setBusy(true);
    setProblem(null);
    try {
      const answer = await pair(code.trim(), name.trim());
      if (answer.device.role === "kitchen") {
        signInAsDevice(answer);
        onSignedIn();
      } else {
        setPaired(answer);
      }
    } catch (failed) {
      setProblem(failed);
    } finally {
      setBusy(false);
    }
  }

  return html`<main class="kds-login kds-pair">
    <form class="card narrow" onSubmit=${submit} novalidate>
      <div class="brand big"><span class="logo">B</span><strong>Brigade</strong></div>
      <h1>Pair this device</h1>
      ${paired ? html`<${Credential} paired=${paired} />` : html`
        <p class="muted">A manager makes the setup key on the Devices screen. It works once, for a short while.</p>
        <${Notice} problem=${problem} />
        <${Field} label="Setup code" name="code" value=${code} autocomplete="off" autocapitalize="characters" spellcheck="false"
          class="pair-code" error=${checked.code || problem?.field("code")} onInput=${(e) => setCode(e.target.value.toUpperCase())} />
        <${Field} label="Device name" name="device_name" value=${name} autocomplete="off" hint="How it shows in the list of devices."
          error=${checked.device_name || problem?.field("device_name")} onInput=${(e) => setName(e.target.value)} />
        <button type="submit" class="btn primary wide" data-action="pair" disabled=${busy}>${busy ? "Pairing…" : "Pair"}</button>`}
    </form>
  </main>`;
}
