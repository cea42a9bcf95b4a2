// Attendance: the week's timesheet per person with worked and break minutes and
// records left open flagged, the queue of punch corrections to approve or
// reject, a manager's edit with its reason, each record's history, and the
// payroll lock.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { dateTime, localDate, time, zonedInstant } from "/shared/format.js";
import { Action, Empty, Field, Notice } from "/shared/ui.js";

/** The Monday (`YYYY-MM-DD`) of the week holding `date`. */
function mondayOf(date) {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

function addDays(date, days) {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

/** A `datetime-local` value as the instant it stands for in the business's zone. */
function instant(value) {
  if (!value) return undefined;
  const [date, clock] = value.split("T");
  return zonedInstant(date, clock.slice(0, 5)).toISOString();
}

function hours(minutes) {
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")}`;
}

function Edit({ record, onDone }) {
  const [form, setForm] = useState({ clock_in: "", clock_out: "", reason: "" });
  const [problem, setProblem] = useState(null);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.value });
  async function save() {
    try {
      await api.patch(`/attendance/${record.id}`, {
        clock_in: instant(form.clock_in), clock_out: instant(form.clock_out), reason: form.reason,
      });
      onDone();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<form class="inline-form" data-panel="edit-record" onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    <div class="form-grid">
      <${Field} label="Clock in" name="edit-clock-in" type="datetime-local" value=${form.clock_in} hint=${`now ${dateTime(record.clock_in)}`} error=${problem?.field("clock_in")} onInput=${set("clock_in")} />
      <${Field} label="Clock out" name="edit-clock-out" type="datetime-local" value=${form.clock_out} hint=${record.clock_out ? `now ${dateTime(record.clock_out)}` : "still open"} error=${problem?.field("clock_out")} onInput=${set("clock_out")} />
      <${Field} label="Reason" name="edit-reason" value=${form.reason} error=${problem?.field("reason")} onInput=${set("reason")} />
    </div>
    <div class="actions">
      <${Action} kind="primary" action=${save} data-action="save-edit">Save<//>
      <button type="button" class="btn" onClick=${onDone}>Cancel</button>
    </div>
  </form>`;
}

/** Who made a change: a staff member's name, else the actor as stored. */
function actor(names, changedBy) {
  const [kind, id] = changedBy.split(":");
  return kind === "user" && names[id] ? names[id] : changedBy;
}

function History({ record, names }) {
  const [entries, setEntries] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => { api.get(`/attendance/${record.id}/history`).then(setEntries, setProblem); }, [record.id]);
  if (problem) return html`<${Notice} problem=${problem} />`;
  if (!entries) return html`<p class="muted">Loading…</p>`;
  if (!entries.length) return html`<${Empty}>No change since the clock-in.<//>`;
  return html`<table class="list" data-panel="history"><thead><tr><th>When</th><th>Change</th><th>Clock in</th><th>Clock out</th><th>Why</th></tr></thead>
    <tbody>${entries.map((e) => html`<tr data-history=${e.change}>
      <td>${dateTime(e.changed_at)}<div class="muted small">by ${actor(names, e.changed_by)}</div></td>
      <td>${e.change === "clock_out" ? "Clocked out" : e.change === "edit" ? "Manager's edit" : "Correction approved"}</td>
      <td>${e.clock_in_before === e.clock_in_after ? time(e.clock_in_after) : html`${time(e.clock_in_before)} → ${time(e.clock_in_after)}`}</td>
      <td>${e.clock_out_before === e.clock_out_after ? time(e.clock_out_after) : html`${time(e.clock_out_before)} → ${time(e.clock_out_after)}`}</td>
      <td>${e.reason || "—"}</td>
    </tr>`)}</tbody></table>`;
}

function Record({ record, names, onChanged }) {
  const [open, setOpen] = useState(null);
  const toggle = (what) => setOpen(open === what ? null : what);
  return html`<tr data-record=${record.id} class=${record.needs_review ? "flagged" : ""}>
      <td>${localDate(new Date(record.clock_in))}</td>
      <td>${time(record.clock_in)}</td>
      <td data-clock-out>${record.clock_out ? time(record.clock_out) : record.needs_review ? html`<span class="badge red">Open, needs review</span>` : html`<span class="badge green">Working</span>`}</td>
      <td data-worked>${hours(record.worked_minutes)}</td>
      <td>${record.break_minutes} min</td>
      <td class="actions">
        <button type="button" class="btn small" data-action="edit-record" onClick=${() => toggle("edit")}>Edit</button>
        <button type="button" class="btn small" data-action="show-history" onClick=${() => toggle("history")}>History</button>
      </td>
    </tr>
    ${open ? html`<tr class="detail"><td colspan="6">${open === "edit"
      ? html`<${Edit} record=${record} onDone=${() => { setOpen(null); onChanged(); }} />`
      : html`<${History} record=${record} names=${names} />`}</td></tr>` : null}`;
}

function Queue({ corrections, onDecided }) {
  const [notes, setNotes] = useState({});
  const [problem, setProblem] = useState(null);
  async function decide(correction, verb) {
    try {
      await api.post(`/attendance/corrections/${correction.id}/${verb}`, { note: notes[correction.id] || undefined });
      setProblem(null);
      onDecided();
    } catch (failed) {
      setProblem(failed);
    }
  }
  if (!corrections.length) return html`<${Empty}>No correction is waiting.<//>`;
  return html`<${Notice} problem=${problem} />
    <table class="list" data-panel="corrections"><thead><tr><th>Person</th><th>Asks for</th><th>Reason</th><th>Note</th><th></th></tr></thead>
    <tbody>${corrections.map((c) => html`<tr data-correction=${c.id}>
      <td><strong>${c.user_name}</strong><div class="muted small">asked ${dateTime(c.created_at)}</div></td>
      <td>${c.clock_in ? html`<div>in ${dateTime(c.clock_in)}</div>` : null}${c.clock_out ? html`<div>out ${dateTime(c.clock_out)}</div>` : null}</td>
      <td>${c.reason}</td>
      <td><input name="note" aria-label="Note" value=${notes[c.id] || ""} onInput=${(e) => setNotes({ ...notes, [c.id]: e.target.value })} /></td>
      <td class="actions">
        <${Action} kind="primary small" action=${() => decide(c, "approve")} data-action="approve">Approve<//>
        <${Action} kind="small" action=${() => decide(c, "reject")} data-action="reject">Reject<//>
      </td>
    </tr>`)}</tbody></table>`;
}

function Lock({ lock, onLocked }) {
  const [until, setUntil] = useState("");
  const [problem, setProblem] = useState(null);
  async function save() {
    try {
      await api.post("/attendance/lock", { until: instant(until) || "" });
      setProblem(null);
      onLocked();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<p data-lock>${lock?.locked_until ? html`Locked for payroll before <strong>${dateTime(lock.locked_until)}</strong>.` : "No period is locked."}</p>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    <div class="form-grid">
      <${Field} label="Lock before" name="lock-until" type="datetime-local" value=${until} error=${problem?.field("until")} onInput=${(e) => setUntil(e.target.value)} />
    </div>
    <div class="actions"><${Action} kind="danger" action=${save} data-action="lock">Lock period<//></div>`;
}

export function Attendance() {
  const [week, setWeek] = useState(mondayOf(localDate()));
  const [records, setRecords] = useState(null);
  const [corrections, setCorrections] = useState([]);
  const [lock, setLock] = useState(null);
  const [names, setNames] = useState({});
  const [problem, setProblem] = useState(null);
  const load = () => {
    const from = zonedInstant(week, "00:00").toISOString();
    const to = zonedInstant(addDays(week, 7), "00:00").toISOString();
    return Promise.all([
      api.get(`/attendance?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`),
      api.get("/attendance/corrections?status=pending&limit=200"),
      api.get("/attendance/lock"),
    ]).then(([r, c, l]) => { setRecords(r.data); setCorrections(c.data); setLock(l); setProblem(null); }, setProblem);
  };
  useEffect(() => { load(); }, [week]);
  useEffect(() => {
    api.get("/users?limit=200").then((users) => setNames(Object.fromEntries(users.data.map((u) => [u.id, u.name]))), setProblem);
  }, []);
  const people = {};
  for (const r of records || []) (people[r.user_id] ||= { name: r.user_name, records: [] }).records.push(r);
  return html`
    <div class="screen-head"><h1>Attendance</h1></div>
    <${Notice} problem=${problem} />
    <section class="card">
      <h2>Corrections to approve</h2>
      <${Queue} corrections=${corrections} onDecided=${load} />
    </section>
    <section class="card">
      <h2>Timesheet</h2>
      <div class="form-grid">
        <${Field} label="Week of" name="week" type="date" value=${week} onChange=${(e) => e.target.value && setWeek(mondayOf(e.target.value))} />
      </div>
      ${!records ? html`<p class="muted">Loading…</p>` : !records.length ? html`<${Empty}>No one clocked in this week.<//>` : Object.entries(people).map(([id, person]) => html`
        <div data-person=${person.name}>
          <h3>${person.name} <span class="muted small">${hours(person.records.reduce((sum, r) => sum + r.worked_minutes, 0))} worked</span></h3>
          <table class="list" data-timesheet=${id}><thead><tr><th>Day</th><th>In</th><th>Out</th><th>Worked</th><th>Breaks</th><th></th></tr></thead>
          <tbody>${person.records.map((r) => html`<${Record} key=${r.id} record=${r} names=${names} onChanged=${load} />`)}</tbody></table>
        </div>`)}
    </section>
    <section class="card">
      <h2>Payroll lock</h2>
      <${Lock} lock=${lock} onLocked=${load} />
    </section>`;
}
