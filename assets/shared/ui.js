// Small building blocks every screen uses: fields that show the server's field
// errors, buttons that show progress, notices, status badges and pagers.

import { html, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { titleCase } from "/shared/format.js";

export { html };

/** A labelled input; `error` is shown under it and marks it invalid. */
export function Field({ label, name, error, hint, children, ...input }) {
  const id = `field-${name}`;
  return html`
    <div class=${`field${error ? " invalid" : ""}`}>
      <label for=${id}>${label}</label>
      ${children || html`<input id=${id} name=${name} aria-invalid=${error ? "true" : "false"} ...${input} />`}
      ${error ? html`<p class="field-error" role="alert" data-error-for=${name}>${error}</p>` : hint ? html`<p class="hint">${hint}</p>` : null}
    </div>`;
}

export function Select({ label, name, error, options, ...input }) {
  const id = `field-${name}`;
  return html`
    <${Field} label=${label} name=${name} error=${error}>
      <select id=${id} name=${name} ...${input}>
        ${options.map(([value, text]) => html`<option value=${value}>${text}</option>`)}
      </select>
    <//>`;
}

/** A button that runs `action`, disabled and labelled busy while it runs. */
export function Action({ action, children, kind = "", busyLabel, ...rest }) {
  const [busy, setBusy] = useState(false);
  async function run(event) {
    event.preventDefault();
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  }
  return html`<button type="button" class=${`btn ${kind}`} disabled=${busy} aria-busy=${busy} onClick=${run} ...${rest}>
    ${busy ? busyLabel || "Working…" : children}
  </button>`;
}

export function Notice({ problem, kind = "error", children }) {
  if (!problem && !children) return null;
  // Field errors are shown beside their fields; the notice only points to them.
  // Server messages start lower-case, as in an API: a notice is a sentence.
  const message = problem?.message || "";
  const text = children || (problem.errors?.length
    ? "Check the fields marked below."
    : message.charAt(0).toUpperCase() + message.slice(1));
  return html`<div class=${`notice ${kind}`} role=${kind === "error" ? "alert" : "status"}>${text}</div>`;
}

const BADGE = {
  pending: "amber", confirmed: "blue", preparing: "blue", ready: "green", served: "green",
  completed: "grey", cancelled: "red", waiting: "amber", called: "blue", seated: "green",
  no_show: "red", checked_in: "green", open: "green", closed: "grey", delivered: "green",
  failed: "red", free: "green", occupied: "amber", reserved_soon: "blue", out_of_service: "grey",
  received: "blue", processed: "green", duplicate: "grey", rejected: "red", parked: "amber",
};

export function Badge({ status }) {
  return html`<span class=${`badge ${BADGE[status] || "grey"}`}>${titleCase(status)}</span>`;
}

/** Previous/next for cursor lists: `cursors` is the stack of cursors seen. */
export function Pager({ cursors, next, onPage }) {
  return html`<div class="pager">
    <button type="button" class="btn" disabled=${cursors.length <= 1} onClick=${() => onPage(cursors.slice(0, -1))}>← Newer</button>
    <button type="button" class="btn" disabled=${!next} onClick=${() => onPage([...cursors, next])}>Older →</button>
  </div>`;
}

export function Empty({ children }) {
  return html`<p class="empty">${children}</p>`;
}

/** A dialog over the screen; Escape or the close button dismisses it. */
export function Dialog({ title, onClose, children }) {
  return html`<div class="overlay" onClick=${(e) => e.target === e.currentTarget && onClose()}
      onKeyDown=${(e) => e.key === "Escape" && onClose()}>
    <div class="dialog" role="dialog" aria-modal="true" aria-label=${title}>
      <header><h2>${title}</h2><button type="button" class="btn ghost" aria-label="Close" onClick=${onClose}>✕</button></header>
      ${children}
    </div>
  </div>`;
}

/**
 * A button that asks before acting: the first press shows `question` with
 * confirm and keep buttons, so nothing is changed by a stray tap.
 */
export function Confirm({ question, confirmLabel, action, children, kind = "", ...rest }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return html`<button type="button" class=${`btn ${kind}`} onClick=${() => setAsking(true)} ...${rest}>${children}</button>`;
  }
  return html`<span class="confirm" role="group" aria-label=${question}>
    <span>${question}</span>
    <${Action} kind="danger small" action=${async () => { await action(); setAsking(false); }} data-action="confirm">${confirmLabel}<//>
    <button type="button" class="btn small" onClick=${() => setAsking(false)}>Keep</button>
  </span>`;
}
