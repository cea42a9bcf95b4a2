// The kitchen's set-up: its stations with their warn and late thresholds, the
// ticket times of the last week, and the way to the kitchen display.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { clock, titleCase } from "/shared/format.js";
import { Action, Confirm, Dialog, Empty, Field, Notice, Select } from "/shared/ui.js";
import { can } from "/admin/roles.js";

function StationForm({ station, onSaved, onClose }) {
  const [form, setForm] = useState(
    station
      ? { ...station, warn_after_minutes: String(station.warn_after_minutes), late_after_minutes: String(station.late_after_minutes) }
      : { name: "", kind: "prep", warn_after_minutes: "8", late_after_minutes: "15", active: true },
  );
  const [checked, setChecked] = useState({});
  const [problem, setProblem] = useState(null);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
  async function save() {
    const missing = {};
    if (!form.name.trim()) missing.name = "Name the station, such as Grill.";
    const warn = Number(form.warn_after_minutes);
    const late = Number(form.late_after_minutes);
    if (!Number.isInteger(warn) || warn < 1) missing.warn_after_minutes = "Enter whole minutes.";
    if (!Number.isInteger(late) || late <= warn) missing.late_after_minutes = "Enter more minutes than the warning.";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    const body = { name: form.name.trim(), kind: form.kind, warn_after_minutes: warn, late_after_minutes: late, active: form.active };
    try {
      if (station) await api.patch(`/kitchen/stations/${station.id}`, body);
      else await api.post("/kitchen/stations", body);
      onSaved();
    } catch (failed) {
      setProblem(failed);
    }
  }
  const error = (name) => checked[name] || problem?.field(name);
  return html`<${Dialog} title=${station ? `Edit ${station.name}` : "New station"} onClose=${onClose}>
    <${Notice} problem=${problem} />
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <div class="form-grid">
        <${Field} label="Name" name="station-name" value=${form.name} error=${error("name")} onInput=${set("name")}
          hint="Menu items whose station has this name go here." />
        <${Select} label="Kind" name="kind" value=${form.kind} onChange=${set("kind")}
          options=${[["prep", "Prep: cooks its own tickets"], ["expo", "Expo: sees every station"]]} />
        <${Field} label="Warn after (minutes)" name="warn_after_minutes" type="number" min="1" value=${form.warn_after_minutes}
          error=${error("warn_after_minutes")} onInput=${set("warn_after_minutes")} />
        <${Field} label="Late after (minutes)" name="late_after_minutes" type="number" min="2" value=${form.late_after_minutes}
          error=${error("late_after_minutes")} onInput=${set("late_after_minutes")} />
      </div>
      ${station?.is_default ? null : html`<label class="check"><input type="checkbox" name="active" checked=${form.active}
        onChange=${set("active")} /> Takes tickets</label>`}
      <div class="actions"><${Action} kind="primary" action=${save} data-action="save-station">Save station<//>
        <button type="button" class="btn" onClick=${onClose}>Cancel</button></div>
    </form>
  <//>`;
}

export function Kitchen({ role }) {
  const writable = can(role, "kitchenStations");
  const [stations, setStations] = useState(null);
  const [stats, setStats] = useState(null);
  const [problem, setProblem] = useState(null);
  const [editing, setEditing] = useState(null);
  const reload = () => {
    const weekAgo = new Date(Date.now() - 7 * 24 * 3600 * 1000).toISOString();
    return Promise.all([api.get("/kitchen/stations"), api.get(`/kitchen/stats?from=${encodeURIComponent(weekAgo)}`)]).then(
      ([s, t]) => { setStations(s.data); setStats(t.stations); setProblem(null); }, setProblem);
  };
  useEffect(() => { reload(); }, []);
  const timesOf = (id) => stats?.find((s) => s.station_id === id);
  // The server says why a station stays (tickets, menu items pointing at it).
  const remove = (station) => api.delete(`/kitchen/stations/${station.id}`).then(reload, setProblem);
  return html`
    <div class="screen-head"><h1>Kitchen</h1>
      <div class="actions">
        <a class="btn" href="/kitchen/" target="_blank" rel="noopener">Open the kitchen display</a>
        ${writable ? html`<button type="button" class="btn primary" data-action="new-station" onClick=${() => setEditing("new")}>New station</button>` : null}
      </div>
    </div>
    <${Notice} problem=${problem} />
    <section class="card">
      <h2>Stations</h2>
      ${stations === null ? html`<p class="muted">Loading…</p>` : stations.length ? html`
        <table class="list"><thead><tr><th>Station</th><th>Kind</th><th class="num">Warn</th><th class="num">Late</th>
          <th class="num">Tickets (7 days)</th><th class="num">Average</th><th class="num">90% within</th><th></th></tr></thead><tbody>
          ${stations.map((s) => {
            const times = timesOf(s.id);
            return html`<tr data-station=${s.name} class=${s.active ? "" : "muted"}>
              <td><strong>${s.name}</strong>${s.is_default ? html` <span class="badge blue">Default</span>` : null}
                ${s.active ? null : html` <span class="badge grey">Off</span>`}</td>
              <td>${titleCase(s.kind)}</td><td class="num">${s.warn_after_minutes} min</td><td class="num">${s.late_after_minutes} min</td>
              <td class="num">${times?.tickets ?? 0}</td><td class="num">${times ? clock(times.average_seconds) : "—"}</td>
              <td class="num">${times ? clock(times.p90_seconds) : "—"}</td>
              <td class="row-actions">${writable ? html`<button type="button" class="btn small" data-action="edit-station"
                onClick=${() => setEditing(s)}>Edit</button>
                ${s.is_default ? null : html`<${Confirm} kind="small ghost" question=${`Delete ${s.name}?`} confirmLabel="Delete"
                  action=${() => remove(s)} data-action="delete-station">Delete<//>`}` : null}</td></tr>`;
          })}
        </tbody></table>` : html`<${Empty}>No stations.<//>`}
      <p class="hint">A line cooks at the station its menu item names, else its category's (set on the Menu screen), else the default station. A station switched off sends its lines to the default one.</p>
    </section>
    ${editing ? html`<${StationForm} station=${editing === "new" ? null : editing} onClose=${() => setEditing(null)}
        onSaved=${() => { setEditing(null); reload(); }} />` : null}`;
}
