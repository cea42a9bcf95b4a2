// Integrations: the partners that send Brigade their orders and payments (and,
// at /admin/integrations/messages, what they sent); where Brigade's own events
// are sent and whether, the signing secret (shown once, after it is set or
// rotated), and every delivery with its attempts; failed ones can be sent again.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { dateTime, titleCase } from "/shared/format.js";
import { Action, Badge, Confirm, Empty, Field, Notice, Pager, Select } from "/shared/ui.js";
import { Messages } from "/admin/screens/messages.js";
import { Partners } from "/admin/screens/partners.js";

function SecretOnce({ secret }) {
  const [copied, setCopied] = useState(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("Copied.");
    } catch {
      setCopied("Select the secret and copy it by hand.");
    }
  }
  return html`<div class="notice info" data-panel="secret">
    <p><strong>The signing secret, shown this once.</strong>${" "}Store it in the receiving system now: it verifies
      the <code>X-Service-Signature</code> header of every delivery.</p>
    <p class="secret" data-secret>${secret}</p>
    <div class="actions"><button type="button" class="btn small" data-action="copy-secret" onClick=${copy}>Copy</button>
      ${copied ? html`<span>${copied}</span>` : null}</div>
  </div>`;
}

function Endpoint() {
  const [endpoint, setEndpoint] = useState(null);
  const [form, setForm] = useState({ url: "", enabled: true });
  const [secret, setSecret] = useState(null);
  const [problem, setProblem] = useState(null);
  const [saved, setSaved] = useState(null);
  const [missing, setMissing] = useState(null);
  useEffect(() => {
    api.get("/settings/webhook").then((e) => { setEndpoint(e); setForm({ url: e.url || "", enabled: e.url ? e.enabled : true }); }, setProblem);
  }, []);
  async function save() {
    if (!/^https?:\/\/\S+$/.test(form.url.trim())) return setMissing("Enter the receiver's address, starting with https://");
    setMissing(null);
    try {
      const changed = await api.put("/settings/webhook", { url: form.url.trim(), enabled: form.enabled });
      setEndpoint(changed);
      if (changed.secret) setSecret(changed.secret);
      setSaved("Saved.");
      setProblem(null);
    } catch (failed) {
      setProblem(failed);
    }
  }
  async function rotate() {
    try {
      const changed = await api.post("/settings/webhook/rotate-secret");
      setEndpoint(changed);
      setSecret(changed.secret);
      setProblem(null);
    } catch (failed) {
      setProblem(failed);
    }
  }
  async function test() {
    try {
      const sent = await api.post("/webhooks/test");
      setSaved(`Test event ${sent.event_id} queued.`);
    } catch (failed) {
      setProblem(failed);
    }
  }
  if (!endpoint) return html`<section class="card"><${Notice} problem=${problem} /><p class="muted">Loading…</p></section>`;
  return html`<section class="card">
    <h2>Webhook endpoint</h2>
    <p class="muted">Every order, seating and reservation change is sent, signed, to this address.</p>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    ${saved ? html`<${Notice} kind="success">${saved}<//>` : null}
    ${secret ? html`<${SecretOnce} secret=${secret} />` : null}
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <${Field} label="Receiver URL" name="url" type="url" placeholder="https://example.com/brigade-events" value=${form.url}
        error=${missing || problem?.field("url")} onInput=${(e) => setForm({ ...form, url: e.target.value })} />
      <label class="check"><input type="checkbox" name="enabled" checked=${form.enabled}
        onChange=${(e) => setForm({ ...form, enabled: e.target.checked })} /> Send events</label>
      <div class="actions">
        <${Action} kind="primary" action=${save} data-action="save-endpoint">Save<//>
        ${endpoint.url ? html`
          <${Confirm} question="Signatures with the old secret stop validating at once." confirmLabel="Rotate now"
            action=${rotate} data-action="rotate-secret">Rotate secret<//>
          <${Action} action=${test} data-action="send-test">Send test event<//>
          <span class="muted">Secret ends in <code>${endpoint.secret_last4}</code></span>` : null}
      </div>
    </form>
  </section>`;
}

function Attempts({ delivery }) {
  if (!delivery.attempts.length) return html`<p class="muted">No attempt yet.</p>`;
  return html`<table class="list attempts"><thead><tr><th>When</th><th>Answer</th><th class="num">Took</th><th>First bytes</th></tr></thead><tbody>
    ${delivery.attempts.map((a) => html`<tr><td>${dateTime(a.attempted_at)}</td>
      <td>${a.status_code ? `HTTP ${a.status_code}` : "—"}${a.error_class ? html` <span class="badge red">${titleCase(a.error_class)}</span>` : html` <span class="badge green">OK</span>`}</td>
      <td class="num">${a.duration_ms} ms</td><td class="small muted">${a.response_snippet || ""}</td></tr>`)}
  </tbody></table>`;
}

function DeliveryRow({ delivery, onRetried }) {
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState(null);
  async function retry() {
    try {
      onRetried(await api.post(`/webhooks/deliveries/${delivery.event_id}/retry`));
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<tbody class=${delivery.status === "failed" ? "failed" : ""} data-delivery=${delivery.event_id}>
    <tr>
      <td><button type="button" class="btn ghost small" aria-expanded=${open} onClick=${() => setOpen(!open)}>${open ? "▾" : "▸"}</button></td>
      <td><strong>${delivery.event}</strong><div class="muted small">${delivery.event_id}</div></td>
      <td>${dateTime(delivery.created_at)}</td><td><${Badge} status=${delivery.status} /></td>
      <td class="num">${delivery.attempt_count}</td>
      <td class="small">${delivery.status === "pending" && delivery.next_attempt_at ? `next ${dateTime(delivery.next_attempt_at)}` : delivery.last_error || ""}</td>
      <td class="row-actions">${delivery.status !== "delivered" ? html`<${Action} kind="small" action=${retry} data-action="retry">Retry now<//>` : null}</td>
    </tr>
    ${problem ? html`<tr><td colspan="7"><${Notice} problem=${problem} /></td></tr>` : null}
    ${open ? html`<tr class="detail"><td></td><td colspan="6"><${Attempts} delivery=${delivery} />
      <details><summary>Payload</summary><pre>${JSON.stringify(delivery.payload, null, 2)}</pre></details></td></tr>` : null}
  </tbody>`;
}

function Deliveries({ focus }) {
  const [status, setStatus] = useState("");
  const [cursors, setCursors] = useState([null]);
  const [page, setPage] = useState(null);
  const [focused, setFocused] = useState(null);
  const [problem, setProblem] = useState(null);
  const reload = () => {
    const params = new URLSearchParams({ limit: "20" });
    if (status) params.set("status", status);
    const cursor = cursors[cursors.length - 1];
    if (cursor) params.set("cursor", cursor);
    return api.get(`/webhooks/deliveries?${params}`).then((p) => { setPage(p); setProblem(null); }, setProblem);
  };
  useEffect(() => { reload(); }, [status, cursors]);
  useEffect(() => { if (focus) api.get(`/webhooks/deliveries/${focus}`).then(setFocused, setProblem); }, [focus]);
  // The list and the focused delivery may still be loading when a retry answers.
  const replace = (changed) => {
    setPage((p) => p && { ...p, data: p.data.map((d) => (d.event_id === changed.event_id ? changed : d)) });
    setFocused((f) => (f?.event_id === changed.event_id ? changed : f));
  };
  const table = (rows) => html`<table class="list deliveries"><thead><tr><th></th><th>Event</th><th>Created</th><th>Status</th>
    <th class="num">Attempts</th><th>Last</th><th></th></tr></thead>
    ${rows.map((d) => html`<${DeliveryRow} key=${d.event_id} delivery=${d} onRetried=${replace} />`)}</table>`;
  return html`
    ${focused ? html`<section class="card"><h2>Delivery ${focused.event_id}</h2>${table([focused])}<${Attempts} delivery=${focused} /></section>` : null}
    <section class="card">
      <div class="screen-head"><h2>Deliveries</h2>
        <${Select} label="Status" name="delivery-status" value=${status} onChange=${(e) => { setStatus(e.target.value); setCursors([null]); }}
          options=${[["", "All"], ["pending", "Pending"], ["delivered", "Delivered"], ["failed", "Failed"]]} />
      </div>
      <${Notice} problem=${problem} />
      ${page === null ? html`<p class="muted">Loading…</p>` : page.data.length ? html`${table(page.data)}
        <${Pager} cursors=${cursors} next=${page.next_cursor} onPage=${setCursors} />` : html`<${Empty}>No deliveries yet.<//>`}
    </section>`;
}

export function Integrations({ rest }) {
  if (rest[0] === "messages") {
    return html`<div class="screen-head"><div><a href="/admin/integrations" class="muted">← Integrations</a>
      <h1>Partners' messages</h1></div></div>
      <${Messages} />`;
  }
  const focus = rest[0] === "deliveries" ? rest[1] : null;
  return html`<div class="screen-head"><h1>Integrations</h1></div>
    <${Partners} />
    <${Endpoint} />
    <${Deliveries} focus=${focus} />`;
}
