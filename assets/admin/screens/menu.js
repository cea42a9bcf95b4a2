// The menu: categories and their items with prices, tax rates, stations and
// modifiers; an item is marked unavailable ("86") in one click. An item cooks at
// its own kitchen station, else at its category's, else at the default one.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { all, api } from "/shared/api.js";
import { money } from "/shared/format.js";
import { Action, Confirm, Dialog, Empty, Field, Notice, Select } from "/shared/ui.js";
import { can } from "/admin/roles.js";

const BLANK_ITEM = { name: "", description: "", price: "", tax_rate: "", station_id: "", available: true, modifiers: [] };

/** The station a line of `item` cooks at, and whether it comes from the category. */
function cooksAt(item, categories, stations) {
  const category = categories.find((c) => c.id === item.category_id);
  const id = item.station_id || category?.station_id;
  const station = stations.find((s) => s.id === id && s.active) || stations.find((s) => s.is_default);
  return { name: station?.name || "Default", inherited: !item.station_id };
}

/** Options for a station picker: "inherit" first, then every station. */
function stationOptions(stations, inherit) {
  return [["", inherit], ...stations.map((s) => [s.id, s.active ? s.name : `${s.name} (off)`])];
}

function ItemForm({ item, categories, stations, categoryId, onSaved, onClose }) {
  const [form, setForm] = useState(
    item
      ? { ...item, price: String(item.price), tax_rate: String(item.tax_rate), station_id: item.station_id || "",
          modifiers: item.modifiers.map((m) => ({ name: m.name, price: String(m.price) })) }
      : { ...BLANK_ITEM, category_id: categoryId },
  );
  const [checked, setChecked] = useState({});
  const [problem, setProblem] = useState(null);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
  const setModifier = (i, name, value) =>
    setForm({ ...form, modifiers: form.modifiers.map((m, j) => (j === i ? { ...m, [name]: value } : m)) });

  async function save() {
    const missing = {};
    if (!form.name.trim()) missing.name = "Give the item a name.";
    if (form.price === "" || Number.isNaN(Number(form.price))) missing.price = "Enter a price, such as 12.50.";
    if (form.tax_rate !== "" && Number.isNaN(Number(form.tax_rate))) missing.tax_rate = "Enter a percentage, such as 8.875.";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    const body = {
      name: form.name.trim(),
      description: form.description,
      category_id: form.category_id,
      price: Number(form.price),
      tax_rate: form.tax_rate === "" ? 0 : Number(form.tax_rate),
      available: form.available,
      station_id: form.station_id || null,
      modifiers: form.modifiers.filter((m) => m.name.trim()).map((m) => ({ name: m.name.trim(), price: Number(m.price || 0) })),
    };
    try {
      if (item) await api.patch(`/menu/items/${item.id}`, body);
      else await api.post("/menu/items", body);
      onSaved();
    } catch (failed) {
      setProblem(failed);
    }
  }

  const error = (name) => checked[name] || problem?.field(name);
  return html`<${Dialog} title=${item ? `Edit ${item.name}` : "New item"} onClose=${onClose}>
    <${Notice} problem=${problem} />
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <${Field} label="Name" name="name" value=${form.name} error=${error("name")} onInput=${set("name")} />
      <${Field} label="Description" name="description" value=${form.description} error=${error("description")} onInput=${set("description")} />
      <div class="form-grid">
        <${Field} label="Price" name="price" inputmode="decimal" value=${form.price} error=${error("price")} onInput=${set("price")} />
        <${Field} label="Tax rate (%)" name="tax_rate" inputmode="decimal" value=${form.tax_rate} error=${error("tax_rate")} onInput=${set("tax_rate")} />
        <${Select} label="Category" name="category_id" value=${form.category_id} error=${error("category_id")} onChange=${set("category_id")}
          options=${categories.map((c) => [c.id, c.name])} />
        <${Select} label="Kitchen station" name="station_id" value=${form.station_id} error=${error("station_id")} onChange=${set("station_id")}
          options=${stationOptions(stations, `As its category (${cooksAt({ category_id: form.category_id }, categories, stations).name})`)} />
      </div>
      <label class="check"><input type="checkbox" name="available" checked=${form.available} onChange=${set("available")} /> Available</label>
      <h3>Modifiers</h3>
      ${form.modifiers.map((m, i) => html`<div class="modifier-row">
        <${Field} label="Modifier" name=${`modifiers[${i}].name`} value=${m.name} error=${problem?.field(`modifiers[${i}]`)}
          onInput=${(e) => setModifier(i, "name", e.target.value)} />
        <${Field} label="Extra price" name=${`modifiers[${i}].price`} inputmode="decimal" value=${m.price}
          onInput=${(e) => setModifier(i, "price", e.target.value)} />
        <button type="button" class="btn ghost small" aria-label="Remove modifier"
          onClick=${() => setForm({ ...form, modifiers: form.modifiers.filter((_, j) => j !== i) })}>Remove</button>
      </div>`)}
      <button type="button" class="btn small" onClick=${() => setForm({ ...form, modifiers: [...form.modifiers, { name: "", price: "0" }] })}>Add modifier</button>
      <div class="actions dialog-actions">
        <${Action} kind="primary" action=${save} busyLabel="Saving…" data-action="save-item">Save item<//>
        <button type="button" class="btn" onClick=${onClose}>Cancel</button>
      </div>
    </form>
  <//>`;
}

function CategoryForm({ stations, onSaved, onClose }) {
  const [name, setName] = useState("");
  const [stationId, setStationId] = useState("");
  const [problem, setProblem] = useState(null);
  const [missing, setMissing] = useState(null);
  const fallback = stations.find((s) => s.is_default)?.name || "Default";
  async function save() {
    if (!name.trim()) return setMissing("Give the category a name.");
    try {
      const created = await api.post("/menu/categories", { name: name.trim(), station_id: stationId || null });
      onSaved(created);
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<${Dialog} title="New category" onClose=${onClose}>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <${Field} label="Name" name="category-name" value=${name} error=${missing || problem?.field("name")} onInput=${(e) => setName(e.target.value)} />
      <${Select} label="Its items cook at" name="category-station" value=${stationId} error=${problem?.field("station_id")}
        onChange=${(e) => setStationId(e.target.value)} options=${stationOptions(stations, `The default station (${fallback})`)} />
      <div class="actions"><${Action} kind="primary" action=${save} data-action="save-category">Create category<//>
        <button type="button" class="btn" onClick=${onClose}>Cancel</button></div>
    </form>
  <//>`;
}

export function Menu({ role }) {
  const writable = can(role, "menuWrite");
  const [categories, setCategories] = useState([]);
  const [items, setItems] = useState([]);
  const [stations, setStations] = useState([]);
  const [selected, setSelected] = useState(null);
  const [editing, setEditing] = useState(null);
  const [addingCategory, setAddingCategory] = useState(false);
  const [problem, setProblem] = useState(null);
  const [loaded, setLoaded] = useState(false);

  async function reload() {
    try {
      // Stations only name where items cook: a role that may not read them
      // still sees the menu.
      const [c, i, s] = await Promise.all([all("/menu/categories"), all("/menu/items"), all("/kitchen/stations").catch(() => [])]);
      c.sort((a, b) => a.position - b.position || a.name.localeCompare(b.name));
      setCategories(c);
      setItems(i);
      setStations(s);
      setSelected((current) => current && c.some((x) => x.id === current) ? current : c[0]?.id || null);
      setProblem(null);
    } catch (failed) {
      setProblem(failed);
    } finally {
      setLoaded(true);
    }
  }
  useEffect(() => { reload(); }, []);

  async function toggle(item) {
    try {
      const changed = await api.patch(`/menu/items/${item.id}`, { available: !item.available });
      setItems(items.map((i) => (i.id === item.id ? changed : i)));
    } catch (failed) {
      setProblem(failed);
    }
  }

  async function archive(item) {
    try {
      await api.delete(`/menu/items/${item.id}`);
      setItems(items.filter((i) => i.id !== item.id));
    } catch (failed) {
      setProblem(failed);
    }
  }

  async function setCategoryStation(category, stationId) {
    try {
      const changed = await api.patch(`/menu/categories/${category.id}`, { station_id: stationId || null });
      setCategories(categories.map((c) => (c.id === category.id ? changed : c)));
      setProblem(null);
    } catch (failed) {
      setProblem(failed);
    }
  }

  const current = categories.find((c) => c.id === selected);
  const fallback = stations.find((s) => s.is_default)?.name || "Default";
  const shown = items.filter((i) => i.category_id === selected).sort((a, b) => a.name.localeCompare(b.name));
  return html`
    <div class="screen-head"><h1>Menu</h1>
      ${writable ? html`<div class="actions">
        <button type="button" class="btn" data-action="new-category" onClick=${() => setAddingCategory(true)}>New category</button>
        <button type="button" class="btn primary" data-action="new-item" disabled=${!categories.length} onClick=${() => setEditing("new")}>New item</button>
      </div>` : null}
    </div>
    <${Notice} problem=${problem} />
    <div class="menu-layout">
      <nav class="card categories" aria-label="Categories">
        ${categories.map((c) => html`<button type="button" class=${`category${c.id === selected ? " current" : ""}`}
            data-category=${c.name} onClick=${() => setSelected(c.id)}>
            <span>${c.name}</span><small>${items.filter((i) => i.category_id === c.id).length}</small></button>`)}
        ${loaded && !categories.length ? html`<${Empty}>No categories yet.<//>` : null}
      </nav>
      <section class="card">
        ${current && stations.length ? html`<div class="category-station">
          ${writable ? html`<${Select} label=${`Items in ${current.name} cook at`} name="category-station-current" value=${current.station_id || ""}
              onChange=${(e) => setCategoryStation(current, e.target.value)} options=${stationOptions(stations, `The default station (${fallback})`)} />`
            : html`<span class="muted">Items in ${current.name} cook at ${cooksAt({ category_id: current.id }, categories, stations).name}.</span>`}
          <span class="muted small">An item can name its own station instead.</span>
        </div>` : null}
        ${shown.length ? html`<table class="list"><thead><tr><th>Item</th><th>Station</th><th>Modifiers</th><th class="num">Price</th><th class="num">Tax</th><th></th></tr></thead><tbody>
          ${shown.map((item) => html`<tr class=${`item-row${item.available ? "" : " unavailable"}`} data-item=${item.name}>
            <td><strong>${item.name}</strong>${item.available ? null : html` <span class="badge red">86'd</span>`}<div class="muted small">${item.description}</div></td>
            <td>${(({ name, inherited }) => inherited ? html`<span class="muted" title="From its category or the default">${name}</span>` : name)(cooksAt(item, categories, stations))}</td>
            <td class="small">${item.modifiers.map((m) => `${m.name}${m.price ? ` +${money(m.price)}` : ""}`).join(", ") || "—"}</td>
            <td class="num">${money(item.price)}</td><td class="num">${item.tax_rate}%</td>
            <td class="row-actions">${writable ? html`
              <button type="button" class=${`btn small ${item.available ? "danger" : ""}`} data-action="toggle-available"
                aria-pressed=${!item.available} onClick=${() => toggle(item)}>${item.available ? "86 it" : "Back on"}</button>
              <button type="button" class="btn small" data-action="edit-item" onClick=${() => setEditing(item)}>Edit</button>
              <${Confirm} kind="small ghost" question="Past orders keep it." confirmLabel="Remove" action=${() => archive(item)}
                data-action="archive-item">Remove<//>` : null}
            </td></tr>`)}
        </tbody></table>` : html`<${Empty}>${loaded ? "No items in this category." : "Loading…"}<//>`}
      </section>
    </div>
    ${editing ? html`<${ItemForm} item=${editing === "new" ? null : editing} categories=${categories} stations=${stations} categoryId=${selected}
        onClose=${() => setEditing(null)} onSaved=${() => { setEditing(null); reload(); }} />` : null}
    ${addingCategory ? html`<${CategoryForm} stations=${stations} onClose=${() => setAddingCategory(false)}
        onSaved=${(c) => { setAddingCategory(false); setSelected(c.id); reload(); }} />` : null}`;
}
