// The business's settings: name, time zone, when the business day turns, and
// the reservation rules. The currency is fixed when the business is created.

import { html, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { useTenantFormats } from "/shared/format.js";
import { Action, Field, Notice, Select } from "/shared/ui.js";
import { can } from "/admin/roles.js";

const ZONES = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : ["UTC"];
const NUMBERS = ["business_day_start_hour", "reservation_grace_minutes", "table_hold_minutes"];

export function Settings({ role, settings, onSettings }) {
  const writable = can(role, "settingsWrite");
  const [form, setForm] = useState({ ...settings });
  const [problem, setProblem] = useState(null);
  const [saved, setSaved] = useState(false);
  const [checked, setChecked] = useState({});
  const set = (name) => (e) => {
    setSaved(false);
    setForm({ ...form, [name]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
  };
  async function save() {
    const missing = {};
    if (!String(form.business_name).trim()) missing.business_name = "The business needs a name.";
    for (const name of NUMBERS) if (String(form[name]).trim() === "" || !Number.isInteger(Number(form[name]))) missing[name] = "Enter a whole number.";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    try {
      const changed = await api.patch("/settings", {
        business_name: form.business_name.trim(),
        timezone: form.timezone,
        business_day_start_hour: Number(form.business_day_start_hour),
        reservation_grace_minutes: Number(form.reservation_grace_minutes),
        table_hold_minutes: Number(form.table_hold_minutes),
        auto_confirm_reservations: form.auto_confirm_reservations,
        kitchen_auto_ready: form.kitchen_auto_ready,
      });
      useTenantFormats(changed);
      onSettings(changed);
      setForm({ ...changed });
      setProblem(null);
      setSaved(true);
    } catch (failed) {
      setProblem(failed);
    }
  }
  const error = (name) => checked[name] || problem?.field(name);
  const zones = ZONES.includes(form.timezone) ? ZONES : [form.timezone, ...ZONES];
  return html`
    <div class="screen-head"><h1>Settings</h1></div>
    <form class="card settings" onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <${Notice} problem=${problem?.errors.length ? null : problem} />
      ${saved ? html`<${Notice} kind="success">Settings saved.<//>` : null}
      <fieldset disabled=${!writable}>
        <h2>Business</h2>
        <div class="form-grid">
          <${Field} label="Business name" name="business_name" value=${form.business_name} error=${error("business_name")} onInput=${set("business_name")} />
          <${Field} label="Currency" name="currency" value=${form.currency} disabled hint="Fixed when the business was created." />
          <${Select} label="Time zone" name="timezone" value=${form.timezone} error=${error("timezone")} onChange=${set("timezone")}
            options=${zones.map((z) => [z, z.replace(/_/g, " ")])} />
          <${Field} label="Business day starts at (hour)" name="business_day_start_hour" type="number" min="0" max="23"
            value=${form.business_day_start_hour} error=${error("business_day_start_hour")} onInput=${set("business_day_start_hour")}
            hint="Orders before this hour count for the previous day." />
        </div>
        <h2>Reservations</h2>
        <div class="form-grid">
          <${Field} label="No-show after (minutes)" name="reservation_grace_minutes" type="number" min="0" max="240"
            value=${form.reservation_grace_minutes} error=${error("reservation_grace_minutes")} onInput=${set("reservation_grace_minutes")} />
          <${Field} label="Hold tables before (minutes)" name="table_hold_minutes" type="number" min="0" max="720"
            value=${form.table_hold_minutes} error=${error("table_hold_minutes")} onInput=${set("table_hold_minutes")} />
        </div>
        <label class="check"><input type="checkbox" name="auto_confirm_reservations" checked=${form.auto_confirm_reservations}
          onChange=${set("auto_confirm_reservations")} /> Confirm new reservations automatically</label>
        <h2>Kitchen</h2>
        <label class="check"><input type="checkbox" name="kitchen_auto_ready" checked=${form.kitchen_auto_ready}
          onChange=${set("kitchen_auto_ready")} /> An order is ready when the kitchen has bumped all its tickets</label>
        ${writable ? html`<${Action} kind="primary" action=${save} data-action="save-settings">Save settings<//>` : null}
      </fieldset>
    </form>`;
}
