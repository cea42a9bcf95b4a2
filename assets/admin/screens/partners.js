// Partners: the delivery platforms and payment gateways that send Brigade
// their orders and payments, each with the URL to paste into its dashboard;
// connect, change the secret, switch or options, disconnect; and the map of a
// delivery platform's items to the menu.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { all, api } from "/shared/api.js";
import { money, titleCase } from "/shared/format.js";
import { Action, Confirm, Dialog, Empty, Field, Notice, Select } from "/shared/ui.js";

const KINDS = [["delivery", "Delivery platform"], ["payment", "Payment gateway"]];

/** The form state for a new partner, or for changing `integration`. */
function formOf(integration, available) {
  const kind = integration?.kind || "delivery";
  return {
    kind,
    name: integration?.name || available.find((a) => a.kind === kind)?.name || "",
    secret: "",
    enabled: integration ? integration.enabled : true,
    auto_accept: integration ? integration.auto_accept : true,
    options: JSON.stringify(integration?.options || {}, null, 2),
  };
}

/** The options as the API takes them, or why they are not a JSON object. */
function parseOptions(text) {
  try {
    const options = JSON.parse(text.trim() || "{}");
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      return { error: "Enter a JSON object, such as {}." };
    }
    return { options };
  } catch (failed) {
    return { error: `This is not valid JSON: ${failed.message}` };
  }
}

/** Connects a partner, or changes one (`integration`). */
function PartnerForm({ integration, available, onSaved, onCancel }) {
  const [form, setForm] = useState(formOf(integration, available));
  const [problem, setProblem] = useState(null);
  const [optionsError, setOptionsError] = useState(null);
  const set = (name) => (e) => {
    const value = e.target.type === "checkbox" ? e.target.checked : e.target.value;
    const next = { ...form, [name]: value };
    // Another kind offers other partners.
    if (name === "kind") next.name = available.find((a) => a.kind === value)?.name || "";
    setForm(next);
    if (name === "options") setOptionsError(null);
    if (problem?.field(name)) setProblem(null);
  };
  const names = available.filter((a) => a.kind === form.kind).map((a) => [a.name, titleCase(a.name)]);
  async function save() {
    const parsed = parseOptions(form.options);
    if (parsed.error) return setOptionsError(parsed.error);
    const body = { enabled: form.enabled, options: parsed.options };
    if (form.secret.trim()) body.secret = form.secret.trim();
    if (form.kind === "delivery") body.auto_accept = form.auto_accept;
    try {
      const saved = await api.put(`/integrations/${form.kind}/${form.name}`, body);
      onSaved(saved, !integration);
    } catch (failed) {
      setProblem(failed);
    }
  }
  const editing = !!integration;
  return html`<form class="partner-form" data-panel="partner-form" onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
    <h3>${editing ? `Change ${titleCase(integration.name)} (${integration.kind})` : "Connect a partner"}</h3>
    <${Notice} problem=${problem} />
    <div class="form-grid">
      ${editing ? null : html`
        <${Select} label="Kind" name="kind" value=${form.kind} error=${problem?.field("kind")} onChange=${set("kind")} options=${KINDS} />
        <${Select} label="Partner" name="partner" value=${form.name} error=${problem?.field("name")} onChange=${set("name")} options=${names} />`}
      <${Field} label=${editing ? "New signing secret" : "Signing secret"} name="secret" type="password" autocomplete="off"
        placeholder=${editing ? `Leave empty to keep ····${integration.secret_last4}` : "From the partner's dashboard"}
        value=${form.secret} error=${problem?.field("secret")} onInput=${set("secret")} />
    </div>
    <div class="check-row">
      <label class="check"><input type="checkbox" name="enabled" checked=${form.enabled} onChange=${set("enabled")} /> Receive its messages</label>
      ${form.kind === "delivery" ? html`<label class="check"><input type="checkbox" name="auto_accept" checked=${form.auto_accept}
        onChange=${set("auto_accept")} /> Accept its orders at once and send them to the kitchen</label>` : null}
    </div>
    <${Field} label="Options (JSON)" name="options" error=${optionsError || problem?.field("options")}
      hint="Settings of this partner's adapter; {} when it needs none.">
      <textarea id="field-options" name="options" rows="3" spellcheck="false" aria-invalid=${optionsError ? "true" : "false"}
        value=${form.options} onInput=${set("options")}></textarea>
    <//>
    <div class="actions">
      <${Action} kind="primary" action=${save} data-action="save-partner">${editing ? "Save" : "Connect"}<//>
      <button type="button" class="btn" data-action="cancel-partner" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}

/** The URL to paste into the partner's dashboard, with a Copy button. */
function PartnerUrl({ url }) {
  const [copied, setCopied] = useState(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(url);
      setCopied("Copied.");
    } catch {
      setCopied("Select it and copy by hand.");
    }
  }
  return html`<div class="partner-url">
    <code title=${url} data-url>${url}</code>
    <button type="button" class="btn small" data-action="copy-url" onClick=${copy}>Copy</button>
    ${copied ? html`<span class="muted small">${copied}</span>` : null}
  </div>`;
}

/** A delivery platform's item ids or SKUs, each mapped to a menu item. */
function MenuMap({ integration, onClose }) {
  const [rows, setRows] = useState(null);
  const [items, setItems] = useState([]);
  const [problem, setProblem] = useState(null);
  const [missing, setMissing] = useState({});
  const [saved, setSaved] = useState(null);
  const path = `/integrations/delivery/${integration.name}/menu-map`;
  useEffect(() => {
    Promise.all([api.get(path), all("/menu/items")]).then(([map, menu]) => {
      setItems(menu);
      setRows(map.entries.length ? map.entries : [{ external_id: "", menu_item_id: "" }]);
    }, setProblem);
  }, [integration.name]);
  const setRow = (i, name, value) => {
    setRows(rows.map((r, j) => (j === i ? { ...r, [name]: value } : r)));
    setSaved(null);
  };
  async function save() {
    // Rows left blank are dropped; a half-filled one is named.
    const kept = rows.filter((r) => r.external_id.trim() || r.menu_item_id);
    const gaps = {};
    kept.forEach((r, i) => {
      if (!r.external_id.trim()) gaps[`entries[${i}].external_id`] = "Enter the platform's item id or SKU.";
      if (!r.menu_item_id) gaps[`entries[${i}].menu_item_id`] = "Choose a menu item.";
    });
    setRows(kept.length ? kept : [{ external_id: "", menu_item_id: "" }]);
    setMissing(gaps);
    if (Object.keys(gaps).length) return;
    try {
      const map = await api.put(path, { entries: kept.map((r) => ({ external_id: r.external_id.trim(), menu_item_id: r.menu_item_id })) });
      setRows(map.entries.length ? map.entries : [{ external_id: "", menu_item_id: "" }]);
      setProblem(null);
      setSaved(`Saved: ${map.entries.length} ${map.entries.length === 1 ? "item" : "items"} mapped.`);
    } catch (failed) {
      setProblem(failed);
    }
  }
  const error = (i, name) => missing[`entries[${i}].${name}`] || problem?.field(`entries[${i}].${name}`);
  const options = [["", "Choose a menu item"], ...items.map((i) => [i.id, `${i.name} · ${money(i.price)}`])];
  return html`<${Dialog} title=${`Menu map: ${titleCase(integration.name)}`} onClose=${onClose}>
    <p class="muted small">Lines of an order from ${titleCase(integration.name)} whose item id or SKU is mapped here become that menu
      item. Other lines match a menu item of the same name, or stay open items at the platform's price.</p>
    <${Notice} problem=${problem} />
    ${saved ? html`<${Notice} kind="success">${saved}<//>` : null}
    ${rows === null ? html`<p class="muted">Loading…</p>` : html`<div data-panel="menu-map">
      <div class="map-row map-head"><span>Platform item id or SKU</span><span>Menu item</span><span></span></div>
      ${rows.map((r, i) => html`<div class="map-row" data-map-row=${i}>
        <${Field} label="" aria-label="Platform item id or SKU" name=${`external-${i}`} value=${r.external_id} placeholder="sku-burger"
          error=${error(i, "external_id")} onInput=${(e) => setRow(i, "external_id", e.target.value)} />
        <${Select} label="" aria-label="Menu item" name=${`menu-item-${i}`} value=${r.menu_item_id} options=${options}
          error=${error(i, "menu_item_id")} onChange=${(e) => setRow(i, "menu_item_id", e.target.value)} />
        <button type="button" class="btn ghost" aria-label="Remove this row" data-action="remove-map-row"
          onClick=${() => setRows(rows.length > 1 ? rows.filter((_, j) => j !== i) : [{ external_id: "", menu_item_id: "" }])}>✕</button>
      </div>`)}
      <div class="actions dialog-actions">
        <button type="button" class="btn" data-action="add-map-row"
          onClick=${() => setRows([...rows, { external_id: "", menu_item_id: "" }])}>Add a row</button>
        <${Action} kind="primary" action=${save} data-action="save-menu-map">Save<//>
      </div>
    </div>`}
  <//>`;
}

export function Partners() {
  const [loaded, setLoaded] = useState(null);
  const [editing, setEditing] = useState(null);
  const [mapping, setMapping] = useState(null);
  const [problem, setProblem] = useState(null);
  const [saved, setSaved] = useState(null);
  const load = () => api.get("/integrations").then(setLoaded, setProblem);
  useEffect(() => { load(); }, []);
  async function disconnect(integration) {
    try {
      await api.delete(`/integrations/${integration.kind}/${integration.name}`);
      setSaved(`${titleCase(integration.name)} is disconnected.`);
      setProblem(null);
      if (editing?.name === integration.name && editing?.kind === integration.kind) setEditing(null);
      load();
    } catch (failed) {
      setProblem(failed);
    }
  }
  if (!loaded) return html`<section class="card"><h2>Partners</h2><${Notice} problem=${problem} /><p class="muted">Loading…</p></section>`;
  const connected = (a) => loaded.integrations.some((i) => i.kind === a.kind && i.name === a.name);
  const free = loaded.available.filter((a) => !connected(a));
  return html`<section class="card" data-panel="partners">
    <div class="screen-head">
      <h2>Partners</h2>
      <div class="actions">
        <a class="btn" href="/admin/integrations/messages" data-action="messages">Messages</a>
        ${free.length ? html`<button type="button" class="btn primary" data-action="connect-partner"
          onClick=${() => { setEditing({}); setSaved(null); }}>Connect a partner</button>` : null}
      </div>
    </div>
    <p class="muted lead">Delivery platforms and payment gateways send their orders and payments here, signed. Paste each one's URL
      into its dashboard.</p>
    <${Notice} problem=${problem} />
    ${saved ? html`<${Notice} kind="success">${saved}<//>` : null}
    ${loaded.integrations.length ? html`<table class="list partners">
      <thead><tr><th>Partner</th><th>Status</th><th>Secret</th><th>URL for the partner</th><th></th></tr></thead>
      <tbody>${loaded.integrations.map((i) => html`<tr data-partner=${`${i.kind}/${i.name}`}>
        <td><strong>${titleCase(i.name)}</strong><div class="muted small">${titleCase(i.kind)}${i.kind === "delivery"
          ? (i.auto_accept ? " · accepts at once" : " · staff accept") : ""}</div></td>
        <td data-status><span class=${`badge ${i.enabled ? "green" : "grey"}`}>${i.enabled ? "On" : "Off"}</span></td>
        <td><code>····${i.secret_last4}</code></td>
        <td class="url-cell"><${PartnerUrl} url=${i.url} /></td>
        <td class="row-actions">
          ${i.kind === "delivery" ? html`<button type="button" class="btn small" data-action="menu-map" onClick=${() => setMapping(i)}>Menu map</button>` : null}
          <button type="button" class="btn small" data-action="edit-partner" onClick=${() => { setEditing(i); setSaved(null); }}>Edit</button>
          <${Confirm} kind="small" question="Its messages will be refused." confirmLabel="Disconnect"
            action=${() => disconnect(i)} data-action="disconnect-partner">Disconnect<//>
        </td>
      </tr>`)}</tbody></table>` : html`<${Empty}>No partner connected yet.<//>`}
    ${editing ? html`<${PartnerForm} key=${editing.name ? `${editing.kind}/${editing.name}` : "new"} integration=${editing.name ? editing : null}
      available=${editing.name ? loaded.available : free} onCancel=${() => setEditing(null)}
      onSaved=${(integration, created) => {
        setEditing(null);
        setSaved(created ? `${titleCase(integration.name)} is connected. Paste its URL into the partner's dashboard.` : "Saved.");
        load();
      }} />` : null}
    ${mapping ? html`<${MenuMap} integration=${mapping} onClose=${() => setMapping(null)} />` : null}
  </section>`;
}
