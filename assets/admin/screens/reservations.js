// Reservations: one day's bookings by time with the covers booked per slot, the
// moves of a booking (confirm, check in, complete, cancel, no-show), booking and
// changing them, and the weekly booking hours (owners and managers). Times are
// shown and entered in the restaurant's time zone.

import { html, useEffect, useMemo, useRef, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { all, api, followEvents } from "/shared/api.js";
import { localDate, tenantTimeZone, time, zonedInstant } from "/shared/format.js";
import { Action, Badge, Dialog, Empty, Field, Notice, Select } from "/shared/ui.js";
import { can } from "/admin/roles.js";

const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const HOLDS_COVERS = ["pending", "confirmed", "checked_in"];
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

/** `HH:MM` of an instant in the tenant's zone. */
function clock(iso) {
  return new Intl.DateTimeFormat("en-GB", { timeZone: tenantTimeZone(), hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(iso));
}

function addDays(date, days) {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function weekdayOf(date) {
  return WEEKDAYS[(new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7];
}

function longDate(date) {
  return new Intl.DateTimeFormat(undefined, { timeZone: "UTC", weekday: "long", day: "numeric", month: "long", year: "numeric" })
    .format(new Date(`${date}T12:00:00Z`));
}

const minutes = (hhmm) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const hhmm = (m) => `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;

/** The slot starts of a day's rules, as local `HH:MM`. */
function slotClocks(day) {
  const out = [];
  for (const w of day?.windows || []) {
    if (!CLOCK.test(w.start) || !CLOCK.test(w.end)) continue;
    for (let m = minutes(w.start); m < minutes(w.end); m += Math.max(5, day.slot_minutes)) out.push(hhmm(m));
  }
  return [...new Set(out)].sort();
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** A server message as a sentence: capital first, full stop last. */
function sentence(text) {
  const t = String(text || "").trim();
  if (!t) return t;
  return `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}`;
}

/** The server's message for a field, from its field errors or a 409 naming the field. */
function serverError(problem, name) {
  return problem?.field(name) || (problem?.body?.field === name ? problem.message : null);
}

/** Covers booked to start in each slot of the day, against the slot's limit. */
function SlotSummary({ date, rules, reservations }) {
  const [expanded, setExpanded] = useState(false);
  const day = rules?.days.find((d) => d.weekday === weekdayOf(date));
  const active = reservations.filter((r) => HOLDS_COVERS.includes(r.status));
  const booked = new Map();
  for (const r of active) booked.set(clock(r.starts_at), (booked.get(clock(r.starts_at)) || 0) + r.party_size);
  const slots = slotClocks(day);
  const extra = [...booked.keys()].filter((c) => !slots.includes(c));
  const every = [...slots, ...extra].sort();
  // A long day (all-day hours) shows the slots with bookings until asked for all.
  const long = every.length > 16;
  const all = long && !expanded ? every.filter((c) => booked.has(c)) : every;
  const covers = active.reduce((sum, r) => sum + r.party_size, 0);
  return html`<section class="card" data-panel="slot-summary">
    <div class="summary-head">
      <h2>Covers booked per slot</h2>
      <span class="muted" data-day-total>${plural(active.length, "booking", "bookings")} · ${plural(covers, "cover", "covers")}</span>
    </div>
    ${!day ? html`<p class="muted">No booking hours on ${weekdayOf(date)}s: staff can still book outside the rules.</p>` : null}
    ${all.length ? html`<ul class="slot-summary">
      ${all.map((c) => {
        const n = booked.get(c) || 0;
        const outside = !slots.includes(c);
        const max = day?.max_covers_per_slot;
        const level = outside || !max ? "" : n >= max ? " full" : n >= max * 0.75 ? " busy" : "";
        return html`<li class=${`${outside ? "outside" : ""}${level}`} data-slot=${c}>
          <strong>${time(zonedInstant(date, c))}</strong>
          <span>${outside ? `${n} · outside hours` : `${n} / ${max} covers`}</span></li>`;
      })}
    </ul>` : null}
    ${long ? html`<p class="hint slot-more">${expanded ? null : all.length ? "Only the slots with bookings are shown. " : `No bookings yet in the day's ${every.length} slots. `}
      <button type="button" class="btn ghost small" data-action="all-slots" onClick=${() => setExpanded(!expanded)}>
        ${expanded ? "Show only booked slots" : `Show all ${every.length} slots`}</button></p>` : null}
  </section>`;
}

function ConfirmDialog({ title, children, label, kind = "primary", action, onClose }) {
  const [problem, setProblem] = useState(null);
  return html`<${Dialog} title=${title} onClose=${onClose}>
    <${Notice} problem=${problem} />
    ${children}
    <div class="actions dialog-actions">
      <button type="button" class="btn" onClick=${onClose}>Back</button>
      <${Action} kind=${kind} data-action="confirm-dialog" action=${async () => { try { await action(); } catch (p) { setProblem(p); } }}>${label}<//>
    </div>
  <//>`;
}

function CancelDialog({ r, onClose, onDone }) {
  const [by, setBy] = useState("customer");
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState(null);
  async function cancel() {
    setProblem(null);
    try {
      const body = { by };
      if (reason.trim()) body.reason = reason.trim();
      onDone(await api.post(`/reservations/${r.id}/cancel`, body), `Cancelled ${r.name}'s booking.`);
    } catch (p) {
      setProblem(p);
    }
  }
  return html`<${Dialog} title=${`Cancel ${r.name}'s booking?`} onClose=${onClose}>
    <form data-form="cancel" onSubmit=${(e) => { e.preventDefault(); cancel(); }}>
      ${problem && !problem.field("reason") ? html`<${Notice} problem=${problem} />` : null}
      <p>${time(r.starts_at)}, ${plural(r.party_size, "guest", "guests")}.</p>
      <fieldset class="plain"><legend>Who cancels?</legend>
        <div class="radio-row">
          <label><input type="radio" name="cancel-by" value="customer" checked=${by === "customer"} onChange=${() => setBy("customer")} /> The guest</label>
          <label><input type="radio" name="cancel-by" value="staff" checked=${by === "staff"} onChange=${() => setBy("staff")} /> The restaurant</label>
        </div>
      </fieldset>
      <${Field} label="Reason (optional)" name="cancel-reason" error=${problem?.field("reason")}>
        <textarea id="field-cancel-reason" name="cancel-reason" rows="2" maxLength="500" value=${reason} onInput=${(e) => setReason(e.target.value)}></textarea>
      <//>
      <div class="actions dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Keep booking</button>
        <${Action} kind="danger" action=${cancel} busyLabel="Cancelling…" data-action="confirm-cancel">Cancel booking<//>
      </div>
    </form>
  <//>`;
}

function CheckInDialog({ r, onClose, onDone }) {
  const [mode, setMode] = useState("seat");
  const [seatmap, setSeatmap] = useState(null);
  const [chosen, setChosen] = useState([]);
  const [problem, setProblem] = useState(null);
  const [shown, setShown] = useState(false);
  useEffect(() => {
    api.get("/tables/seatmap").then((map) => {
      setSeatmap(map);
      const open = map.floors.flatMap((f) => f.tables).filter((t) => seatable(t));
      setChosen(r.table_ids.filter((id) => open.some((t) => t.id === id)));
    }, setProblem);
  }, []);
  const seatable = (t) => t.active && (t.state === "free" || (t.state === "reserved_soon" && t.reservation?.id === r.id));
  const floors = (seatmap?.floors || []).map((f) => ({ ...f, tables: f.tables.filter(seatable) })).filter((f) => f.tables.length);
  const tables = floors.flatMap((f) => f.tables);
  const seats = tables.filter((t) => chosen.includes(t.id)).reduce((n, t) => n + t.seats, 0);
  const local = mode === "seat" && !chosen.length ? "Choose at least one table." : null;
  const toggle = (id) => setChosen(chosen.includes(id) ? chosen.filter((c) => c !== id) : [...chosen, id]);

  async function checkIn() {
    setShown(true);
    setProblem(null);
    if (local) return;
    try {
      const result = await api.post(`/reservations/${r.id}/check-in`, mode === "seat" ? { mode, table_ids: chosen } : { mode });
      const where = result.session ? `seated at ${result.session.tables.map((t) => t.name).join(", ")}` : `added to the waitlist as ${result.queue_ticket?.number}`;
      onDone(result.reservation, `${r.name} checked in and ${where}.`);
    } catch (p) {
      setProblem(p);
    }
  }

  const tableError = (shown && local) || problem?.field("table_ids");
  return html`<${Dialog} title=${`Check in ${r.name}`} onClose=${onClose}>
    <form data-form="check-in" onSubmit=${(e) => { e.preventDefault(); checkIn(); }}>
      ${problem && !problem.field("table_ids") ? html`<${Notice} problem=${problem} />` : null}
      <p>${plural(r.party_size, "guest", "guests")} booked for ${time(r.starts_at)}.</p>
      <div class="radio-row">
        <label><input type="radio" name="check-in-mode" value="seat" checked=${mode === "seat"} onChange=${() => setMode("seat")} /> Seat now</label>
        <label><input type="radio" name="check-in-mode" value="queue" checked=${mode === "queue"} onChange=${() => setMode("queue")} /> Add to the waitlist</label>
      </div>
      ${mode === "seat" ? html`
        <fieldset class=${`plain${tableError ? " invalid" : ""}`}><legend>Tables</legend>
          ${!seatmap ? html`<p class="muted">Loading the free tables…</p>`
            : !tables.length ? html`<p class="muted">No table is free right now. Add the party to the waitlist instead.</p>`
            : floors.map((f) => html`
              ${floors.length > 1 ? html`<div class="hint">${f.name}</div>` : null}
              <div class="choice-list">
                ${f.tables.map((t) => html`<label data-choice=${t.name}>
                  <input type="checkbox" name="check-in-table" value=${t.id} checked=${chosen.includes(t.id)} onChange=${() => toggle(t.id)} />
                  <span>${t.name} <small>${t.seats} seats${r.table_ids.includes(t.id) ? " · held" : ""}</small></span></label>`)}
              </div>`)}
          ${tableError ? html`<p class="field-error" role="alert" data-error-for="table_ids">${tableError}</p>`
            : chosen.length ? html`<p class=${`hint${seats < r.party_size ? " warn" : ""}`}>${plural(seats, "seat", "seats")} for ${plural(r.party_size, "guest", "guests")}${seats < r.party_size ? ": fewer seats than guests" : ""}.</p>` : null}
        </fieldset>` : html`<p class="hint">The party gets a waitlist ticket linked to the booking and is seated from the waitlist.</p>`}
      <div class="actions dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Back</button>
        <${Action} kind="primary" action=${checkIn} busyLabel="Checking in…" data-action="confirm-check-in">${mode === "seat" ? "Seat the party" : "Add to waitlist"}<//>
      </div>
    </form>
  <//>`;
}

/** New booking, or changes to one (`r`). */
function BookingDialog({ r, date, onClose, onDone }) {
  const [form, setForm] = useState(() => r
    ? { name: r.name, phone: r.phone, email: r.email || "", party: String(r.party_size), date: localDate(new Date(r.starts_at)),
        slot: r.starts_at, outside: false, clock: clock(r.starts_at), notes: r.notes || "" }
    : { name: "", phone: "", email: "", party: "2", date, slot: "", outside: false, clock: "", notes: "" });
  const [slots, setSlots] = useState(null);
  const [lookups, setLookups] = useState(0);
  const [slotProblem, setSlotProblem] = useState(null);
  const [problem, setProblem] = useState(null);
  const [shown, setShown] = useState(false);
  const set = (key) => (e) => setForm((f) => ({ ...f, [key]: e.target.type === "checkbox" ? e.target.checked : e.target.value }));
  const party = Number(form.party);
  const partyOk = Number.isInteger(party) && party >= 1 && party <= 100;

  useEffect(() => {
    if (form.outside || !partyOk || !/^\d{4}-\d{2}-\d{2}$/.test(form.date)) return undefined;
    let live = true;
    setSlots(null);
    setSlotProblem(null);
    const timer = setTimeout(() => {
      api.get(`/reservations/availability?date=${form.date}&party_size=${party}`).then(
        (a) => live && setSlots(a.slots),
        (p) => live && (setSlotProblem(p), setSlots([])),
      );
    }, 200);
    return () => { live = false; clearTimeout(timer); };
  }, [form.date, party, form.outside, lookups]);

  // The booking's own time stays on offer when changing it, though its covers count against it.
  const offered = [...(slots || [])];
  if (r && form.date === localDate(new Date(r.starts_at)) && !offered.some((s) => s.starts_at === r.starts_at)) {
    offered.push({ starts_at: r.starts_at, current: true });
    offered.sort((a, b) => a.starts_at.localeCompare(b.starts_at));
  }
  const startsAt = form.outside
    ? CLOCK.test(form.clock) && form.date ? zonedInstant(form.date, form.clock).toISOString() : null
    : form.slot && offered.some((s) => s.starts_at === form.slot) ? form.slot : null;

  const local = {};
  if (!form.name.trim()) local.name = "Enter the guest's name.";
  if (!form.phone.trim()) local.phone = "Enter a phone number.";
  if (form.email.trim() && !form.email.includes("@")) local.email = "This is not an email address.";
  if (!partyOk) local.party_size = "Between 1 and 100 guests.";
  if (!form.date) local.date = "Choose a day.";
  if (!startsAt) local.starts_at = form.outside ? "Enter a time." : "Choose a time.";
  else if (new Date(startsAt) <= new Date()) local.starts_at = "Choose a time in the future.";
  const error = (name) => (shown && local[name]) || serverError(problem, name) || (name === "party_size" || name === "date" ? serverError(slotProblem, name) : null);

  async function save() {
    setShown(true);
    setProblem(null);
    if (Object.keys(local).length) return;
    const email = form.email.trim();
    const notes = form.notes.trim();
    try {
      let saved;
      if (r) {
        const patch = {};
        if (form.name.trim() !== r.name) patch.name = form.name.trim();
        if (form.phone.trim() !== r.phone) patch.phone = form.phone.trim();
        if (email !== (r.email || "")) patch.email = email || null;
        if (notes !== (r.notes || "")) patch.notes = notes || null;
        if (party !== r.party_size) patch.party_size = party;
        if (new Date(startsAt).getTime() !== new Date(r.starts_at).getTime()) patch.starts_at = startsAt;
        if (form.outside && (patch.party_size || patch.starts_at)) patch.outside_rules = true;
        saved = Object.keys(patch).length ? await api.patch(`/reservations/${r.id}`, patch) : r;
      } else {
        const body = { name: form.name.trim(), phone: form.phone.trim(), party_size: party, starts_at: startsAt };
        if (email) body.email = email;
        if (notes) body.notes = notes;
        if (form.outside) body.outside_rules = true;
        saved = await api.post("/reservations", body);
      }
      onDone(saved, `${r ? "Saved" : "Booked"} ${saved.name}: ${plural(saved.party_size, "guest", "guests")} at ${time(saved.starts_at)}.`);
    } catch (p) {
      setProblem(p);
      // The times on offer were out of date: look them up again.
      if (p.code === "slot_full") setLookups((n) => n + 1);
    }
  }

  const fieldNames = ["name", "phone", "email", "party_size", "starts_at", "notes"];
  const general = problem && !fieldNames.some((n) => serverError(problem, n));
  return html`<${Dialog} title=${r ? `Change ${r.name}'s booking` : "New reservation"} onClose=${onClose}>
    <form data-form="booking" novalidate onSubmit=${(e) => { e.preventDefault(); save(); }}>
      ${general ? html`<div class="notice error" role="alert" data-problem=${problem.code}>${sentence(problem.message)}${problem.code === "slot_full"
        ? " Choose another time, or tick “Outside the booking rules” to book it anyway." : ""}</div>` : null}
      <div class="form-grid two">
        <${Field} label="Name" name="name" value=${form.name} maxLength="120" autocomplete="off" onInput=${set("name")} error=${error("name")} />
        <${Field} label="Phone" name="phone" type="tel" value=${form.phone} maxLength="40" onInput=${set("phone")} error=${error("phone")} />
        <${Field} label="Email (optional)" name="email" type="email" value=${form.email} maxLength="254" onInput=${set("email")} error=${error("email")} />
        <${Field} label="Party size" name="party_size" type="number" min="1" max="100" value=${form.party} onInput=${set("party")} error=${error("party_size")} />
        <${Field} label="Day" name="date" type="date" value=${form.date} onInput=${set("date")} error=${error("date")} />
        ${form.outside
          ? html`<${Field} label="Time" name="starts_at" type="time" value=${form.clock} onInput=${set("clock")} error=${error("starts_at")} />`
          : html`<${Select} label="Time" name="starts_at" value=${startsAt || ""} onChange=${set("slot")} error=${error("starts_at")}
              disabled=${slots === null && !slotProblem}
              options=${[["", slots === null && !slotProblem ? "Looking for free times…" : offered.length ? "Choose a time" : "No free time"],
                ...offered.map((s) => [s.starts_at, `${time(s.starts_at)}${s.current ? " (current)" : ` · ${s.remaining_covers} covers left`}`])]} />`}
      </div>
      ${!form.outside && (serverError(problem, "starts_at") || serverError(problem, "party_size") || serverError(slotProblem, "party_size"))
        ? html`<p class="hint spaced" data-hint="outside-rules">Tick “Outside the booking rules” to book it anyway.</p>` : null}
      ${!form.outside && slots && !offered.length && !slotProblem ? html`<p class="hint">No slot of this day has room for ${plural(party, "guest", "guests")}. Pick another day, or book outside the rules.</p>` : null}
      <label class="check"><input type="checkbox" name="outside_rules" checked=${form.outside} onChange=${set("outside")} />
        Outside the booking rules (any time, a closed day, a larger party or a full slot)</label>
      <${Field} label="Notes (optional)" name="notes" error=${error("notes")}>
        <textarea id="field-notes" name="notes" rows="2" maxLength="1000" value=${form.notes} onInput=${set("notes")}
          placeholder="Allergies, occasion, high chair…"></textarea>
      <//>
      <div class="actions dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Back</button>
        <${Action} kind="primary" action=${save} busyLabel="Saving…" data-action="save-reservation">${r ? "Save changes" : "Book"}<//>
      </div>
    </form>
  <//>`;
}

function RowActions({ r, onDialog, onMove }) {
  const started = new Date(r.starts_at) <= new Date();
  const buttons = [];
  if (r.status === "pending") buttons.push(html`<${Action} kind="small primary" data-action="confirm" busyLabel="…" action=${() => onMove(r, "confirm", `Confirmed ${r.name}.`)}>Confirm<//>`);
  if (r.status === "confirmed") buttons.push(html`<button type="button" class="btn small primary" data-action="check-in" onClick=${() => onDialog({ kind: "check-in", r })}>Check in</button>`);
  if (r.status === "checked_in") buttons.push(html`<${Action} kind="small" data-action="complete" busyLabel="…" action=${() => onMove(r, "complete", `${r.name}'s visit is complete.`)}>Complete<//>`);
  if (["pending", "confirmed"].includes(r.status)) {
    buttons.push(html`<button type="button" class="btn small" data-action="edit" onClick=${() => onDialog({ kind: "edit", r })}>Change</button>`);
    if (started) buttons.push(html`<button type="button" class="btn small" data-action="no-show" onClick=${() => onDialog({ kind: "no-show", r })}>No-show</button>`);
    buttons.push(html`<button type="button" class="btn small danger" data-action="cancel" onClick=${() => onDialog({ kind: "cancel", r })}>Cancel</button>`);
  }
  return html`<div class="actions">${buttons}</div>`;
}

function DayView({ role }) {
  const mayWrite = can(role, "reservationsWrite");
  const [date, setDate] = useState(localDate());
  const [list, setList] = useState(null);
  const [tables, setTables] = useState([]);
  const [seated, setSeated] = useState(new Map());
  const [rules, setRules] = useState(null);
  const [problem, setProblem] = useState(null);
  const [dialog, setDialog] = useState(null);
  const [notice, setNotice] = useState(null);
  const today = localDate();

  const shownDate = useRef(date);
  shownDate.current = date;

  /** Loads a day's bookings; an answer for a day no longer shown is dropped. */
  const load = (day = shownDate.current) => {
    // Where checked-in parties sit: the tables of their open sessions.
    api.get("/tables/seatmap").then((map) => {
      const at = new Map();
      for (const t of map.floors.flatMap((f) => f.tables)) {
        if (t.session) at.set(t.session.id, [...(at.get(t.session.id) || []), t.name]);
      }
      setSeated(at);
    }, () => {});
    return all(`/reservations?date=${day}`).then((rows) => {
      if (day !== shownDate.current) return;
      setList({ date: day, rows });
      setProblem(null);
    }, setProblem);
  };
  useEffect(() => {
    api.get("/tables").then((page) => setTables(page.data), () => {});
    api.get("/reservations/time-slots").then(setRules, () => {});
    let timer = null;
    const stop = followEvents((event) => {
      if (!/^(reservation|session)\./.test(event.event || "")) return;
      clearTimeout(timer);
      timer = setTimeout(() => load(), 300);
    });
    return () => { stop(); clearTimeout(timer); };
  }, []);
  useEffect(() => { load(date); }, [date]);

  const names = useMemo(() => new Map(tables.map((t) => [t.id, t.name])), [tables]);
  const rows = list?.date === date ? list.rows : null;

  async function move(r, verb, message) {
    setNotice(null);
    try {
      await api.post(`/reservations/${r.id}/${verb}`);
      setNotice({ kind: "success", text: message });
      await load();
    } catch (p) {
      setNotice({ kind: "error", text: `${r.name}: ${sentence(p.message)}` });
    }
  }
  function done(saved, message) {
    setDialog(null);
    setNotice({ kind: "success", text: message });
    const day = localDate(new Date(saved.starts_at));
    if (day !== date) setDate(day);
    else load();
  }

  return html`
    <div class="day-head">
      <div class="day-nav">
        <button type="button" class="btn" data-action="previous-day" aria-label="Previous day" onClick=${() => setDate(addDays(date, -1))}>←</button>
        <input type="date" name="day" aria-label="Day" value=${date} onChange=${(e) => e.target.value && setDate(e.target.value)} />
        <button type="button" class="btn" data-action="next-day" aria-label="Next day" onClick=${() => setDate(addDays(date, 1))}>→</button>
        <button type="button" class="btn ghost" data-action="today" disabled=${date === today} onClick=${() => setDate(today)}>Today</button>
      </div>
      <span class="spacer"></span>
      ${mayWrite ? html`<button type="button" class="btn primary" data-action="new-reservation" onClick=${() => setDialog({ kind: "new" })}>New reservation</button>` : null}
    </div>
    <p class="day-title" data-day=${date}>${longDate(date)}${date === today ? " · today" : date === addDays(today, 1) ? " · tomorrow" : ""}</p>
    ${notice ? html`<div class=${`notice ${notice.kind}`} role=${notice.kind === "error" ? "alert" : "status"}>${notice.text}</div>` : null}
    ${problem ? html`<${Notice} problem=${problem} />` : null}
    ${rows ? html`<${SlotSummary} date=${date} rules=${rules} reservations=${rows} />` : null}
    <section class="card" data-panel="reservations">
      ${!rows ? html`<p class="muted">Loading the bookings…</p>` : !rows.length ? html`<${Empty}>No reservations on this day.<//>` : html`
        <div class="table-scroll"><table class="list">
          <thead><tr><th>Time</th><th>Guest</th><th class="num">Party</th><th class="phone">Phone</th><th>Tables</th><th>Status</th>${mayWrite ? html`<th><span class="sr-only">Actions</span></th>` : null}</tr></thead>
          <tbody>
            ${rows.map((r) => html`<tr data-reservation-name=${r.name} data-reservation-id=${r.id} data-status=${r.status}
                class=${["cancelled", "no_show", "completed"].includes(r.status) ? "done" : ""}>
              <td class="time">${time(r.starts_at)}</td>
              <td class="guest"><strong>${r.name}</strong>
                <a class="sub phone-inline" href=${`tel:${r.phone}`}>${r.phone}</a>
                ${r.notes || r.email || r.source === "customer" || r.cancel_reason ? html`<span class="sub">${[r.source === "customer" ? "Booked online" : null, r.notes, r.email, r.cancel_reason ? `Cancelled by ${r.cancelled_by === "staff" ? "the restaurant" : "the guest"}: ${r.cancel_reason}` : null].filter(Boolean).join(" · ")}</span>` : null}</td>
              <td class="num">${r.party_size}</td>
              <td class="phone"><a href=${`tel:${r.phone}`}>${r.phone}</a></td>
              <td>${r.status === "checked_in" && seated.has(r.session_id) ? html`${seated.get(r.session_id).join(", ")} <span class="sub">seated</span>`
                : r.table_ids.length ? r.table_ids.map((id) => names.get(id) || "?").join(", ") : html`<span class="muted">—</span>`}</td>
              <td><${Badge} status=${r.status} /></td>
              ${mayWrite ? html`<td class="row-actions"><${RowActions} r=${r} onDialog=${setDialog} onMove=${move} /></td>` : null}
            </tr>`)}
          </tbody>
        </table></div>`}
    </section>
    ${dialog?.kind === "new" ? html`<${BookingDialog} date=${date < today ? today : date} onClose=${() => setDialog(null)} onDone=${done} />` : null}
    ${dialog?.kind === "edit" ? html`<${BookingDialog} r=${dialog.r} date=${date} onClose=${() => setDialog(null)} onDone=${done} />` : null}
    ${dialog?.kind === "cancel" ? html`<${CancelDialog} r=${dialog.r} onClose=${() => setDialog(null)} onDone=${done} />` : null}
    ${dialog?.kind === "check-in" ? html`<${CheckInDialog} r=${dialog.r} onClose=${() => setDialog(null)} onDone=${done} />` : null}
    ${dialog?.kind === "no-show" ? html`<${ConfirmDialog} title=${`Mark ${dialog.r.name} as a no-show?`} label="Mark as no-show" kind="danger"
        onClose=${() => setDialog(null)}
        action=${async () => { const r = dialog.r; await api.post(`/reservations/${r.id}/no-show`); done(r, `${r.name} is marked as a no-show.`); }}>
        <p>${plural(dialog.r.party_size, "guest", "guests")} booked for ${time(dialog.r.starts_at)} did not come. This cannot be undone.</p>
      <//>` : null}`;
}

const DEFAULT_DAY = { windows: [{ start: "12:00", end: "14:30" }, { start: "18:00", end: "22:00" }], slot_minutes: "30", max_covers_per_slot: "20", max_party_size: "8", stay_minutes: "90" };
const LIMITS = { slot_minutes: [5, 240], max_covers_per_slot: [1, 10000], max_party_size: [1, 100], stay_minutes: [15, 720] };
const NUMBERS = [["slot_minutes", "Slot (min)"], ["max_covers_per_slot", "Covers / slot"], ["max_party_size", "Max party"], ["stay_minutes", "Stay (min)"]];

function editable(rules) {
  const first = rules.days[0];
  const base = first ? { ...first, windows: first.windows } : DEFAULT_DAY;
  return WEEKDAYS.map((weekday) => {
    const day = rules.days.find((d) => d.weekday === weekday);
    const from = day || base;
    return {
      weekday, open: !!day, windows: from.windows.map((w) => ({ ...w })),
      ...Object.fromEntries(Object.keys(LIMITS).map((k) => [k, String(from[k])])),
    };
  });
}

function checkDays(days) {
  const errors = {};
  for (const d of days) {
    if (!d.open) continue;
    if (!d.windows.length) errors[`${d.weekday}.windows`] = "Add an opening window or close the day.";
    d.windows.forEach((w, j) => {
      if (!CLOCK.test(w.start) || !CLOCK.test(w.end)) errors[`${d.weekday}.windows[${j}]`] = "Enter both times.";
      else if (minutes(w.end) <= minutes(w.start)) errors[`${d.weekday}.windows[${j}]`] = "Must end after it starts.";
    });
    for (const [k, [min, max]] of Object.entries(LIMITS)) {
      const v = Number(d[k]);
      if (!Number.isInteger(v) || v < min || v > max) errors[`${d.weekday}.${k}`] = `Between ${min} and ${max}.`;
    }
  }
  return errors;
}

function HoursEditor() {
  const [saved, setSaved] = useState(null);
  const [days, setDays] = useState(null);
  const [problem, setProblem] = useState(null);
  const [serverErrors, setServerErrors] = useState({});
  const [shown, setShown] = useState(false);
  const [notice, setNotice] = useState(null);
  useEffect(() => {
    api.get("/reservations/time-slots").then((rules) => { setSaved(editable(rules)); setDays(editable(rules)); }, setProblem);
  }, []);
  if (!days) return problem ? html`<${Notice} problem=${problem} />` : html`<p class="muted">Loading the booking hours…</p>`;

  const local = checkDays(days);
  const dirty = JSON.stringify(days) !== JSON.stringify(saved);
  const error = (key) => (shown && local[key]) || serverErrors[key];
  const change = (i, patch) => { setDays(days.map((d, k) => (k === i ? { ...d, ...patch } : d))); setNotice(null); };
  const setWindow = (i, j, key, value) => change(i, { windows: days[i].windows.map((w, k) => (k === j ? { ...w, [key]: value } : w)) });

  async function save() {
    setShown(true);
    setProblem(null);
    setServerErrors({});
    setNotice(null);
    if (Object.keys(local).length) return;
    const open = days.filter((d) => d.open);
    const body = { days: open.map((d) => ({ weekday: d.weekday, windows: d.windows, ...Object.fromEntries(Object.keys(LIMITS).map((k) => [k, Number(d[k])])) })) };
    try {
      const rules = await api.put("/reservations/time-slots", body);
      setSaved(editable(rules));
      setDays(editable(rules));
      setShown(false);
      setNotice("Booking hours saved. New bookings follow them at once.");
    } catch (p) {
      const mapped = {};
      for (const e of p.errors) {
        const m = e.field.match(/^days\[(\d+)\]\.?(.*)$/);
        if (m && open[Number(m[1])]) mapped[`${open[Number(m[1])].weekday}.${m[2]}`] = e.message;
      }
      setServerErrors(mapped);
      setProblem(p);
    }
  }

  return html`<section class="card" data-panel="booking-hours">
    <div class="summary-head"><h2>Weekly booking hours</h2>
      <span class="muted">Times in ${tenantTimeZone()}. Slots start every “slot” minutes from the opening of each window until before its end.</span></div>
    ${problem ? html`<${Notice} problem=${problem} />` : null}
    ${notice ? html`<${Notice} kind="success">${notice}<//>` : null}
    <div class="table-scroll"><table class="list hours-table">
      <thead><tr><th>Day</th><th>Opening windows</th>${NUMBERS.map(([, label]) => html`<th>${label}</th>`)}</tr></thead>
      <tbody>
        ${days.map((d, i) => html`<tr class=${d.open ? "" : "closed"} data-weekday=${d.weekday}>
          <td class="day">${d.weekday[0].toUpperCase()}${d.weekday.slice(1)}
            <label class="check"><input type="checkbox" name=${`${d.weekday}-open`} checked=${d.open}
              onChange=${(e) => change(i, { open: e.target.checked })} /> Open</label></td>
          ${d.open ? html`<td>
            ${d.windows.map((w, j) => html`<div class="window">
              <input type="time" aria-label=${`${d.weekday} window ${j + 1} opens`} value=${w.start}
                aria-invalid=${error(`${d.weekday}.windows[${j}]`) ? "true" : "false"} onInput=${(e) => setWindow(i, j, "start", e.target.value)} />
              <span>–</span>
              <input type="time" aria-label=${`${d.weekday} window ${j + 1} closes`} value=${w.end}
                aria-invalid=${error(`${d.weekday}.windows[${j}]`) ? "true" : "false"} onInput=${(e) => setWindow(i, j, "end", e.target.value)} />
              <button type="button" class="btn ghost small" aria-label="Remove window"
                onClick=${() => change(i, { windows: d.windows.filter((_, k) => k !== j) })}>✕</button>
            </div>
            ${error(`${d.weekday}.windows[${j}]`) ? html`<p class="field-error">${error(`${d.weekday}.windows[${j}]`)}</p>` : null}`)}
            ${error(`${d.weekday}.windows`) ? html`<p class="field-error">${error(`${d.weekday}.windows`)}</p>` : null}
            <div class="actions">
              <button type="button" class="btn ghost small" data-action="add-window"
                onClick=${() => change(i, { windows: [...d.windows, { start: "18:00", end: "22:00" }] })}>+ Window</button>
              <button type="button" class="btn ghost small" data-action="copy-day" title="Give every open day these hours and limits"
                onClick=${() => { setDays(days.map((o) => (o.open ? { ...d, weekday: o.weekday, windows: d.windows.map((w) => ({ ...w })) } : o))); setNotice(null); }}>Copy to open days</button>
            </div>
          </td>
          ${NUMBERS.map(([k, label]) => html`<td>
            <input type="number" aria-label=${`${d.weekday} ${label}`} name=${`${d.weekday}-${k}`} value=${d[k]} min=${LIMITS[k][0]} max=${LIMITS[k][1]}
              aria-invalid=${error(`${d.weekday}.${k}`) ? "true" : "false"} onInput=${(e) => change(i, { [k]: e.target.value })} />
            ${error(`${d.weekday}.${k}`) ? html`<p class="field-error">${error(`${d.weekday}.${k}`)}</p>` : null}</td>`)}`
          : html`<td colspan=${NUMBERS.length + 1} class="muted">Closed: no bookings (staff can still book outside the rules).</td>`}
        </tr>`)}
      </tbody>
    </table></div>
    <div class="actions dialog-actions">
      ${dirty ? html`<span class="muted">Unsaved changes</span>
        <button type="button" class="btn ghost" onClick=${() => { setDays(saved); setShown(false); setServerErrors({}); setProblem(null); }}>Undo changes</button>` : null}
      <${Action} kind="primary" action=${save} busyLabel="Saving…" data-action="save-hours" disabled=${!dirty}>Save booking hours<//>
    </div>
  </section>`;
}

export function Reservations({ role, rest = [] }) {
  const mayHours = can(role, "timeSlotsWrite");
  const tab = rest[0] === "hours" && mayHours ? "hours" : "day";
  return html`
    <div class="screen-head"><h1>Reservations</h1></div>
    ${mayHours ? html`<nav class="screen-tabs" aria-label="Reservations">
      <a href="/admin/reservations" data-tab="day" aria-current=${tab === "day" ? "page" : undefined}>Bookings by day</a>
      <a href="/admin/reservations/hours" data-tab="hours" aria-current=${tab === "hours" ? "page" : undefined}>Booking hours</a>
    </nav>` : null}
    ${tab === "hours" ? html`<${HoursEditor} />` : html`<${DayView} role=${role} />`}`;
}
