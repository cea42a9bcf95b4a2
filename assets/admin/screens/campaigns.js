// Campaigns: discounts the restaurant runs (a percentage or an amount off,
// buy-some-get-some, fixed-price bundles), when they apply, and their coupon
// codes. The editor previews what a sample order would get before anything runs;
// codes are made in batches and exported as CSV for printing or mailing.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { all, api } from "/shared/api.js";
import { dateTime, money, titleCase } from "/shared/format.js";
import { Action, Confirm, Dialog, Empty, Field, Notice, Select } from "/shared/ui.js";

const KINDS = [
  ["percent_off", "Percentage off"],
  ["amount_off", "Amount off"],
  ["bogo", "Buy some, get some"],
  ["fixed_price_bundle", "Fixed-price bundle"],
];
const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const ORDER_TYPES = [["dine_in", "Dine-in"], ["takeaway", "Takeaway"], ["delivery", "Delivery"]];
const STATUS_BADGE = { draft: "grey", active: "green", paused: "amber" };

/** "20 % off Drinks", "Buy 2 get 1 free", "Bundle for 15.00". */
function summary(c, categories) {
  const names = (selection) => {
    const picked = (selection?.category_ids || []).map((id) => categories.find((k) => k.id === id)?.name || "a category");
    return picked.length ? picked.join(", ") : "everything";
  };
  if (c.kind === "percent_off") return `${c.percent} % off ${names(c.applies_to)}`;
  if (c.kind === "amount_off") return `${money(c.amount)} off ${names(c.applies_to)}`;
  if (c.kind === "bogo") {
    const off = c.get.percent >= 100 ? "free" : `${c.get.percent} % off`;
    return `Buy ${c.buy.quantity} of ${names(c.buy.items)}, get ${c.get.quantity} ${off}`;
  }
  return `${c.bundle.slots.length} items for ${money(c.bundle.price)}`;
}

/** "Mon–Fri 17:00–19:00, takeaway, from 20.00". */
function when(conditions) {
  const parts = [];
  if (conditions.weekdays.length && conditions.weekdays.length < 7) parts.push(conditions.weekdays.map(titleCase).join(" "));
  parts.push(...conditions.time_windows.map((w) => `${w.from}–${w.to}`));
  if (conditions.order_types.length) parts.push(conditions.order_types.map(titleCase).join(", "));
  if (conditions.min_subtotal) parts.push(`from ${money(conditions.min_subtotal)}`);
  if (conditions.max_uses) parts.push(`first ${conditions.max_uses} orders`);
  if (conditions.ends_at) parts.push(`until ${dateTime(conditions.ends_at)}`);
  return parts.length ? parts.join(" · ") : "Always";
}

/** The editor's form state from a campaign, or a blank one. */
function formOf(c) {
  const ids = (selection) => selection?.category_ids?.[0] || "";
  return {
    name: c?.name || "",
    kind: c?.kind || "percent_off",
    percent: c?.percent != null ? String(c.percent) : "",
    amount: c?.amount != null ? String(c.amount) : "",
    applies_to: ids(c?.applies_to),
    buy_quantity: String(c?.buy?.quantity || 2),
    buy_category: ids(c?.buy?.items),
    get_quantity: String(c?.get?.quantity || 1),
    get_percent: String(c?.get?.percent ?? 100),
    bundle_price: c?.bundle ? String(c.bundle.price) : "",
    slots: c?.bundle ? c.bundle.slots.map((s) => s.category_ids[0] || "") : ["", ""],
    weekdays: c?.conditions.weekdays || [],
    window_from: c?.conditions.time_windows[0]?.from || "",
    window_to: c?.conditions.time_windows[0]?.to || "",
    order_types: c?.conditions.order_types || [],
    min_subtotal: c?.conditions.min_subtotal != null ? String(c.conditions.min_subtotal) : "",
    max_uses: c?.conditions.max_uses != null ? String(c.conditions.max_uses) : "",
    stackable: c?.stackable || false,
    requires_coupon: c?.requires_coupon || false,
  };
}

/** The campaign definition the API takes, from the form. */
function definitionOf(form) {
  const number = (text) => (text === "" ? null : Number(text));
  const selection = (category) => (category ? { category_ids: [category] } : {});
  const body = {
    name: form.name.trim(),
    kind: form.kind,
    stackable: form.stackable,
    requires_coupon: form.requires_coupon,
    conditions: {
      weekdays: form.weekdays,
      time_windows: form.window_from || form.window_to ? [{ from: form.window_from, to: form.window_to }] : [],
      order_types: form.order_types,
      min_subtotal: number(form.min_subtotal),
      max_uses: number(form.max_uses),
    },
  };
  if (form.kind === "percent_off") Object.assign(body, { percent: number(form.percent), applies_to: selection(form.applies_to) });
  if (form.kind === "amount_off") Object.assign(body, { amount: number(form.amount), applies_to: selection(form.applies_to) });
  if (form.kind === "bogo") {
    body.buy = { quantity: Number(form.buy_quantity), items: selection(form.buy_category) };
    body.get = { quantity: Number(form.get_quantity), percent: number(form.get_percent) };
  }
  if (form.kind === "fixed_price_bundle") {
    body.bundle = { price: number(form.bundle_price), slots: form.slots.map(selection) };
  }
  return body;
}

function Checks({ legend, options, chosen, onChange, name }) {
  const flip = (value) => onChange(chosen.includes(value) ? chosen.filter((v) => v !== value) : [...chosen, value]);
  return html`<fieldset class="field">
    <legend>${legend}</legend>
    <div class="check-row">${options.map(([value, label]) => html`<label class="check">
      <input type="checkbox" name=${`${name}-${value}`} checked=${chosen.includes(value)} onChange=${() => flip(value)} /> ${label}
    </label>`)}</div>
  </fieldset>`;
}

/** A sample order and what it would get from the campaign being edited. */
function Preview({ form, items }) {
  const [lines, setLines] = useState([{ menu_item_id: items[0]?.id || "", quantity: "1" }]);
  const [orderType, setOrderType] = useState("dine_in");
  const [result, setResult] = useState(null);
  const [problem, setProblem] = useState(null);
  const setLine = (i, name, value) => setLines(lines.map((l, j) => (j === i ? { ...l, [name]: value } : l)));
  async function run() {
    try {
      setResult(await api.post("/campaigns/preview", {
        campaign: definitionOf(form),
        order_type: orderType,
        items: lines.filter((l) => l.menu_item_id).map((l) => ({ menu_item_id: l.menu_item_id, quantity: Number(l.quantity) || 1 })),
      }));
      setProblem(null);
    } catch (failed) {
      setResult(null);
      setProblem(failed);
    }
  }
  const options = items.map((i) => [i.id, `${i.name} · ${money(i.price)}`]);
  return html`<section class="preview" data-panel="preview">
    <h3>Preview</h3>
    <p class="muted small">A sample order, priced with this campaign alone as if it ran now.</p>
    ${lines.map((line, i) => html`<div class="preview-row">
      <${Select} label=${i ? "" : "Item"} name=${`preview-item-${i}`} value=${line.menu_item_id} options=${options}
        onChange=${(e) => setLine(i, "menu_item_id", e.target.value)} />
      <${Field} label=${i ? "" : "Qty"} name=${`preview-quantity-${i}`} inputmode="numeric" value=${line.quantity}
        onInput=${(e) => setLine(i, "quantity", e.target.value)} />
    </div>`)}
    <${Select} label="Order type" name="preview-order-type" value=${orderType} onChange=${(e) => setOrderType(e.target.value)}
      options=${ORDER_TYPES} />
    <div class="actions">
      <button type="button" class="btn small" data-action="add-preview-line"
        onClick=${() => setLines([...lines, { menu_item_id: items[0]?.id || "", quantity: "1" }])}>Add an item</button>
      <${Action} kind="primary small" action=${run} data-action="preview">Preview<//>
    </div>
    <${Notice} problem=${problem} />
    ${result ? html`<div class=${`notice ${result.applies && result.discount_amount > 0 ? "info" : "warn"}`} data-preview-result>
      ${!result.applies
        ? html`<strong>It would not apply now:</strong> ${result.reason}.`
        : result.discount_amount > 0
          ? html`<strong>This order would get ${money(result.discount_amount)} off:</strong>${" "}
              ${`${money(result.subtotal)} becomes ${money(result.total_amount)} with ${money(result.tax_amount)} tax.`}`
          : html`<strong>No line of this order qualifies.</strong>`}
      ${result.discount_amount > 0 ? html`<ul class="plain small">${result.lines.filter((l) => l.discount_amount > 0).map((l) =>
        html`<li>${l.quantity} × ${l.name}: ${money(l.discount_amount)} off ${money(l.line_total)}</li>`)}</ul>` : null}
    </div>` : null}
  </section>`;
}

function Editor({ campaign, categories, items, onSaved, onClose }) {
  const [form, setForm] = useState(formOf(campaign));
  const [problem, setProblem] = useState(null);
  // A field's error stays until the field is changed.
  const set = (name) => (e) => {
    setForm({ ...form, [name]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
    if (problem?.field(name)) setProblem(null);
  };
  const categoryOptions = (blank) => [["", blank], ...categories.map((c) => [c.id, c.name])];
  const error = (name) => problem?.field(name);
  async function save() {
    try {
      if (campaign) await api.patch(`/campaigns/${campaign.id}`, definitionOf(form));
      else await api.post("/campaigns", definitionOf(form));
      onSaved();
    } catch (failed) {
      setProblem(failed);
    }
  }
  const kind = form.kind;
  return html`<${Dialog} title=${campaign ? `Edit ${campaign.name}` : "New campaign"} onClose=${onClose}>
    <${Notice} problem=${problem} />
    <form class="campaign-form" onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <div class="campaign-fields">
      <div class="form-grid">
        <${Field} label="Name" name="name" placeholder="Happy hour" value=${form.name} error=${error("name")} onInput=${set("name")} />
        <${Select} label="Kind" name="kind" value=${kind} error=${error("kind")} onChange=${set("kind")} options=${KINDS} />
      </div>
      ${kind === "percent_off" || kind === "amount_off" ? html`<div class="form-grid">
        ${kind === "percent_off"
          ? html`<${Field} label="Percent off" name="percent" inputmode="decimal" value=${form.percent} error=${error("percent")} onInput=${set("percent")} />`
          : html`<${Field} label="Amount off" name="amount" inputmode="decimal" value=${form.amount} error=${error("amount")} onInput=${set("amount")} />`}
        <${Select} label="On" name="applies_to" value=${form.applies_to} error=${error("applies_to.category_ids")} onChange=${set("applies_to")}
          options=${categoryOptions("The whole order")} />
      </div>` : null}
      ${kind === "bogo" ? html`<div class="form-grid">
        <${Field} label="Buy" name="buy_quantity" inputmode="numeric" value=${form.buy_quantity} error=${error("buy.quantity")} onInput=${set("buy_quantity")} />
        <${Select} label="Of" name="buy_category" value=${form.buy_category} onChange=${set("buy_category")} options=${categoryOptions("Any item")} />
        <${Field} label="Get" name="get_quantity" inputmode="numeric" value=${form.get_quantity} error=${error("get.quantity")} onInput=${set("get_quantity")} />
        <${Field} label="Percent off what they get" name="get_percent" inputmode="decimal" hint="100 makes them free; the cheapest units get it."
          value=${form.get_percent} error=${error("get.percent")} onInput=${set("get_percent")} />
      </div>` : null}
      ${kind === "fixed_price_bundle" ? html`<div class="form-grid">
        <${Field} label="Bundle price" name="bundle_price" inputmode="decimal" value=${form.bundle_price} error=${error("bundle.price")} onInput=${set("bundle_price")} />
        ${form.slots.map((slot, i) => html`<${Select} label=${`Item ${i + 1} from`} name=${`slot-${i}`} value=${slot}
          error=${error(`bundle.slots[${i}]`)} options=${categoryOptions("Any item")}
          onChange=${(e) => setForm({ ...form, slots: form.slots.map((s, j) => (j === i ? e.target.value : s)) })} />`)}
      </div>
      <div class="actions">
        <button type="button" class="btn small" data-action="add-slot" disabled=${form.slots.length >= 10}
          onClick=${() => setForm({ ...form, slots: [...form.slots, ""] })}>Add an item to the bundle</button>
      </div>` : null}
      <h3>When</h3>
      <${Checks} legend="Days" name="weekday" options=${WEEKDAYS.map((d) => [d, titleCase(d)])} chosen=${form.weekdays}
        onChange=${(weekdays) => setForm({ ...form, weekdays })} />
      <div class="form-grid">
        <${Field} label="From (time)" name="window_from" type="time" value=${form.window_from} error=${error("conditions.time_windows[0].from")} onInput=${set("window_from")} />
        <${Field} label="Until (time)" name="window_to" type="time" value=${form.window_to} error=${error("conditions.time_windows[0].to")} onInput=${set("window_to")} />
        <${Field} label="Minimum subtotal" name="min_subtotal" inputmode="decimal" value=${form.min_subtotal} error=${error("conditions.min_subtotal")} onInput=${set("min_subtotal")} />
        <${Field} label="First orders only" name="max_uses" inputmode="numeric" placeholder="No limit" value=${form.max_uses} error=${error("conditions.max_uses")} onInput=${set("max_uses")} />
      </div>
      <${Checks} legend="Order types (none ticked: all)" name="order-type" options=${ORDER_TYPES} chosen=${form.order_types}
        onChange=${(order_types) => setForm({ ...form, order_types })} />
      <label class="check"><input type="checkbox" name="stackable" checked=${form.stackable} onChange=${set("stackable")} />
        Combines with other campaigns (otherwise only the best one applies)</label>
      <label class="check"><input type="checkbox" name="requires_coupon" checked=${form.requires_coupon} onChange=${set("requires_coupon")} />
        Only with a coupon code</label>
      <div class="actions dialog-actions"><${Action} kind="primary" action=${save} data-action="save-campaign">Save<//></div>
      </div>
      <${Preview} form=${form} items=${items} />
    </form>
  <//>`;
}

function csvOf(coupons) {
  const rows = [["code", "uses", "uses_per_code", "expires_at"], ...coupons.map((c) => [c.code, c.uses, c.uses_per_code, c.expires_at || ""])];
  return rows.map((row) => row.join(",")).join("\n") + "\n";
}

function Coupons({ campaign, onClose }) {
  const [coupons, setCoupons] = useState(null);
  const [form, setForm] = useState({ mode: "batch", count: "50", prefix: "", code: "", uses_per_code: "1", expires_on: "" });
  const [problem, setProblem] = useState(null);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.value });
  const load = () => all(`/campaigns/${campaign.id}/coupons`, 10000).then(setCoupons, setProblem);
  useEffect(() => { load(); }, [campaign.id]);
  async function make() {
    const body = { uses_per_code: Number(form.uses_per_code) };
    if (form.mode === "batch") Object.assign(body, { count: Number(form.count), prefix: form.prefix || null });
    else body.code = form.code;
    if (form.expires_on) body.expires_at = new Date(`${form.expires_on}T23:59:59`).toISOString();
    try {
      await api.post(`/campaigns/${campaign.id}/coupons`, body);
      setProblem(null);
      load();
    } catch (failed) {
      setProblem(failed);
    }
  }
  function exportCsv() {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([csvOf(coupons)], { type: "text/csv" }));
    link.download = `${campaign.name.replace(/[^A-Za-z0-9]+/g, "-")}-codes.csv`;
    link.click();
    URL.revokeObjectURL(link.href);
  }
  const used = coupons ? coupons.reduce((sum, c) => sum + c.uses, 0) : 0;
  return html`<${Dialog} title=${`Codes of ${campaign.name}`} onClose=${onClose}>
    <${Notice} problem=${problem} />
    <form onSubmit=${(e) => { e.preventDefault(); make(); }} novalidate>
      <div class="form-grid">
        <${Select} label="Make" name="mode" value=${form.mode} onChange=${set("mode")}
          options=${[["batch", "A batch of generated codes"], ["named", "One code I choose"]]} />
        ${form.mode === "batch"
          ? html`<${Field} label="How many" name="count" inputmode="numeric" value=${form.count} error=${problem?.field("count")} onInput=${set("count")} />
            <${Field} label="Prefix" name="prefix" placeholder="SPR" value=${form.prefix} error=${problem?.field("prefix")} onInput=${set("prefix")} />`
          : html`<${Field} label="Code" name="code" placeholder="SPRING10" value=${form.code} error=${problem?.field("code")} onInput=${set("code")} />`}
        <${Field} label="Uses per code" name="uses_per_code" inputmode="numeric" value=${form.uses_per_code} error=${problem?.field("uses_per_code")} onInput=${set("uses_per_code")} />
        <${Field} label="Expires after" name="expires_on" type="date" value=${form.expires_on} error=${problem?.field("expires_at")} onInput=${set("expires_on")} />
      </div>
      <div class="actions"><${Action} kind="primary" action=${make} data-action="make-coupons">Make codes<//></div>
    </form>
    ${!coupons ? html`<p class="muted">Loading…</p>` : coupons.length === 0 ? html`<${Empty}>No codes yet.<//>` : html`
      <div class="screen-head">
        <p class="muted" data-coupon-summary>${coupons.length} codes, used ${used} times.</p>
        <button type="button" class="btn small" data-action="export-csv" onClick=${exportCsv}>Export CSV</button>
      </div>
      <div class="scroll-box"><table class="list" data-panel="coupons">
        <thead><tr><th>Code</th><th>Used</th><th>Expires</th></tr></thead>
        <tbody>${coupons.map((c) => html`<tr data-coupon=${c.code}>
          <td><code>${c.code}</code></td><td>${c.uses} of ${c.uses_per_code}</td>
          <td>${c.expires_at ? dateTime(c.expires_at) : "—"}</td>
        </tr>`)}</tbody></table></div>`}
  <//>`;
}

export function Campaigns() {
  const [campaigns, setCampaigns] = useState(null);
  const [categories, setCategories] = useState([]);
  const [items, setItems] = useState([]);
  const [editing, setEditing] = useState(null);
  const [codesOf, setCodesOf] = useState(null);
  const [problem, setProblem] = useState(null);
  const load = () => all("/campaigns").then(setCampaigns, setProblem);
  useEffect(() => {
    load();
    Promise.all([all("/menu/categories"), all("/menu/items")]).then(([c, i]) => {
      setCategories(c);
      setItems(i);
    }, setProblem);
  }, []);
  async function act(campaign, verb) {
    try {
      if (verb === "delete") await api.delete(`/campaigns/${campaign.id}`);
      else await api.post(`/campaigns/${campaign.id}/${verb}`);
      setProblem(null);
      load();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`
    <div class="screen-head">
      <h1>Campaigns</h1>
      <button type="button" class="btn primary" data-action="new-campaign" onClick=${() => setEditing({})}>New campaign</button>
    </div>
    <${Notice} problem=${problem} />
    <section class="card">
      ${!campaigns ? html`<p class="muted">Loading…</p>` : campaigns.length === 0 ? html`<${Empty}>No campaign yet. A campaign discounts orders by itself while it runs.<//>` : html`
        <table class="list" data-panel="campaigns"><thead><tr><th>Campaign</th><th>When</th><th>Status</th><th>Orders</th><th></th></tr></thead>
        <tbody>${campaigns.map((c) => html`<tr data-campaign=${c.name}>
          <td class="wrap"><strong>${c.name}</strong>
            <div class="muted small">${summary(c, categories)}${c.stackable ? " · combines" : ""}${c.requires_coupon ? " · with a code" : ""}</div></td>
          <td class="wrap small">${when(c.conditions)}</td>
          <td data-status><span class=${`badge ${STATUS_BADGE[c.status]}`}>${titleCase(c.status)}</span></td>
          <td>${c.uses}</td>
          <td class="row-actions">
            ${c.status === "active"
              ? html`<${Action} kind="small" action=${() => act(c, "pause")} data-action="pause-campaign">Pause<//>`
              : html`<${Action} kind="small" action=${() => act(c, "activate")} data-action="activate-campaign">Run<//>
                <button type="button" class="btn small" data-action="edit-campaign" onClick=${() => setEditing(c)}>Edit</button>`}
            ${c.requires_coupon ? html`<button type="button" class="btn small" data-action="coupons" onClick=${() => setCodesOf(c)}>Codes</button>` : null}
            ${c.status !== "active" && c.uses === 0 ? html`<${Confirm} kind="small" question="Delete it for good?" confirmLabel="Delete"
              action=${() => act(c, "delete")} data-action="delete-campaign">Delete<//>` : null}
          </td>
        </tr>`)}</tbody></table>`}
    </section>
    ${editing ? html`<${Editor} campaign=${editing.id ? editing : null} categories=${categories} items=${items}
      onSaved=${() => { setEditing(null); load(); }} onClose=${() => setEditing(null)} />` : null}
    ${codesOf ? html`<${Coupons} campaign=${codesOf} onClose=${() => { setCodesOf(null); load(); }} />` : null}`;
}
