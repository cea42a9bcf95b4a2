// The floor plan: each floor's tables where they stand. Live mode colours every
// table by its state from the seatmap and follows the event stream; edit mode
// (owners and managers) moves, resizes and rotates tables, saved as one layout
// per floor, and adds, changes and deletes tables and floors.

import { html, useEffect, useMemo, useRef, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api, followEvents } from "/shared/api.js";
import { money, tenantTimeZone, time } from "/shared/format.js";
import { Action, Badge, Dialog, Empty, Field, Notice, Select } from "/shared/ui.js";
import { can } from "/admin/roles.js";

/** Pixels per floor unit. */
const SCALE = 60;
/** Positions and sizes snap to a quarter of a unit. */
const STEP = 0.25;
const MIN_SIZE = 0.5;
/** Room around the floor's origin, in units. */
const PAD = 0.5;
const GEOMETRY = ["x", "y", "width", "height", "rotation"];

const STATES = {
  free: { label: "Free", fill: "#e3f4ea", stroke: "#1f7a4d" },
  occupied: { label: "Occupied", fill: "#fbe3b0", stroke: "#8a5a00" },
  reserved_soon: { label: "Reserved soon", fill: "#dce8fb", stroke: "#1d4f9c" },
  out_of_service: { label: "Out of service", fill: "#eceef1", stroke: "#8a94a3" },
};
const EDITING = { fill: "#ffffff", stroke: "#5f6b7a" };
const SHAPES = [["square", "Square"], ["rect", "Rectangle"], ["round", "Round"]];

const snap = (value) => Math.round(value / STEP) * STEP;
const tidy = (value) => Math.round(value * 100) / 100;
const sameGeometry = (a, b) => GEOMETRY.every((k) => Math.abs(a[k] - b[k]) < 1e-9);
const normalAngle = (deg) => tidy(((deg % 360) + 360) % 360);

/** Where the chairs of a table sit, in its own units (before rotation). */
function chairs(shape, w, h, seats) {
  const n = Math.min(seats, 24);
  const gap = 0.24;
  if (shape === "round") {
    const rx = w / 2 + gap;
    const ry = h / 2 + gap;
    return Array.from({ length: n }, (_, i) => {
      const a = (2 * Math.PI * i) / n - Math.PI / 2;
      return [w / 2 + rx * Math.cos(a), h / 2 + ry * Math.sin(a)];
    });
  }
  // Chairs along the long sides first; a square table, or a long one with six or
  // more seats, also gets chairs at its ends.
  const wide = w >= h;
  const square = Math.abs(w - h) < 0.01;
  let ends = 0;
  if (square) ends = Math.floor(n / 4) + (n % 4 === 3 ? 1 : 0);
  else if (n >= 6) ends = 1;
  const long = n - 2 * ends;
  const sideA = Math.ceil(long / 2);
  const sideB = long - sideA;
  const along = (count, length) => Array.from({ length: count }, (_, i) => ((i + 0.5) * length) / count);
  const points = [];
  const [L, S] = wide ? [w, h] : [h, w];
  for (const t of along(sideA, L)) points.push([t, -gap]);
  for (const t of along(sideB, L)) points.push([t, S + gap]);
  for (const t of along(ends, S)) points.push([-gap, t]);
  for (const t of along(ends, S)) points.push([L + gap, t]);
  return wide ? points : points.map(([a, b]) => [b, a]);
}

/** Half the height of a table's bounding box once rotated, in units. */
function halfHeight(t) {
  const r = (t.rotation * Math.PI) / 180;
  return (Math.abs(t.width * Math.sin(r)) + Math.abs(t.height * Math.cos(r))) / 2;
}

/** A server message as a sentence: capital first, full stop last. */
function sentence(text) {
  const t = String(text || "").trim();
  return t ? `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}` : t;
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The line under a table in live mode. */
function liveDetail(t) {
  if (t.state === "occupied" && t.session) {
    return `${t.session.party_size} ${t.session.party_size === 1 ? "guest" : "guests"} · ${money(t.session.open_order_amount)}`;
  }
  if (t.state === "reserved_soon" && t.reservation) return `${clip(t.reservation.name, 12)} · ${time(t.reservation.starts_at)}`;
  if (t.state === "out_of_service") return "Out of service";
  return null;
}

function TableShape({ t, editing, selected, onPointerDown, onResizeDown, onKeyDown, onSelect }) {
  const w = t.width * SCALE;
  const h = t.height * SCALE;
  const look = editing ? (t.active ? EDITING : STATES.out_of_service) : STATES[t.state] || STATES.free;
  const stroke = selected ? "#2f6fde" : look.stroke;
  const dashed = !t.active ? "6 4" : undefined;
  const cx = (t.x + t.width / 2) * SCALE;
  const cy = (t.y + t.height / 2) * SCALE;
  const detail = editing ? null : liveDetail(t);
  const below = (halfHeight(t) + 0.72) * SCALE;
  const label = `${t.name}, ${t.seats} seats, ${editing ? (t.active ? "in service" : "out of service") : STATES[t.state]?.label || t.state}`;
  return html`
    <g class=${`floor-table${editing ? " movable" : ""}${selected ? " selected" : ""}`} data-table-name=${t.name} data-table-id=${t.id}
        data-state=${t.state} tabindex="0" role="button" aria-label=${label} aria-pressed=${selected ? "true" : "false"}
        onPointerDown=${onPointerDown} onKeyDown=${onKeyDown} onClick=${onSelect} onFocus=${onSelect}>
      <g transform=${`translate(${t.x * SCALE} ${t.y * SCALE}) rotate(${t.rotation} ${w / 2} ${h / 2})`}>
        ${chairs(t.shape, t.width, t.height, t.seats).map(([x, y]) => html`
          <circle cx=${x * SCALE} cy=${y * SCALE} r=${0.13 * SCALE} fill=${look.stroke} fill-opacity="0.28" />`)}
        ${t.shape === "round"
          ? html`<ellipse cx=${w / 2} cy=${h / 2} rx=${w / 2} ry=${h / 2} fill=${look.fill} stroke=${stroke}
              stroke-width=${selected ? 3 : 2} stroke-dasharray=${dashed} />`
          : html`<rect width=${w} height=${h} rx="6" fill=${look.fill} stroke=${stroke}
              stroke-width=${selected ? 3 : 2} stroke-dasharray=${dashed} />`}
        ${editing && selected ? html`
          <rect class="resize-handle" data-action="resize" x=${w - 7} y=${h - 7} width="14" height="14" rx="3"
            fill="#2f6fde" stroke="#fff" stroke-width="2" onPointerDown=${onResizeDown} />` : null}
      </g>
      <text x=${cx} y=${cy - 3} text-anchor="middle" class="table-name" fill="#1d2330">${t.name}</text>
      <text x=${cx} y=${cy + 12} text-anchor="middle" class="table-seats" fill="#5f6b7a">
        ${t.state === "occupied" && t.session && !editing ? `${t.session.party_size}/${t.seats}` : `${t.seats} seats`}
      </text>
      ${detail ? html`<text x=${cx} y=${cy + below} text-anchor="middle" class="table-detail" fill=${look.stroke}>${detail}</text>` : null}
    </g>`;
}

/** How far a table and its chairs reach right and down, in units. */
function reach(t) {
  const r = (t.rotation * Math.PI) / 180;
  const halfW = (Math.abs(t.width * Math.cos(r)) + Math.abs(t.height * Math.sin(r))) / 2;
  return [t.x + t.width / 2 + halfW + 0.4, t.y + t.height / 2 + halfHeight(t) + 0.4];
}

/**
 * The drawing of one floor, shrunk to fit its card (never enlarged); in edit mode
 * tables move under the pointer. The floor's origin sits `PAD` units in, so chairs
 * of a table at 0,0 stay visible.
 */
function FloorCanvas({ tables, editing, selected, onSelect, onPlace }) {
  const svg = useRef(null);
  const drag = useRef(null);
  const frozen = useRef(null);
  const far = tables.map(reach);
  let width = Math.max(editing ? 10 : 6, ...far.map(([x]) => x + (editing ? 3 : 0.6)));
  let height = Math.max(editing ? 7 : 4, ...far.map(([, y]) => y + (editing ? 2 : 0.5)));
  // The drawing keeps its size while a table is dragged, so it does not rescale under the pointer.
  if (drag.current && frozen.current) [width, height] = frozen.current;
  const full = [(width + PAD) * SCALE, (height + PAD) * SCALE];

  // Focus follows the selection, so arrow keys move the table that is outlined.
  useEffect(() => {
    const focused = document.activeElement?.closest?.("g.floor-table");
    if (focused && focused.dataset.tableId !== selected) {
      const next = selected && svg.current?.querySelector(`g.floor-table[data-table-id="${selected}"]`);
      if (next) next.focus({ preventScroll: true });
      else focused.blur();
    }
  }, [selected]);

  function start(event, t, kind) {
    if (!editing || (event.pointerType === "mouse" && event.button !== 0)) return;
    event.stopPropagation();
    event.preventDefault();
    onSelect(t.id);
    event.currentTarget.closest?.("g.floor-table")?.focus({ preventScroll: true });
    svg.current.setPointerCapture(event.pointerId);
    frozen.current = [width, height];
    // Screen pixels per drawing pixel: the drawing may be shrunk to fit.
    const ratio = svg.current.getBoundingClientRect().width / full[0] || 1;
    drag.current = { ratio,  id: t.id, kind, pointerId: event.pointerId, x0: event.clientX, y0: event.clientY, from: t, moved: false };
  }

  function move(event) {
    const d = drag.current;
    if (!d || event.pointerId !== d.pointerId) return;
    if (!d.moved && Math.hypot(event.clientX - d.x0, event.clientY - d.y0) < 3) return;
    const dx = (event.clientX - d.x0) / d.ratio;
    const dy = (event.clientY - d.y0) / d.ratio;
    d.moved = true;
    const t = d.from;
    if (d.kind === "move") {
      onPlace(t.id, { x: Math.max(0, tidy(snap(t.x + dx / SCALE))), y: Math.max(0, tidy(snap(t.y + dy / SCALE))) });
    } else {
      // The pointer's travel in the table's own axes, so a rotated table grows along its sides.
      const r = (t.rotation * Math.PI) / 180;
      const lx = (dx * Math.cos(r) + dy * Math.sin(r)) / SCALE;
      const ly = (-dx * Math.sin(r) + dy * Math.cos(r)) / SCALE;
      let w = Math.max(MIN_SIZE, tidy(snap(t.width + lx)));
      let h = Math.max(MIN_SIZE, tidy(snap(t.height + ly)));
      if (t.shape !== "rect") w = h = Math.max(w, h);
      onPlace(t.id, { width: w, height: h });
    }
  }

  function end(event) {
    const d = drag.current;
    if (!d || event.pointerId !== d.pointerId) return;
    drag.current = null;
    frozen.current = null;
    if (svg.current.hasPointerCapture(event.pointerId)) svg.current.releasePointerCapture(event.pointerId);
  }

  function keys(event, t) {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onSelect(t.id);
      return;
    }
    if (!editing) return;
    const step = event.shiftKey ? 1 : STEP;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const by = moves[event.key];
    if (!by) return;
    event.preventDefault();
    onSelect(t.id);
    onPlace(t.id, { x: Math.max(0, tidy(t.x + by[0])), y: Math.max(0, tidy(t.y + by[1])) });
  }

  return html`
    <div class=${`floor-scroll${editing ? " editing" : ""}`}>
      <svg ref=${svg} width=${full[0]} height=${full[1]} viewBox=${`0 0 ${full[0]} ${full[1]}`} class="floor-svg" data-floor-canvas
          data-scale=${SCALE} data-pad=${PAD * SCALE} role="group" aria-label="Floor plan"
          onPointerMove=${move} onPointerUp=${end} onPointerCancel=${end}
          onPointerDown=${(e) => e.target === svg.current && onSelect(null)}>
        ${editing ? html`
          <defs><pattern id="floor-grid" x=${PAD * SCALE} y=${PAD * SCALE} width=${SCALE} height=${SCALE} patternUnits="userSpaceOnUse">
            <path d=${`M ${SCALE} 0 L 0 0 0 ${SCALE}`} fill="none" stroke="#e4e7ec" stroke-width="1" />
          </pattern></defs>
          <rect width="100%" height="100%" fill="url(#floor-grid)" pointer-events="none" />` : null}
        <g transform=${`translate(${PAD * SCALE} ${PAD * SCALE})`}>
          ${tables.map((t) => html`<${TableShape} key=${t.id} t=${t} editing=${editing} selected=${selected === t.id}
              onPointerDown=${(e) => start(e, t, "move")} onResizeDown=${(e) => start(e, t, "resize")}
              onKeyDown=${(e) => keys(e, t)} onSelect=${() => onSelect(t.id)} />`)}
        </g>
      </svg>
    </div>`;
}

function Legend({ tables }) {
  return html`<ul class="floor-legend" aria-label="Legend">
    ${Object.entries(STATES).map(([state, look]) => html`<li>
      <span class=${`swatch ${state}`} aria-hidden="true"></span>${look.label}
      <span class="muted">${tables.filter((t) => t.state === state).length}</span></li>`)}
  </ul>`;
}

/** What a table is doing right now, for the live side panel. */
function LiveDetails({ t }) {
  if (!t) return html`<h2>Tables</h2><p class="muted">Select a table to see who is there. The plan follows the room live.</p>`;
  return html`
    <h2>${t.name} <${Badge} status=${t.state} /></h2>
    <dl class="facts">
      <dt>Seats</dt><dd>${t.seats}</dd>
      ${t.session ? html`
        <dt>Party</dt><dd>${t.session.party_size} ${t.session.party_size === 1 ? "guest" : "guests"}</dd>
        <dt>Seated since</dt><dd>${time(t.session.seated_since)}</dd>
        <dt>Open orders</dt><dd>${t.session.open_order_count}</dd>
        <dt>Open amount</dt><dd>${money(t.session.open_order_amount)}</dd>` : null}
      ${t.reservation ? html`
        <dt>${t.state === "reserved_soon" ? "Reserved for" : "Next booking"}</dt><dd>${t.reservation.name}</dd>
        <dt>Party</dt><dd>${t.reservation.party_size}</dd>
        <dt>At</dt><dd>${time(t.reservation.starts_at)}</dd>` : null}
    </dl>`;
}

/** Name, seats, shape and service of one table; its place is part of the layout. */
function TableEditor({ t, onPlace, onSaved, onDelete }) {
  const [form, setForm] = useState({ name: t.name, seats: String(t.seats), shape: t.shape, active: t.active });
  const [problem, setProblem] = useState(null);
  const [done, setDone] = useState(false);
  const set = (key) => (e) => { setForm({ ...form, [key]: e.target.type === "checkbox" ? e.target.checked : e.target.value }); setDone(false); };
  const local = {};
  if (!form.name.trim()) local.name = "Give the table a name.";
  const seats = Number(form.seats);
  if (!Number.isInteger(seats) || seats < 1 || seats > 100) local.seats = "Between 1 and 100 seats.";
  const [shown, setShown] = useState(false);
  const error = (name) => (shown && local[name]) || problem?.field(name) || (problem?.body.field === name ? problem.message : null);

  async function save() {
    setShown(true);
    setProblem(null);
    if (Object.keys(local).length) return;
    const patch = {};
    if (form.name.trim() !== t.name) patch.name = form.name.trim();
    if (seats !== t.seats) patch.seats = seats;
    if (form.shape !== t.shape) patch.shape = form.shape;
    if (form.active !== t.active) patch.active = form.active;
    if (!Object.keys(patch).length) return;
    try {
      const table = await api.patch(`/tables/${t.id}`, patch);
      setDone(true);
      if (patch.shape && patch.shape !== "rect" && t.width !== t.height) {
        const side = Math.max(t.width, t.height);
        onPlace(t.id, { width: side, height: side });
      }
      onSaved(table);
    } catch (p) {
      setProblem(p);
    }
  }

  const number = (key, min) => (e) => {
    const value = Number(e.target.value);
    if (e.target.value === "" || !Number.isFinite(value)) return;
    if (key === "rotation") return onPlace(t.id, { rotation: normalAngle(value) });
    const v = Math.max(min, tidy(value));
    if ((key === "width" || key === "height") && t.shape !== "rect") return onPlace(t.id, { width: v, height: v });
    onPlace(t.id, { [key]: v });
  };

  return html`
    <h2>Table ${t.name}</h2>
    <form data-form="table" onSubmit=${(e) => { e.preventDefault(); save(); }}>
      ${problem && !problem.errors.length && !problem.body.field ? html`<${Notice} problem=${problem} />` : null}
      ${done ? html`<${Notice} kind="success">Table saved.<//>` : null}
      <div class="form-grid two">
        <${Field} label="Name" name="table-name" value=${form.name} maxLength="40" onInput=${set("name")} error=${error("name")} />
        <${Field} label="Seats" name="table-seats" type="number" min="1" max="100" value=${form.seats} onInput=${set("seats")} error=${error("seats")} />
      </div>
      <${Select} label="Shape" name="table-shape" value=${form.shape} options=${SHAPES} onChange=${set("shape")} error=${error("shape")} />
      <label class="check"><input type="checkbox" name="table-active" checked=${form.active} onChange=${set("active")} /> In service</label>
      <${Action} kind="primary" action=${save} busyLabel="Saving…" data-action="save-table">Save table<//>
    </form>
    <h3 class="floor-subhead">Place</h3>
    <p class="hint">Drag the table, or use the arrow keys (Shift moves a whole unit). Drag the blue corner to resize. Changes here are saved with the layout.</p>
    <div class="form-grid three">
      <${Field} label="X" name="table-x" type="number" step=${STEP} min="0" value=${t.x} onChange=${number("x", 0)} />
      <${Field} label="Y" name="table-y" type="number" step=${STEP} min="0" value=${t.y} onChange=${number("y", 0)} />
      <${Field} label="Rotation°" name="table-rotation" type="number" step="15" min="0" max="359" value=${t.rotation}
        onChange=${number("rotation", 0)} data-input="rotation" />
      <${Field} label="Width" name="table-width" type="number" step=${STEP} min=${MIN_SIZE} value=${t.width} onChange=${number("width", MIN_SIZE)} />
      <${Field} label="Depth" name="table-height" type="number" step=${STEP} min=${MIN_SIZE} value=${t.height} onChange=${number("height", MIN_SIZE)} />
    </div>
    <div class="actions">
      <button type="button" class="btn small" data-action="rotate" onClick=${() => onPlace(t.id, { rotation: normalAngle(t.rotation + 45) })}>Rotate 45°</button>
      <button type="button" class="btn small danger" data-action="delete-table" onClick=${() => onDelete(t)}>Delete table</button>
    </div>`;
}

/** The next free name like the floor's others: T7 after T6. */
function suggestName(floorTables, allTables) {
  const prefix = floorTables.map((t) => t.name.match(/^(.*?)(\d+)$/)).find(Boolean)?.[1] ?? "T";
  const used = new Set(allTables.map((t) => t.name));
  let n = 1;
  for (const t of allTables) {
    const m = t.name.match(/^(.*?)(\d+)$/);
    if (m && m[1] === prefix) n = Math.max(n, Number(m[2]) + 1);
  }
  while (used.has(`${prefix}${n}`)) n += 1;
  return `${prefix}${n}`;
}

/** A free spot on the floor's 3-unit grid for a new table. */
function freeSpot(tables, w, h) {
  const clear = (x, y) => tables.every((t) => x + w + 0.5 <= t.x || t.x + t.width + 0.5 <= x || y + h + 0.5 <= t.y || t.y + t.height + 0.5 <= y);
  for (let row = 0; row < 50; row++) {
    for (let col = 0; col < 5; col++) {
      if (clear(col * 3, row * 3)) return { x: col * 3, y: row * 3 };
    }
  }
  return { x: 0, y: 0 };
}

function AddTableDialog({ floor, floorTables, allTables, onClose, onAdded }) {
  const [form, setForm] = useState({ name: suggestName(floorTables, allTables), seats: "4", shape: "square" });
  const [problem, setProblem] = useState(null);
  const [shown, setShown] = useState(false);
  const set = (key) => (e) => setForm({ ...form, [key]: e.target.value });
  const seats = Number(form.seats);
  const local = {};
  if (!form.name.trim()) local.name = "Give the table a name.";
  if (!Number.isInteger(seats) || seats < 1 || seats > 100) local.seats = "Between 1 and 100 seats.";
  const error = (name) => (shown && local[name]) || problem?.field(name) || (problem?.body.field === name ? problem.message : null);

  async function add() {
    setShown(true);
    setProblem(null);
    if (Object.keys(local).length) return;
    const width = form.shape === "rect" ? 2 : 1;
    const spot = freeSpot(floorTables, width, 1);
    try {
      const table = await api.post("/tables", { floor_id: floor.id, name: form.name.trim(), seats, shape: form.shape, ...spot, width, height: 1 });
      onAdded(table);
    } catch (p) {
      setProblem(p);
    }
  }

  return html`<${Dialog} title=${`Add a table to ${floor.name}`} onClose=${onClose}>
    <form data-form="add-table" onSubmit=${(e) => { e.preventDefault(); add(); }}>
      ${problem && !problem.errors.length && !problem.body.field ? html`<${Notice} problem=${problem} />` : null}
      <div class="form-grid">
        <${Field} label="Name" name="new-table-name" value=${form.name} maxLength="40" onInput=${set("name")} error=${error("name")} />
        <${Field} label="Seats" name="new-table-seats" type="number" min="1" max="100" value=${form.seats} onInput=${set("seats")} error=${error("seats")} />
        <${Select} label="Shape" name="new-table-shape" value=${form.shape} options=${SHAPES} onChange=${set("shape")} error=${error("shape")} />
      </div>
      <p class="hint">The table appears in a free spot; drag it where it belongs and save the layout.</p>
      <div class="actions dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Cancel</button>
        <${Action} kind="primary" action=${add} busyLabel="Adding…" data-action="confirm-add-table">Add table<//>
      </div>
    </form>
  <//>`;
}

function DeleteTableDialog({ t, onClose, onDeleted, onRetired }) {
  const [problem, setProblem] = useState(null);
  async function remove() {
    setProblem(null);
    try {
      await api.delete(`/tables/${t.id}`);
      onDeleted(t);
    } catch (p) {
      setProblem(p);
    }
  }
  async function retire() {
    try {
      onRetired(await api.patch(`/tables/${t.id}`, { active: false }));
    } catch (p) {
      setProblem(p);
    }
  }
  const inUse = problem?.code === "table_in_use";
  return html`<${Dialog} title=${`Delete table ${t.name}?`} onClose=${onClose}>
    ${problem ? html`<div class="notice error" role="alert" data-problem=${problem.code}>
      ${inUse ? html`<strong>${t.name} cannot be deleted.</strong> ` : null}${sentence(problem.message)}</div>` : html`
      <p>${t.name} (${t.seats} seats) will be removed from the floor plan. This cannot be undone.</p>`}
    <div class="actions dialog-actions">
      <button type="button" class="btn" onClick=${onClose}>${inUse ? "Close" : "Keep it"}</button>
      ${inUse
        ? t.active ? html`<${Action} kind="primary" action=${retire} busyLabel="Saving…" data-action="retire-table">Take out of service<//>` : null
        : html`<${Action} kind="danger" action=${remove} busyLabel="Deleting…" data-action="confirm-delete">Delete table<//>`}
    </div>
  <//>`;
}

function AddFloorDialog({ count, onClose, onAdded }) {
  const [name, setName] = useState("");
  const [problem, setProblem] = useState(null);
  const [shown, setShown] = useState(false);
  const local = name.trim() ? null : "Give the floor a name.";
  async function add() {
    setShown(true);
    setProblem(null);
    if (local) return;
    try {
      onAdded(await api.post("/floors", { name: name.trim(), position: count }));
    } catch (p) {
      setProblem(p);
    }
  }
  return html`<${Dialog} title="Add a floor" onClose=${onClose}>
    <form data-form="add-floor" onSubmit=${(e) => { e.preventDefault(); add(); }}>
      ${problem && !problem.field("name") && problem.body.field !== "name" ? html`<${Notice} problem=${problem} />` : null}
      <${Field} label="Name" name="floor-name" value=${name} maxLength="80" placeholder="Terrace" onInput=${(e) => setName(e.target.value)}
        error=${(shown && local) || problem?.field("name") || (problem?.body.field === "name" ? problem.message : null)} />
      <div class="actions dialog-actions">
        <button type="button" class="btn" onClick=${onClose}>Cancel</button>
        <${Action} kind="primary" action=${add} busyLabel="Adding…" data-action="confirm-add-floor">Add floor<//>
      </div>
    </form>
  <//>`;
}

/** A layout problem, with table names instead of `tables[2].x`. */
function layoutMessage(problem, sent) {
  if (!problem.errors.length) return problem.message;
  return problem.errors.map((e) => {
    const m = e.field.match(/^tables\[(\d+)\]\.?(.*)$/);
    const who = m && sent[Number(m[1])] ? `${sent[Number(m[1])].name}${m[2] && m[2] !== "id" ? ` ${m[2]}` : ""}` : e.field;
    return `${who}: ${e.message}`;
  }).join("; ") + ".";
}

export function FloorPlan({ role }) {
  const mayEdit = can(role, "floorWrite");
  const [seatmap, setSeatmap] = useState(null);
  const [loadProblem, setLoadProblem] = useState(null);
  const [updatedAt, setUpdatedAt] = useState(null);
  const [floorId, setFloorId] = useState(null);
  const [mode, setMode] = useState("live");
  const [moved, setMoved] = useState({});
  const [selected, setSelected] = useState(null);
  const [dialog, setDialog] = useState(null);
  const [saving, setSaving] = useState(false);
  const [saveProblem, setSaveProblem] = useState(null);
  const [notice, setNotice] = useState(null);
  const editing = mode === "edit" && mayEdit;

  function refresh() {
    return api.get("/tables/seatmap").then((map) => {
      setSeatmap(map);
      setLoadProblem(null);
      setUpdatedAt(new Date());
      return map;
    }, setLoadProblem);
  }

  useEffect(() => {
    refresh();
    let timer = null;
    const stop = followEvents((event) => {
      if (!/^(session|order|reservation)\./.test(event.event || "")) return;
      clearTimeout(timer);
      timer = setTimeout(refresh, 300);
    });
    return () => { stop(); clearTimeout(timer); };
  }, []);

  const floorsNow = seatmap?.floors || [];
  const unsaved = Object.keys(moved).filter((id) => floorsNow.some((f) => f.tables.some((t) => t.id === id)));
  const dirty = unsaved.length > 0;
  useEffect(() => {
    if (!dirty) return undefined;
    const warn = (e) => { e.preventDefault(); e.returnValue = ""; };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  const floors = seatmap?.floors || [];
  const floor = floors.find((f) => f.id === floorId) || floors[0];
  const allTables = useMemo(() => floors.flatMap((f) => f.tables), [seatmap]);
  const byId = useMemo(() => new Map(allTables.map((t) => [t.id, t])), [allTables]);
  const tables = (floor?.tables || []).map((t) => (moved[t.id] ? { ...t, ...moved[t.id] } : t));
  const current = tables.find((t) => t.id === selected) || null;

  /** Puts a table somewhere; back where it was saved, it is no longer a change. */
  function place(id, change) {
    setSaveProblem(null);
    setNotice(null);
    setMoved((all) => {
      const base = byId.get(id);
      if (!base) return all;
      const next = { ...pick(base), ...all[id], ...change };
      const rest = { ...all };
      if (sameGeometry(next, base)) delete rest[id];
      else rest[id] = next;
      return rest;
    });
  }

  async function saveLayout() {
    setSaving(true);
    setSaveProblem(null);
    setNotice(null);
    const groups = new Map();
    for (const [id, geometry] of Object.entries(moved).filter(([id]) => byId.has(id))) {
      const t = byId.get(id);
      if (!t) continue;
      if (!groups.has(t.floor_id)) groups.set(t.floor_id, []);
      groups.get(t.floor_id).push({ t, geometry });
    }
    let count = 0;
    try {
      for (const [fid, items] of groups) {
        const body = { tables: items.map(({ t, geometry: g }) => ({ id: t.id, x: tidy(g.x), y: tidy(g.y), width: tidy(g.width), height: tidy(g.height), rotation: normalAngle(g.rotation) })) };
        try {
          const saved = await api.put(`/floors/${fid}/layout`, body);
          const fresh = new Map(saved.data.map((t) => [t.id, t]));
          setSeatmap((map) => ({ ...map, floors: map.floors.map((f) => ({ ...f, tables: f.tables.map((t) => (fresh.has(t.id) ? { ...t, ...pick(fresh.get(t.id)) } : t)) })) }));
          setMoved((all) => {
            const rest = { ...all };
            for (const { t } of items) delete rest[t.id];
            return rest;
          });
          count += items.length;
        } catch (p) {
          p.layoutMessage = layoutMessage(p, items.map(({ t }) => t));
          throw p;
        }
      }
      setNotice(`Layout saved: ${count} ${count === 1 ? "table" : "tables"} placed.`);
    } catch (p) {
      setSaveProblem(p);
      // A table someone else deleted meanwhile drops out of the plan and of the changes.
      if (p.status === 404 || p.status === 422) refresh();
    } finally {
      setSaving(false);
    }
  }

  function switchMode(next) {
    if (next === "live" && dirty) {
      setDialog({ kind: "discard" });
      return;
    }
    setMode(next);
    setSelected(null);
    setNotice(null);
  }

  if (loadProblem && !seatmap) return html`<${Notice} problem=${loadProblem} />`;
  if (!seatmap) return html`<p class="muted">Loading the floor plan…</p>`;

  const tableSaved = (table) => {
    setSeatmap((map) => ({ ...map, floors: map.floors.map((f) => ({ ...f, tables: f.tables.map((t) => (t.id === table.id ? { ...t, ...table } : t)) })) }));
    refresh();
  };

  return html`
    <div class="screen-head">
      <h1>Floor plan</h1>
      <div class="actions">
        ${!editing && updatedAt ? html`<span class="muted live-dot" data-live>Live · updated ${updatedAt.toLocaleTimeString([], { timeZone: tenantTimeZone(), hour: "2-digit", minute: "2-digit", second: "2-digit" })}</span>` : null}
        ${mayEdit ? html`<div class="segmented" role="group" aria-label="Mode">
          <button type="button" class="btn" aria-pressed=${!editing} data-action="live-mode" onClick=${() => switchMode("live")}>Live</button>
          <button type="button" class="btn" aria-pressed=${editing} data-action="edit-mode" onClick=${() => switchMode("edit")}>Edit layout</button>
        </div>` : null}
      </div>
    </div>
    ${loadProblem ? html`<${Notice} problem=${loadProblem} />` : null}
    ${floors.length ? html`
      <div class="floor-tabs" role="tablist" aria-label="Floors">
        ${floors.map((f) => html`<button type="button" role="tab" class="floor-tab" aria-selected=${f.id === floor.id} data-floor=${f.name}
            onClick=${() => { setFloorId(f.id); setSelected(null); }}>
          ${f.name}${editing
            ? f.tables.some((t) => moved[t.id]) ? html` <span class="dot" title="Unsaved changes">•</span>` : null
            : html` <span class="count">${f.tables.filter((t) => t.state === "free").length}/${f.tables.length} free</span>`}
        </button>`)}
        ${editing ? html`<button type="button" class="btn ghost small" data-action="add-floor" onClick=${() => setDialog({ kind: "add-floor" })}>+ Add floor</button>` : null}
      </div>` : null}
    ${!floors.length ? html`<div class="card">
        <${Empty}>No floors yet.${mayEdit ? " Add a floor, then place its tables." : " An owner or manager draws the floor plan."}<//>
        ${mayEdit ? html`<button type="button" class="btn primary" data-action="add-floor" onClick=${() => { setMode("edit"); setDialog({ kind: "add-floor" }); }}>Add floor</button>` : null}
      </div>` : html`
    <div class="floor-layout">
      <section class="card floor-card">
        ${editing ? html`<div class="floor-toolbar">
          <div class="actions">
            <button type="button" class="btn" data-action="add-table" onClick=${() => setDialog({ kind: "add-table" })}>+ Add table</button>
            ${!floor.tables.length ? html`<${Action} kind="ghost danger" data-action="delete-floor" busyLabel="Deleting…" action=${async () => {
              try { await api.delete(`/floors/${floor.id}`); setFloorId(null); await refresh(); } catch (p) { setSaveProblem(p); }
            }}>Delete this floor<//>` : null}
          </div>
          <div class="actions">
            <span class="muted" data-unsaved=${unsaved.length}>${dirty ? `${unsaved.length} unsaved ${unsaved.length === 1 ? "change" : "changes"}` : "All changes saved"}</span>
            ${dirty ? html`<button type="button" class="btn ghost" data-action="discard-layout" onClick=${() => { setMoved({}); setSaveProblem(null); }}>Undo changes</button>` : null}
            <button type="button" class="btn primary" data-action="save-layout" disabled=${!dirty || saving} aria-busy=${saving}
              onClick=${saveLayout}>${saving ? "Saving…" : "Save layout"}</button>
          </div>
        </div>` : null}
        ${saveProblem ? html`<div class="notice error" role="alert" data-problem=${saveProblem.code}>
          ${saveProblem.layoutMessage ? `The layout was not saved: ${saveProblem.layoutMessage}` : saveProblem.message}
          ${saveProblem.layoutMessage ? " Your changes are still here; try again." : null}</div>` : null}
        ${notice ? html`<${Notice} kind="success">${notice}<//>` : null}
        ${tables.length ? html`<${FloorCanvas} tables=${tables} editing=${editing} selected=${selected} onSelect=${setSelected} onPlace=${place} />`
          : html`<${Empty}>${floor.name} has no tables yet.${editing ? " Add one to start." : ""}<//>`}
        ${editing ? null : html`<${Legend} tables=${floor.tables} />`}
      </section>
      <aside class="card floor-side" data-panel=${editing ? "table-editor" : "table-details"}>
        ${editing
          ? current
            ? html`<${TableEditor} key=${current.id} t=${current} onPlace=${place} onSaved=${tableSaved}
                onDelete=${(t) => setDialog({ kind: "delete", t })} />`
            : html`<h2>Edit the layout</h2><p class="muted">Select a table to rename it, change its seats or shape, rotate it or take it out of service.</p>
                <p class="muted">Drag tables to move them; arrow keys move the selected table. Nothing is stored until you save the layout.</p>`
          : html`<${LiveDetails} t=${current} />`}
      </aside>
    </div>`}
    ${dialog?.kind === "add-table" ? html`<${AddTableDialog} floor=${floor} floorTables=${tables} allTables=${allTables}
        onClose=${() => setDialog(null)}
        onAdded=${async (table) => { setDialog(null); await refresh(); setSelected(table.id); setNotice(`Table ${table.name} added.`); }} />` : null}
    ${dialog?.kind === "delete" ? html`<${DeleteTableDialog} t=${dialog.t} onClose=${() => setDialog(null)}
        onDeleted=${async (t) => { setDialog(null); setSelected(null); setMoved((all) => { const rest = { ...all }; delete rest[t.id]; return rest; }); await refresh(); setNotice(`Table ${t.name} deleted.`); }}
        onRetired=${(table) => { setDialog(null); tableSaved(table); setNotice(`Table ${table.name} is out of service.`); }} />` : null}
    ${dialog?.kind === "add-floor" ? html`<${AddFloorDialog} count=${floors.length} onClose=${() => setDialog(null)}
        onAdded=${async (f) => { setDialog(null); await refresh(); setFloorId(f.id); setSelected(null); setNotice(`Floor ${f.name} added.`); }} />` : null}
    ${dialog?.kind === "discard" ? html`<${Dialog} title="Leave without saving?" onClose=${() => setDialog(null)}>
        <p>${unsaved.length} table ${unsaved.length === 1 ? "change is" : "changes are"} not saved yet.</p>
        <div class="actions dialog-actions">
          <button type="button" class="btn" onClick=${() => setDialog(null)}>Keep editing</button>
          <button type="button" class="btn danger" data-action="discard-and-leave" onClick=${() => { setMoved({}); setSaveProblem(null); setDialog(null); setMode("live"); setSelected(null); }}>Discard changes</button>
        </div>
      <//>` : null}`;
}

function pick(t) {
  return { x: t.x, y: t.y, width: t.width, height: t.height, rotation: t.rotation };
}
