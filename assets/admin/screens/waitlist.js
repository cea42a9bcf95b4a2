// The waitlist at the door: parties in order with live positions and wait
// estimates; add a party, call it, seat it at free tables, or let it go.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api, followEvents, session } from "/shared/api.js";
import { time } from "/shared/format.js";
import { Action, Badge, Dialog, Empty, Field, Notice } from "/shared/ui.js";
import { can } from "/admin/roles.js";

/** Estimates move with the clock even when nothing happens. */
const REFRESH_EVERY_MS = 30000;

function AddParty({ onSaved, onClose }) {
  const [form, setForm] = useState({ name: "", party_size: "2", phone: "", notes: "" });
  const [checked, setChecked] = useState({});
  const [problem, setProblem] = useState(null);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.value });
  async function save() {
    const missing = {};
    if (!form.name.trim()) missing.name = "Who is the party under?";
    if (!(Number(form.party_size) >= 1)) missing.party_size = "How many guests?";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    try {
      const ticket = await api.post("/queue", {
        name: form.name.trim(),
        party_size: Number(form.party_size),
        phone: form.phone.trim() || undefined,
        notes: form.notes.trim() || undefined,
      });
      onSaved(ticket);
    } catch (failed) {
      setProblem(failed);
    }
  }
  const error = (name) => checked[name] || problem?.field(name);
  return html`<${Dialog} title="Add a party" onClose=${onClose}>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <div class="form-grid">
        <${Field} label="Name" name="name" value=${form.name} error=${error("name")} onInput=${set("name")} />
        <${Field} label="Guests" name="party_size" type="number" min="1" inputmode="numeric" value=${form.party_size}
          error=${error("party_size")} onInput=${set("party_size")} />
        <${Field} label="Phone" name="phone" type="tel" value=${form.phone} error=${error("phone")} onInput=${set("phone")} />
      </div>
      <${Field} label="Notes" name="notes" value=${form.notes} error=${error("notes")} onInput=${set("notes")} />
      <div class="actions"><${Action} kind="primary" action=${save} data-action="save-party">Add to the waitlist<//>
        <button type="button" class="btn" onClick=${onClose}>Cancel</button></div>
    </form>
  <//>`;
}

/** Free tables to seat a party at, from the live seatmap. */
function SeatParty({ ticket, onSeated, onClose }) {
  const [tables, setTables] = useState(null);
  const [chosen, setChosen] = useState([]);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api.get("/tables/seatmap").then(
      (map) => setTables(map.floors.flatMap((f) => f.tables.filter((t) => t.state === "free" || t.state === "reserved_soon")
        .map((t) => ({ ...t, floor: f.name })))),
      setProblem,
    );
  }, []);
  const toggle = (id) => setChosen(chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id]);
  const seats = (tables || []).filter((t) => chosen.includes(t.id)).reduce((n, t) => n + t.seats, 0);
  async function seat() {
    if (!chosen.length) return setProblem({ message: "Choose at least one table.", errors: [] });
    try {
      await api.post(`/queue/${ticket.id}/seat`, { table_ids: chosen });
      onSeated();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<${Dialog} title=${`Seat ${ticket.name} (${ticket.party_size})`} onClose=${onClose}>
    <${Notice} problem=${problem} />
    ${tables === null ? html`<p class="muted">Loading tables…</p>` : tables.length ? html`
      <div class="table-choices">
        ${tables.map((t) => html`<button type="button" class=${`table-choice${chosen.includes(t.id) ? " chosen" : ""}`}
            aria-pressed=${chosen.includes(t.id)} data-table-name=${t.name} onClick=${() => toggle(t.id)}>
          <strong>${t.name}</strong><span>${t.seats} seats · ${t.floor}</span>
          ${t.state === "reserved_soon" ? html`<small>reserved ${time(t.reservation?.starts_at)}</small>` : null}
        </button>`)}
      </div>
      <p class=${seats && seats < ticket.party_size ? "field-error" : "muted"}>${seats} seats chosen for ${ticket.party_size} guests.</p>`
      : html`<${Empty}>No table is free right now.<//>`}
    <div class="actions"><${Action} kind="primary" action=${seat} data-action="confirm-seat">Seat the party<//>
      <button type="button" class="btn" onClick=${onClose}>Cancel</button></div>
  <//>`;
}

export function Waitlist({ role }) {
  const writable = can(role, "queueWrite");
  const [tickets, setTickets] = useState(null);
  const [problem, setProblem] = useState(null);
  const [adding, setAdding] = useState(false);
  const [seating, setSeating] = useState(null);
  const [added, setAdded] = useState(null);

  const reload = () => api.get("/queue?limit=200").then((page) => { setTickets(page.data); setProblem(null); }, setProblem);
  useEffect(() => {
    reload();
    const timer = setInterval(reload, REFRESH_EVERY_MS);
    const stop = followEvents((event) => event.event.startsWith("session.") && reload());
    return () => { clearInterval(timer); stop(); };
  }, []);

  async function move(ticket, verb) {
    try {
      await api.post(`/queue/${ticket.id}/${verb}`);
      reload();
    } catch (failed) {
      setProblem(failed);
    }
  }

  return html`
    <div class="screen-head"><h1>Waitlist</h1>
      ${writable ? html`<button type="button" class="btn primary" data-action="add-party" onClick=${() => setAdding(true)}>Add a party</button>` : null}
    </div>
    <${Notice} problem=${problem} />
    ${added ? html`<${Notice} kind="success">${added.name} is ${added.number}, ${added.quoted_wait_minutes ? `about ${added.quoted_wait_minutes} minutes` : "next in line"}.
      Their tracking link: ${location.origin}/api/v1/public/${session().tenant.slug}/queue/${added.tracking_token}<//>` : null}
    <section class="card">
      ${tickets === null ? html`<p class="muted">Loading…</p>` : tickets.length ? html`
        <table class="list"><thead><tr><th>#</th><th>Party</th><th class="num">Guests</th><th>Since</th><th>Status</th><th class="num">Wait</th><th></th></tr></thead><tbody>
          ${tickets.map((t) => html`<tr data-party=${t.name}>
            <td>${t.position ?? "–"}</td>
            <td><strong>${t.name}</strong> <span class="muted">${t.number}</span>${t.phone ? html`<div class="muted small">${t.phone}</div>` : null}
              ${t.notes ? html`<div class="muted small">${t.notes}</div>` : null}</td>
            <td class="num">${t.party_size}</td><td>${time(t.created_at)}</td><td><${Badge} status=${t.status} /></td>
            <td class="num">${t.estimated_wait_minutes ?? "–"} min</td>
            <td class="row-actions">${writable ? html`
              ${t.status === "waiting" ? html`<button type="button" class="btn small" data-action="call" onClick=${() => move(t, "call")}>Call</button>` : null}
              <button type="button" class="btn small primary" data-action="seat" onClick=${() => setSeating(t)}>Seat</button>
              <button type="button" class="btn small ghost" data-action="no-show" onClick=${() => move(t, "no-show")}>No-show</button>
              <button type="button" class="btn small ghost danger" data-action="cancel" onClick=${() => move(t, "cancel")}>Cancel</button>` : null}
            </td></tr>`)}
        </tbody></table>` : html`<${Empty}>Nobody is waiting.<//>`}
    </section>
    ${adding ? html`<${AddParty} onClose=${() => setAdding(false)} onSaved=${(t) => { setAdding(false); setAdded(t); reload(); }} />` : null}
    ${seating ? html`<${SeatParty} ticket=${seating} onClose=${() => setSeating(null)} onSeated=${() => { setSeating(null); reload(); }} />` : null}`;
}
