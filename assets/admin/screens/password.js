// The first screen after logging in with a temporary password: the server
// accepts nothing else until a new password is chosen.

import { html, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { changePassword, logout } from "/shared/api.js";
import { Action, Field, Notice } from "/shared/ui.js";

export function ChangePassword({ name }) {
  const [form, setForm] = useState({ current: "", next: "", again: "" });
  const [problem, setProblem] = useState(null);
  const [checked, setChecked] = useState({});
  const set = (field) => (e) => setForm({ ...form, [field]: e.target.value });
  async function save() {
    const missing = {};
    if (!form.current) missing.current = "Enter the temporary password.";
    if (form.next.length < 8) missing.next = "At least 8 characters.";
    else if (form.next !== form.again) missing.again = "The two passwords differ.";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    try {
      await changePassword(form.current, form.next);
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<main class="centered"><form class="card narrow" onSubmit=${(e) => { e.preventDefault(); save(); }} novalidate>
    <h1>Choose your password</h1>
    <p class="muted">Welcome, ${name}. You logged in with a temporary password: choose your own to go on.</p>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    <${Field} label="Temporary password" name="current_password" type="password" autocomplete="current-password" value=${form.current}
      error=${checked.current || problem?.field("current_password")} onInput=${set("current")} />
    <${Field} label="New password" name="new_password" type="password" autocomplete="new-password" value=${form.next}
      error=${checked.next || problem?.field("new_password")} onInput=${set("next")} />
    <${Field} label="New password again" name="new_password_again" type="password" autocomplete="new-password" value=${form.again}
      error=${checked.again} onInput=${set("again")} />
    <div class="actions">
      <${Action} kind="primary" action=${save} data-action="change-password">Save and continue<//>
      <button type="button" class="btn ghost" onClick=${() => logout()}>Log out</button>
    </div>
  </form></main>`;
}
