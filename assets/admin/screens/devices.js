// Devices: pair a POS terminal, kitchen screen or phone with a setup key (a
// short code and its QR code, shown once), see the paired devices with when and
// from where they were last seen, and revoke one at once.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { dateTime, titleCase } from "/shared/format.js";
import { Action, Confirm, Empty, Field, Notice, Select } from "/shared/ui.js";

const DEVICE_ROLES = ["manager", "cashier", "server", "host", "kitchen"].map((r) => [r, titleCase(r)]);
const EXPIRIES = [["15", "15 minutes"], ["60", "1 hour"], ["1440", "1 day"], ["10080", "7 days"]];
// A device that pairs elsewhere shows up here without a reload.
const REFRESH_MS = 3000;

function NewKey({ created }) {
  const qr = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(created.qr_svg)}`;
  return html`<div class="notice info setup-key" data-panel="setup-key">
    <img src=${qr} alt=${`QR code of the setup key ${created.code}`} width="200" height="200" />
    <div>
      <p><strong>Setup key for ${created.name}, shown this once.</strong> Type the code on the device, or scan the QR code.
        It works once, until ${dateTime(created.expires_at)}.</p>
      <p class="secret setup-code" data-code>${created.code}</p>
      <p class="muted small">${created.pair_url}</p>
    </div>
  </div>`;
}

function CreateKey({ onCreated }) {
  const [form, setForm] = useState({ name: "", role: "cashier", expires_in_minutes: "15" });
  const [problem, setProblem] = useState(null);
  const [missing, setMissing] = useState(null);
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.value });
  async function create() {
    if (!form.name.trim()) return setMissing("Name the device, such as Kitchen 1.");
    setMissing(null);
    try {
      const created = await api.post("/devices/setup-keys", {
        name: form.name.trim(), role: form.role, expires_in_minutes: Number(form.expires_in_minutes),
      });
      setProblem(null);
      setForm({ ...form, name: "" });
      onCreated(created);
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<form onSubmit=${(e) => { e.preventDefault(); create(); }} novalidate>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    <div class="form-grid">
      <${Field} label="Device" name="key-name" placeholder="Kitchen 1" value=${form.name} error=${missing || problem?.field("name")} onInput=${set("name")} />
      <${Select} label="Acts as" name="key-role" value=${form.role} error=${problem?.field("role")} onChange=${set("role")} options=${DEVICE_ROLES} />
      <${Select} label="Valid for" name="key-expires" value=${form.expires_in_minutes} onChange=${set("expires_in_minutes")} options=${EXPIRIES} />
    </div>
    <div class="actions"><${Action} kind="primary" action=${create} data-action="create-setup-key">Create setup key<//></div>
  </form>`;
}

export function Devices() {
  const [devices, setDevices] = useState(null);
  const [keys, setKeys] = useState([]);
  const [created, setCreated] = useState(null);
  const [problem, setProblem] = useState(null);
  const load = () => Promise.all([api.get("/devices"), api.get("/devices/setup-keys")]).then(([d, k]) => {
    setDevices(d.data);
    setKeys(k.data);
    // Once its device has paired (or it expired), the code is of no more use.
    setCreated((shown) => (shown && k.data.some((key) => key.id === shown.id) ? shown : null));
  }, setProblem);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  async function revoke(device) {
    try {
      await api.post(`/devices/${device.id}/revoke`);
      load();
    } catch (failed) {
      setProblem(failed);
    }
  }
  async function withdraw(key) {
    try {
      await api.delete(`/devices/setup-keys/${key.id}`);
      if (created?.id === key.id) setCreated(null);
      load();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`
    <div class="screen-head"><h1>Devices</h1></div>
    <${Notice} problem=${problem} />
    <section class="card">
      <h2>Pair a device</h2>
      <p class="muted">A setup key lets one device (a POS terminal, a kitchen screen, a phone) pair without a login. Staff then sign in on it with their PIN.</p>
      ${created ? html`<${NewKey} created=${created} />` : null}
      <${CreateKey} onCreated=${(key) => { setCreated(key); load(); }} />
      ${keys.length ? html`<h2>Waiting to be used</h2>
        <table class="list" data-panel="setup-keys"><tbody>${keys.map((k) => html`<tr data-setup-key=${k.name}>
          <td>${k.name}</td><td>${titleCase(k.role)}</td><td class="muted">until ${dateTime(k.expires_at)}</td>
          <td class="actions"><${Action} kind="small" action=${() => withdraw(k)} data-action="withdraw-setup-key">Withdraw<//></td>
        </tr>`)}</tbody></table>` : null}
    </section>
    <section class="card">
      <h2>Paired devices</h2>
      ${!devices ? html`<p class="muted">Loading…</p>` : devices.length === 0 ? html`<${Empty}>No device is paired yet.<//>` : html`
        <table class="list" data-panel="devices"><thead><tr><th>Device</th><th>Acts as</th><th>Paired</th><th>Last seen</th><th>Status</th><th></th></tr></thead>
        <tbody>${devices.map((d) => html`<tr data-device=${d.name} class=${d.revoked_at ? "muted" : ""}>
          <td><strong>${d.name}</strong><div class="muted small">${d.setup_key_name}</div></td>
          <td>${titleCase(d.role)}</td>
          <td>${dateTime(d.paired_at)}</td>
          <td>${d.last_seen_at ? html`${dateTime(d.last_seen_at)}<div class="muted small">${d.last_seen_address}</div>` : "—"}</td>
          <td data-status>${d.revoked_at ? "Revoked" : "Active"}</td>
          <td class="actions">${d.revoked_at ? null : html`<${Confirm} kind="small" question="The device loses access at once."
            confirmLabel="Revoke" action=${() => revoke(d)} data-action="revoke-device">Revoke<//>`}</td>
        </tr>`)}</tbody></table>`}
    </section>`;
}
