// Staff: everyone who works here, their role, contact, wage and whether they
// have a POS PIN; add, edit, deactivate and reactivate them, and set a temporary
// password they must change at their next login.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { money, titleCase } from "/shared/format.js";
import { Action, Confirm, Dialog, Empty, Field, Notice, Select } from "/shared/ui.js";

const ROLES = ["owner", "manager", "cashier", "server", "host", "kitchen"];

function roleOptions(role) {
  // Only an owner makes an owner; the server refuses it anyway.
  return ROLES.filter((r) => r !== "owner" || role === "owner").map((r) => [r, titleCase(r)]);
}

/** The form of a new member (with a temporary password) or of a change to one. */
function Editor({ member, role, onClose, onSaved }) {
  const adding = !member;
  const [form, setForm] = useState({
    name: member?.name || "", email: member?.email || "", role: member?.role || "server",
    phone: member?.phone || "", hourly_wage: member?.hourly_wage ?? "", pin: "", password: "",
    remove_pin: false,
  });
  const [problem, setProblem] = useState(null);
  const [checked, setChecked] = useState({});
  const set = (name) => (e) => setForm({ ...form, [name]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
  async function save() {
    const missing = {};
    if (!form.name.trim()) missing.name = "Enter a name.";
    if (!/^\S+@\S+\.\S+$/.test(form.email.trim())) missing.email = "Enter an email address.";
    if (adding && form.password.length < 8) missing.password = "At least 8 characters.";
    if (form.pin && !/^\d{4,6}$/.test(form.pin)) missing.pin = "4 to 6 digits.";
    if (String(form.hourly_wage).trim() !== "" && !(Number(form.hourly_wage) >= 0)) missing.hourly_wage = "Enter an amount.";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    const wage = String(form.hourly_wage).trim() === "" ? null : Number(form.hourly_wage);
    const body = { name: form.name.trim(), email: form.email.trim(), role: form.role, phone: form.phone.trim() || null, hourly_wage: wage };
    try {
      if (adding) {
        if (form.pin) body.pin = form.pin;
        if (wage === null) delete body.hourly_wage;
        if (!body.phone) delete body.phone;
        await api.post("/users", { ...body, password: form.password });
      } else {
        if (form.pin) body.pin = form.pin;
        else if (form.remove_pin) body.pin = null;
        if (body.role === member.role) delete body.role;
        await api.patch(`/users/${member.id}`, body);
      }
      onSaved();
    } catch (failed) {
      setProblem(failed);
    }
  }
  const error = (name) => checked[name] || problem?.field(name);
  return html`<${Dialog} title=${adding ? "Add staff member" : `Edit ${member.name}`} onClose=${onClose}>
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <${Notice} problem=${problem?.errors.length ? null : problem} />
      <div class="form-grid">
        <${Field} label="Name" name="name" value=${form.name} error=${error("name")} onInput=${set("name")} />
        <${Field} label="Email" name="email" type="email" value=${form.email} error=${error("email")} onInput=${set("email")} />
        <${Select} label="Role" name="role" value=${form.role} error=${error("role")} onChange=${set("role")} options=${roleOptions(role)} />
        <${Field} label="Phone" name="phone" value=${form.phone} error=${error("phone")} onInput=${set("phone")} />
        <${Field} label="Hourly wage" name="hourly_wage" type="number" min="0" step="0.01" value=${form.hourly_wage}
          error=${error("hourly_wage")} onInput=${set("hourly_wage")} />
        <${Field} label=${adding ? "POS PIN" : "New POS PIN"} name="pin" inputmode="numeric" autocomplete="off" value=${form.pin}
          error=${error("pin")} onInput=${set("pin")} hint="4 to 6 digits, for the clock and quick sign-in on a terminal." />
        ${adding ? html`<${Field} label="Temporary password" name="password" type="password" autocomplete="new-password"
          value=${form.password} error=${error("password")} onInput=${set("password")} hint="They choose their own at first login." />` : null}
      </div>
      ${!adding && member.has_pin ? html`<label class="check"><input type="checkbox" name="remove_pin" checked=${form.remove_pin}
        onChange=${set("remove_pin")} /> Remove the PIN</label>` : null}
      <div class="actions"><${Action} kind="primary" action=${save} data-action="save-user">${adding ? "Add" : "Save"}<//></div>
    </form>
  <//>`;
}

function ResetPassword({ member, onClose, onSaved }) {
  const [password, setPassword] = useState("");
  const [problem, setProblem] = useState(null);
  const [missing, setMissing] = useState(null);
  async function save() {
    if (password.length < 8) return setMissing("At least 8 characters.");
    setMissing(null);
    try {
      await api.post(`/users/${member.id}/reset-password`, { password });
      onSaved();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<${Dialog} title=${`New password for ${member.name}`} onClose=${onClose}>
    <form onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
      <p class="muted">A temporary password: ${member.name} is signed out everywhere and chooses a new one at the next login.</p>
      <${Notice} problem=${problem?.errors.length ? null : problem} />
      <${Field} label="Temporary password" name="temporary_password" type="password" autocomplete="new-password" value=${password}
        error=${missing || problem?.field("password")} onInput=${(e) => setPassword(e.target.value)} />
      <div class="actions"><${Action} kind="primary" action=${save} data-action="save-password">Set password<//></div>
    </form>
  <//>`;
}

export function Staff({ role }) {
  const [members, setMembers] = useState(null);
  const [problem, setProblem] = useState(null);
  const [editing, setEditing] = useState(null);
  const [resetting, setResetting] = useState(null);
  const [notice, setNotice] = useState(null);
  const load = () => api.get("/users?limit=200").then((page) => { setMembers(page.data); setProblem(null); }, setProblem);
  useEffect(() => { load(); }, []);
  async function act(member, verb) {
    try {
      await api.post(`/users/${member.id}/${verb}`);
      setNotice(`${member.name} is ${verb === "deactivate" ? "deactivated" : "active again"}.`);
      setProblem(null);
      load();
    } catch (failed) {
      setProblem(failed);
    }
  }
  const saved = (message) => () => { setEditing(null); setResetting(null); setNotice(message); load(); };
  return html`
    <div class="screen-head"><h1>Staff</h1>
      <button type="button" class="btn primary" data-action="new-user" onClick=${() => setEditing("new")}>Add staff member</button></div>
    <${Notice} problem=${problem} />
    ${notice ? html`<${Notice} kind="success">${notice}<//>` : null}
    <section class="card">
      ${!members ? html`<p class="muted">Loading…</p>` : members.length === 0 ? html`<${Empty}>No staff yet.<//>` : html`
        <table class="list"><thead><tr><th>Name</th><th>Role</th><th>Contact</th><th class="num">Hourly wage</th><th>PIN</th><th>Status</th><th></th></tr></thead>
        <tbody>${members.map((m) => html`<tr data-user=${m.email} class=${m.active ? "" : "muted"}>
          <td><strong>${m.name}</strong>${m.must_change_password ? html`<div class="muted small">Temporary password</div>` : null}</td>
          <td>${titleCase(m.role)}</td>
          <td>${m.email}${m.phone ? html`<div class="muted small">${m.phone}</div>` : null}</td>
          <td class="num">${m.hourly_wage == null ? "—" : money(m.hourly_wage)}</td>
          <td>${m.has_pin ? "Set" : "—"}</td>
          <td data-status>${m.active ? "Active" : "Inactive"}</td>
          <td class="actions">
            <button type="button" class="btn small" data-action="edit-user" onClick=${() => setEditing(m)}>Edit</button>
            <button type="button" class="btn small" data-action="reset-password" onClick=${() => setResetting(m)}>Reset password</button>
            ${m.active
              ? html`<${Confirm} kind="small" question=${`${m.name} is signed out at once.`} confirmLabel="Deactivate"
                  action=${() => act(m, "deactivate")} data-action="deactivate-user">Deactivate<//>`
              : html`<${Action} kind="small" action=${() => act(m, "reactivate")} data-action="reactivate-user">Reactivate<//>`}
          </td></tr>`)}</tbody></table>`}
    </section>
    ${editing ? html`<${Editor} member=${editing === "new" ? null : editing} role=${role} onClose=${() => setEditing(null)}
      onSaved=${saved(editing === "new" ? "Staff member added." : "Changes saved.")} />` : null}
    ${resetting ? html`<${ResetPassword} member=${resetting} onClose=${() => setResetting(null)}
      onSaved=${saved(`${resetting.name} has a temporary password.`)} />` : null}`;
}
