// The login form both web apps use: email and password, and a choice of business
// when the email belongs to several. Each app passes its own words.

import { html, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { login, takeLogoutReason } from "/shared/api.js";
import { Field, Notice } from "/shared/ui.js";

export function LoginForm({ text }) {
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
    if (!email.includes("@")) missing.email = text.emailMissing;
    if (!password) missing.password = text.passwordMissing;
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

  return html`<main class=${text.className}>
    <form class="card narrow" onSubmit=${submit} novalidate>
      <div class="brand big"><span class="logo">B</span><strong>${text.brand}</strong></div>
      <h1>${text.title}</h1>
      ${text.intro ? html`<p class="muted">${text.intro}</p>` : null}
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
      <button type="submit" class="btn primary wide" disabled=${busy}>${busy ? text.submitting : text.submit}</button>
    </form>
  </main>`;
}
