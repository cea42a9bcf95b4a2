// Schedule: a week of shifts, people as rows and days as columns. Drag along an
// empty day cell to draft a shift over those hours (a click opens the form),
// drag a shift to another day or person to move it, publish the week for staff
// to see, or copy the week before. An overlap the server refuses is named.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { all, api } from "/shared/api.js";
import { localDate, tenantTimeZone, titleCase, zonedInstant } from "/shared/format.js";
import { Action, Dialog, Field, Notice, Select } from "/shared/ui.js";

// A day cell spans these local hours, left to right.
const FIRST_HOUR = 6;
const LAST_HOUR = 24;
const ROLES = ["manager", "cashier", "server", "host", "kitchen"];
const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` plus `days`, on the calendar (no time zone involved). */
function addDays(date, days) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function mondayOf(date) {
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

/** Local `YYYY-MM-DD` and `HH:MM` of an instant in the business's time zone. */
function local(iso) {
  const at = new Date(iso);
  const clock = new Intl.DateTimeFormat("en-GB", { timeZone: tenantTimeZone(), hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);
  return { date: localDate(at), clock };
}

function dayLabel(date) {
  return new Intl.DateTimeFormat(undefined, { timeZone: "UTC", weekday: "short", day: "numeric", month: "short" }).format(new Date(`${date}T00:00:00Z`));
}

/** Half hours from the left of a cell, as `HH:MM`. */
function clockAt(fraction) {
  const halves = Math.round(Math.min(Math.max(fraction, 0), 1) * (LAST_HOUR - FIRST_HOUR) * 2);
  const minutes = FIRST_HOUR * 60 + halves * 30;
  const h = Math.min(Math.floor(minutes / 60), 23);
  const m = minutes >= 24 * 60 ? 59 : minutes % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
}

function hours(minutes) {
  return `${Math.round((minutes / 60) * 10) / 10} h`;
}

/** The overlap the server named, in words a manager reads. */
function overlapMessage(problem, shifts, people) {
  const other = problem.body.other_shift;
  const shift = shifts.find((s) => s.id === other.id);
  const who = people.find((p) => p.id === shift?.user_id)?.name || "This person";
  const from = local(other.starts_at);
  return `${who} already works ${dayLabel(from.date)} ${from.clock}–${local(other.ends_at).clock}: shifts of one person may not overlap.`;
}

function Editor({ draft, people, shifts, onClose, onSaved, onDelete }) {
  const editing = Boolean(draft.id);
  const [form, setForm] = useState({
    user_id: draft.user_id || "", role: draft.role || "", date: draft.date, start: draft.start, end: draft.end,
    break_minutes: String(draft.break_minutes ?? 0), notes: draft.notes || "",
  });
  const [problem, setProblem] = useState(null);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.value });
  async function save() {
    const starts = zonedInstant(form.date, form.start);
    // An end at or before the start is the next morning.
    let ends = zonedInstant(form.date, form.end);
    if (ends <= starts) ends = zonedInstant(addDays(form.date, 1), form.end);
    const body = {
      user_id: form.user_id || null, role: form.role || null, starts_at: starts.toISOString(), ends_at: ends.toISOString(),
      break_minutes: Number(form.break_minutes) || 0, notes: form.notes.trim() || null,
    };
    try {
      if (editing) await api.patch(`/shifts/${draft.id}`, body);
      else await api.post("/shifts", body);
      onSaved(editing ? "Shift saved." : "Shift drafted.");
    } catch (failed) {
      setProblem(failed.code === "shift_overlap" ? { message: overlapMessage(failed, shifts, people), errors: [] } : failed);
    }
  }
  return html`<${Dialog} title=${editing ? "Edit shift" : "New shift"} onClose=${onClose}>
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <${Notice} problem=${problem?.errors?.length ? null : problem} />
      <div class="form-grid">
        <${Select} label="Person" name="user_id" value=${form.user_id} onChange=${set("user_id")} error=${problem?.field?.("user_id")}
          options=${[["", "Open shift"], ...people.map((p) => [p.id, p.name])]} />
        <${Select} label="Role" name="role" value=${form.role} onChange=${set("role")} error=${problem?.field?.("role")}
          options=${[["", "Any"], ...ROLES.map((r) => [r, titleCase(r)])]} />
        <${Field} label="Day" name="date" type="date" value=${form.date} onInput=${set("date")} />
        <${Field} label="Break (minutes)" name="break_minutes" type="number" min="0" value=${form.break_minutes}
          onInput=${set("break_minutes")} error=${problem?.field?.("break_minutes")} />
        <${Field} label="Starts" name="start" type="time" value=${form.start} onInput=${set("start")} error=${problem?.field?.("starts_at")} />
        <${Field} label="Ends" name="end" type="time" value=${form.end} onInput=${set("end")} error=${problem?.field?.("ends_at")} />
      </div>
      <${Field} label="Notes" name="notes" value=${form.notes} onInput=${set("notes")} error=${problem?.field?.("notes")} />
      <div class="actions">
        <${Action} kind="primary" action=${save} data-action="save-shift">${editing ? "Save" : "Add shift"}<//>
        ${editing ? html`<${Action} kind="danger" action=${onDelete} data-action="delete-shift">Delete<//>` : null}
      </div>
    </form>
  <//>`;
}

function ShiftChip({ shift, clash, onPointerDown }) {
  const from = local(shift.starts_at);
  return html`<div class=${`shift-chip ${shift.status}${clash ? " clash" : ""}`} data-shift=${shift.id}
      onPointerDown=${onPointerDown} title="Drag to another day or person; click to edit">
    <strong>${from.clock}–${local(shift.ends_at).clock}</strong>
    ${shift.role ? html`<span>${titleCase(shift.role)}</span>` : null}
    ${shift.status === "published" ? null : html`<span class="state">${shift.status === "draft" ? "Draft" : "Changed"}</span>`}
  </div>`;
}

export function Schedule() {
  const [monday, setMonday] = useState(mondayOf(localDate()));
  const [people, setPeople] = useState(null);
  const [shifts, setShifts] = useState([]);
  const [problem, setProblem] = useState(null);
  const [notice, setNotice] = useState(null);
  const [clashId, setClashId] = useState(null);
  const [editing, setEditing] = useState(null);
  const [dragging, setDragging] = useState(null);
  const days = [0, 1, 2, 3, 4, 5, 6].map((d) => addDays(monday, d));
  const range = () => ({ from: zonedInstant(monday, "00:00").toISOString(), to: zonedInstant(addDays(monday, 7), "00:00").toISOString() });

  async function load() {
    try {
      const { from, to } = range();
      const [staff, week] = await Promise.all([
        all("/users"), all(`/shifts?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`),
      ]);
      setPeople(staff.filter((p) => p.active));
      setShifts(week);
    } catch (failed) {
      setProblem(failed);
    }
  }
  useEffect(() => { load(); }, [monday]);

  const report = (failed) => {
    setNotice(null);
    if (failed.code === "shift_overlap") {
      setClashId(failed.body.other_shift.id);
      setProblem({ message: overlapMessage(failed, shifts, people || []), errors: [] });
    } else {
      setProblem(failed);
    }
  };
  const done = (message) => { setProblem(null); setClashId(null); setNotice(message); setEditing(null); load(); };

  async function create(userId, date, start, end) {
    try {
      await api.post("/shifts", { user_id: userId, role: userId ? null : "server",
        starts_at: zonedInstant(date, start).toISOString(), ends_at: zonedInstant(date, end).toISOString() });
      done(`Shift drafted: ${dayLabel(date)} ${start}–${end}.`);
    } catch (failed) {
      report(failed);
    }
  }

  async function move(shift, userId, date) {
    const from = local(shift.starts_at);
    const starts = zonedInstant(date, from.clock);
    const length = Date.parse(shift.ends_at) - Date.parse(shift.starts_at);
    try {
      await api.patch(`/shifts/${shift.id}`, { user_id: userId, starts_at: starts.toISOString(), ends_at: new Date(starts.getTime() + length).toISOString() });
      done(`Shift moved to ${dayLabel(date)}.`);
    } catch (failed) {
      report(failed);
    }
  }

  /** The day cell under the pointer, if any. */
  function cellAt(x, y) {
    const cell = document.elementFromPoint(x, y)?.closest("[data-cell]");
    return cell ? { cell, userId: cell.dataset.user || null, date: cell.dataset.date } : null;
  }

  // Drag on an empty cell: from where it went down to where it came up.
  function startCreate(e, userId, date) {
    if (e.button !== 0 || e.target.closest("[data-shift]")) return;
    const cell = e.currentTarget;
    const box = cell.getBoundingClientRect();
    const startX = e.clientX;
    setDragging({ kind: "create", userId, date, from: startX - box.left, to: startX - box.left, width: box.width });
    const onMove = (m) => setDragging((d) => d && { ...d, to: Math.min(Math.max(m.clientX - box.left, 0), box.width) });
    const onUp = (u) => {
      window.removeEventListener("pointermove", onMove);
      window.removeEventListener("pointerup", onUp);
      setDragging(null);
      const a = (startX - box.left) / box.width;
      const b = (u.clientX - box.left) / box.width;
      if (Math.abs(u.clientX - startX) < 8) {
        setEditing({ user_id: userId, date, start: "09:00", end: "17:00" });
        return;
      }
      const [start, end] = [clockAt(Math.min(a, b)), clockAt(Math.max(a, b))];
      if (start !== end) create(userId, date, start, end);
    };
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp);
  }

  // Drag a shift: dropped on another cell it moves there; let go where it was, it opens.
  function startMove(e, shift) {
    if (e.button !== 0) return;
    e.stopPropagation();
    const [x0, y0] = [e.clientX, e.clientY];
    setDragging({ kind: "move", shift, x: x0, y: y0, target: null });
    const onMove = (m) => {
      const over = cellAt(m.clientX, m.clientY);
      setDragging((d) => d && { ...d, x: m.clientX, y: m.clientY, target: over && `${over.userId || ""}/${over.date}` });
    };
    const onUp = (u) => {
      window.removeEventListener("pointermove", onMove);
      window.removeEventListener("pointerup", onUp);
      setDragging(null);
      const over = cellAt(u.clientX, u.clientY);
      const from = local(shift.starts_at);
      const still = Math.hypot(u.clientX - x0, u.clientY - y0) < 8;
      if (still || !over) {
        if (still) setEditing({ ...shift, date: from.date, start: from.clock, end: local(shift.ends_at).clock });
        return;
      }
      if (over.userId === (shift.user_id || null) && over.date === from.date) return;
      move(shift, over.userId, over.date);
    };
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp);
  }

  async function publish() {
    try {
      const { published } = await api.post("/shifts/publish", range());
      done(published.length ? `${published.length} shift${published.length === 1 ? "" : "s"} published: staff see them now.` : "Nothing to publish: every shift of the week is published.");
    } catch (failed) {
      report(failed);
    }
  }

  async function copyPrevious() {
    try {
      const copied = await api.post("/shifts/copy-week", { from_week: addDays(monday, -7), to_week: monday });
      const skipped = copied.skipped.map((s) => {
        const who = people.find((p) => p.id === s.user_id)?.name || "Someone";
        const at = local(s.starts_at);
        return `${who} ${dayLabel(at.date)} ${at.clock}`;
      });
      done(`${copied.created.length} shift${copied.created.length === 1 ? "" : "s"} copied from last week as drafts.`
        + (skipped.length ? ` Skipped (would overlap): ${skipped.join(", ")}.` : ""));
    } catch (failed) {
      report(failed);
    }
  }

  async function remove(shift) {
    try {
      await api.delete(`/shifts/${shift.id}`);
      done("Shift deleted.");
    } catch (failed) {
      report(failed);
    }
  }

  const rows = people ? [...people.map((p) => ({ id: p.id, name: p.name, role: p.role })), { id: null, name: "Open shifts", role: null }] : [];
  const inCell = (userId, date) => shifts.filter((s) => (s.user_id || null) === userId && local(s.starts_at).date === date);
  const unpublished = shifts.filter((s) => s.status !== "published").length;
  return html`
    <div class="screen-head"><h1>Schedule</h1>
      <div class="week-nav">
        <button type="button" class="btn" data-action="previous-week" onClick=${() => setMonday(addDays(monday, -7))} aria-label="Previous week">‹</button>
        <strong data-week=${monday}>${dayLabel(monday)} – ${dayLabel(addDays(monday, 6))}</strong>
        <button type="button" class="btn" data-action="next-week" onClick=${() => setMonday(addDays(monday, 7))} aria-label="Next week">›</button>
      </div>
      <div class="row-actions">
        <${Action} action=${copyPrevious} data-action="copy-week">Copy previous week<//>
        <${Action} kind="primary" action=${publish} data-action="publish-week">Publish week${unpublished ? ` (${unpublished})` : ""}<//>
      </div>
    </div>
    <${Notice} problem=${problem} />
    ${notice ? html`<${Notice} kind="success">${notice}<//>` : null}
    <p class="muted small">Drag along a day to draft a shift over those hours (${FIRST_HOUR}:00 at the left, midnight at the right), or click it to fill in a form. Drag a shift to another day or person to move it. Drafts and changes reach staff when the week is published.</p>
    <section class="card schedule-card">
      ${!people ? html`<p class="muted">Loading…</p>` : html`
      <div class="schedule" role="grid" aria-label="Shifts of the week">
        <div class="corner"></div>
        ${days.map((d) => html`<div class="day-head" role="columnheader">${dayLabel(d)}</div>`)}
        ${rows.map((row) => {
          const minutes = shifts.filter((s) => (s.user_id || null) === row.id).reduce((sum, s) => sum + s.scheduled_minutes, 0);
          return html`
          <div class="person" role="rowheader" data-person=${row.name}><strong>${row.name}</strong>
            <small>${row.role ? titleCase(row.role) : "Anyone"}${minutes ? ` · ${hours(minutes)}` : ""}</small></div>
          ${days.map((date) => {
            const key = `${row.id || ""}/${date}`;
            const drawing = dragging?.kind === "create" && dragging.date === date && dragging.userId === row.id ? dragging : null;
            return html`<div class=${`cell${dragging?.kind === "move" && dragging.target === key ? " drop" : ""}`} role="gridcell"
                data-cell data-user=${row.id || ""} data-date=${date} onPointerDown=${(e) => startCreate(e, row.id, date)}>
              ${inCell(row.id, date).map((s) => html`<${ShiftChip} shift=${s} clash=${s.id === clashId}
                onPointerDown=${(e) => startMove(e, s)} />`)}
              ${drawing ? html`<div class="drawing" style=${`left:${Math.min(drawing.from, drawing.to)}px;width:${Math.abs(drawing.to - drawing.from)}px`}>
                ${clockAt(Math.min(drawing.from, drawing.to) / drawing.width)}–${clockAt(Math.max(drawing.from, drawing.to) / drawing.width)}</div>` : null}
            </div>`;
          })}`;
        })}
      </div>`}
    </section>
    ${dragging?.kind === "move" ? html`<div class="drag-ghost" style=${`left:${dragging.x + 8}px;top:${dragging.y + 8}px`}>
      ${local(dragging.shift.starts_at).clock}–${local(dragging.shift.ends_at).clock}</div>` : null}
    ${editing ? html`<${Editor} draft=${editing} people=${people || []} shifts=${shifts} onClose=${() => setEditing(null)} onSaved=${done}
      onDelete=${() => remove(editing)} />` : null}`;
}
