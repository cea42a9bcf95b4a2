// Partners' messages: every message a delivery platform or payment gateway
// sent, newest first, by status; each one's headers and raw body, and a retry
// for the parked and failed ones.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { dateTime, titleCase } from "/shared/format.js";
import { Action, Badge, Empty, Notice, Pager } from "/shared/ui.js";

const STATUSES = [
  ["", "All"], ["parked", "Parked"], ["failed", "Failed"], ["rejected", "Rejected"],
  ["processed", "Processed"], ["duplicate", "Duplicate"], ["received", "Waiting"],
];

/** The status filter of the address, `?status=parked`. */
function statusOfAddress() {
  const status = new URLSearchParams(location.search).get("status") || "";
  return STATUSES.some(([value]) => value === status) ? status : "";
}

function Detail({ message }) {
  const headers = Object.entries(message.headers || {});
  return html`<div class="message-detail" data-panel="message-detail">
    <dl class="facts small">
      <dt>Message</dt><dd><code>${message.id}</code></dd>
      ${message.remote_address ? html`<dt>From</dt><dd>${message.remote_address}</dd>` : null}
      <dt>Attempts</dt><dd data-attempts>${message.attempts}</dd>
      ${message.next_attempt_at ? html`<dt>Next attempt</dt><dd>${dateTime(message.next_attempt_at)}</dd>` : null}
      ${message.processed_at ? html`<dt>Processed</dt><dd>${dateTime(message.processed_at)}</dd>` : null}
      ${message.duplicate_of ? html`<dt>Repeats</dt><dd><code>${message.duplicate_of}</code></dd>` : null}
    </dl>
    <h3>Headers</h3>
    ${headers.length ? html`<dl class="facts headers small" data-headers>${headers.map(([name, value]) => html`
      <dt><code>${name}</code></dt><dd><code>${typeof value === "string" ? value : JSON.stringify(value)}</code></dd>`)}</dl>`
      : html`<p class="muted small">None kept.</p>`}
    <h3>Body</h3>
    <pre class="raw" data-body>${message.body || "(empty)"}</pre>
  </div>`;
}

function MessageRow({ message, onChanged }) {
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState(null);
  async function retry() {
    try {
      const retried = await api.post(`/integrations/messages/${message.id}/retry`);
      setProblem(null);
      onChanged(retried);
      // The worker takes it at once; show what became of it.
      setTimeout(() => api.get(`/integrations/messages/${message.id}`).then(onChanged, setProblem), 1000);
    } catch (failed) {
      setProblem(failed);
    }
  }
  const retriable = ["parked", "failed"].includes(message.status);
  return html`<tbody class=${`status-${message.status}`} data-message=${message.id} data-event=${message.event_id || ""}>
    <tr>
      <td><button type="button" class="btn ghost small" aria-expanded=${open} aria-label="Show the message" data-action="open-message"
        onClick=${() => setOpen(!open)}>${open ? "▾" : "▸"}</button></td>
      <td class="nowrap">${dateTime(message.received_at)}</td>
      <td><strong>${titleCase(message.name)}</strong><div class="muted small">${titleCase(message.kind)}</div></td>
      <td class="event-id"><code title=${message.event_id || ""}>${message.event_id || "—"}</code></td>
      <td data-status><${Badge} status=${message.status} /></td>
      <td class="wrap small">${message.reason || ""}</td>
      <td class="nowrap">${message.order_id ? html`<a href=${`/admin/orders/${message.order_id}`} data-order>Order</a>` : ""}</td>
      <td class="row-actions">${retriable ? html`<${Action} kind="small" action=${retry} data-action="retry-message">Retry<//>` : null}</td>
    </tr>
    ${problem ? html`<tr><td colspan="8"><${Notice} problem=${problem} /></td></tr>` : null}
    ${open ? html`<tr class="detail"><td></td><td colspan="7"><${Detail} message=${message} /></td></tr>` : null}
  </tbody>`;
}

export function Messages() {
  const [status, setStatus] = useState(statusOfAddress());
  const [cursors, setCursors] = useState([null]);
  const [page, setPage] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    const params = new URLSearchParams({ limit: "20" });
    if (status) params.set("status", status);
    const cursor = cursors[cursors.length - 1];
    if (cursor) params.set("cursor", cursor);
    api.get(`/integrations/messages?${params}`).then((p) => { setPage(p); setProblem(null); }, setProblem);
  }, [status, cursors]);
  function choose(value) {
    setStatus(value);
    setCursors([null]);
    setPage(null);
    history.replaceState(null, "", `/admin/integrations/messages${value ? `?status=${value}` : ""}`);
  }
  const replace = (changed) => setPage((p) => p && { ...p, data: p.data.map((m) => (m.id === changed.id ? changed : m)) });
  return html`<section class="card" data-panel="messages">
    <div class="tabs" role="tablist" aria-label="Status">
      ${STATUSES.map(([value, label]) => html`<button type="button" role="tab" class="tab" aria-selected=${status === value}
        data-filter=${value || "all"} onClick=${() => choose(value)}>${label}</button>`)}
    </div>
    <${Notice} problem=${problem} />
    ${page === null ? html`<p class="muted">Loading…</p>` : page.data.length ? html`
      <table class="list messages"><thead><tr><th></th><th>Received</th><th>Partner</th><th>Event</th><th>Status</th>
        <th>Reason</th><th>Order</th><th></th></tr></thead>
        ${page.data.map((m) => html`<${MessageRow} key=${m.id} message=${m} onChanged=${replace} />`)}
      </table>
      <${Pager} cursors=${cursors} next=${page.next_cursor} onPage=${setCursors} />`
      : html`<${Empty}>${status ? `No ${STATUSES.find(([v]) => v === status)[1].toLowerCase()} messages.` : "No message from a partner yet."}<//>`}
  </section>`;
}
