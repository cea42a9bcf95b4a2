// Signing the screen in, once: the session stays in this browser until it ends
// or someone logs out from the menu.

import { html, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { login, takeLogoutReason } from "/shared/api.js";
import { Field, Notice } from "/shared/ui.js";

export function Login() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [tenants, setTenants] = useState(null);
  const [tenantId, setTenantId] = useState("");
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const [reason] = useState(takeLogoutReason());
  const [checked, setChecked] = useState({});

  async function submit(event) {
    event.preventDefault();
    const missing = {};
    if (!email.includes("@")) missing.email = "Enter the email address of the kitchen account.";
    if (!password) missing.password = "Enter the password.";
    setChecked(missing);
    if (Object.keys(missing).length) return;
    setBusy(true);
    setProblem(null);
    try {
      await login(email.trim(), password, tenantId || undefined);
    } catch (failed) {
      if (failed.code === "tenant_required" && failed.body.tenants) {
        setTenants(failed.body.tenants);
        setTenantId(failed.body.tenants[0].id);
      } else {
        setProblem(failed);
      }
    } finally {
      setBusy(false);
    }
  }

  return html`<main class="kds-login">
    <form class="card narrow" onSubmit=${submit} novalidate>
      <div class="brand big"><span class="logo">B</span><strong>Brigade kitchen</strong></div>
      <h1>Sign this screen in</h1>
      <p class="muted">Use the kitchen account. The screen stays signed in until someone logs out from its menu.</p>
      ${reason && !problem ? html`<${Notice} kind="info">${reason}<//>` : null}
      <${Notice} problem=${problem} />
      <${Field} label="Email" name="email" type="email" autocomplete="username" value=${email}
        error=${checked.email || problem?.field("email")} onInput=${(e) => setEmail(e.target.value)} autofocus />
      <${Field} label="Password" name="password" type="password" autocomplete="current-password" value=${password}
        error=${checked.password || problem?.field("password")} onInput=${(e) => setPassword(e.target.value)} />
      ${tenants ? html`<${Field} label="Business" name="tenant" hint="This account exists in several businesses.">
          <select id="field-tenant" name="tenant" value=${tenantId} onChange=${(e) => setTenantId(e.target.value)}>
            ${tenants.map((t) => html`<option value=${t.id}>${t.name}</option>`)}
          </select>
        <//>` : null}
      <button type="submit" class="btn primary wide" disabled=${busy}>${busy ? "Signing in…" : "Sign in"}</button>
    </form>
  </main>`;
}
