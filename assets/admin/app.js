// The admin app: who is logged in, which screens their role may open, and the
// client-side routes under /admin/.

import { html, render, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api, logout } from "/shared/api.js";
import { useTenantFormats } from "/shared/format.js";
import { useSession } from "/shared/session.js";
import { Login } from "/admin/screens/login.js";
import { Dashboard } from "/admin/screens/dashboard.js";
import { Menu } from "/admin/screens/menu.js";
import { Campaigns } from "/admin/screens/campaigns.js";
import { FloorPlan } from "/admin/screens/floor.js";
import { Reservations } from "/admin/screens/reservations.js";
import { Waitlist } from "/admin/screens/waitlist.js";
import { Orders } from "/admin/screens/orders.js";
import { Integrations } from "/admin/screens/integrations.js";
import { Settings } from "/admin/screens/settings.js";
import { Kitchen } from "/admin/screens/kitchen.js";
import { Staff } from "/admin/screens/staff.js";
import { Devices } from "/admin/screens/devices.js";
import { Schedule } from "/admin/screens/schedule.js";
import { Attendance } from "/admin/screens/attendance.js";
import { ChangePassword } from "/admin/screens/password.js";
import { can } from "/admin/roles.js";

const SCREENS = [
  { path: "", label: "Dashboard", screen: Dashboard, may: "dashboard" },
  { path: "floor", label: "Floor plan", screen: FloorPlan, may: "diningRead" },
  { path: "waitlist", label: "Waitlist", screen: Waitlist, may: "diningRead" },
  { path: "reservations", label: "Reservations", screen: Reservations, may: "diningRead" },
  { path: "orders", label: "Orders", screen: Orders, may: "ordersScreen" },
  { path: "menu", label: "Menu", screen: Menu, may: "menuScreen" },
  { path: "campaigns", label: "Campaigns", screen: Campaigns, may: "campaignsScreen" },
  { path: "kitchen", label: "Kitchen", screen: Kitchen, may: "kitchenScreen" },
  { path: "staff", label: "Staff", screen: Staff, may: "staffScreen" },
  { path: "devices", label: "Devices", screen: Devices, may: "devicesScreen" },
  { path: "schedule", label: "Schedule", screen: Schedule, may: "scheduleScreen" },
  { path: "attendance", label: "Attendance", screen: Attendance, may: "attendanceScreen" },
  { path: "integrations", label: "Integrations", screen: Integrations, may: "webhooks" },
  { path: "settings", label: "Settings", screen: Settings, may: "settingsScreen" },
];

function currentPath() {
  return location.pathname.replace(/^\/admin\/?/, "").replace(/\/$/, "");
}

export function navigate(to) {
  history.pushState(null, "", to);
  window.dispatchEvent(new CustomEvent("brigade:navigate"));
}

function useRoute() {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener("popstate", update);
    window.addEventListener("brigade:navigate", update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener("brigade:navigate", update);
    };
  }, []);
  return path;
}


function Shell({ current, path }) {
  const role = current.user.role;
  const [settings, setSettings] = useState(null);
  const [failed, setFailed] = useState(null);
  useEffect(() => {
    setFailed(null);
    api.get("/settings").then((loaded) => {
      useTenantFormats(loaded);
      setSettings(loaded);
    }, setFailed);
  }, [current.token]);
  if (role === "kitchen") {
    return html`<main class="centered"><div class="card narrow">
      <h1>This is the back office</h1>
      <p>Kitchen accounts use the kitchen display. Open <a href="/kitchen/">/kitchen</a> on the kitchen screen.</p>
      <button type="button" class="btn" onClick=${() => logout()}>Log out</button>
    </div></main>`;
  }
  if (failed?.code === "password_change_required") return html`<${ChangePassword} name=${current.user.name} />`;
  if (failed) return html`<main class="centered"><div class="notice error" role="alert">${failed.message}</div></main>`;
  if (!settings) return html`<p class="boot">Loading…</p>`;
  const [first, ...rest] = path.split("/");
  const visible = SCREENS.filter((s) => can(role, s.may));
  // The start screen of a role that has no dashboard is its first screen.
  const match = first === "" && !can(role, "dashboard") ? visible[0] : SCREENS.find((s) => s.path === first);
  const allowed = match && can(role, match.may) ? match : null;
  const Screen = allowed?.screen;
  return html`
    <div class="shell">
      <nav class="sidebar" aria-label="Main">
        <div class="brand"><span class="logo">B</span><div><strong>Brigade</strong><small>${current.tenant.name}</small></div></div>
        <ul>
          ${visible.map((s) => html`<li><a href=${`/admin/${s.path}`} data-nav=${s.path || "dashboard"}
              aria-current=${s === allowed ? "page" : undefined}>${s.label}</a></li>`)}
        </ul>
        <div class="who">
          <span>${current.user.name}</span><small>${role}</small>
          <button type="button" class="btn ghost small" data-action="logout" onClick=${() => logout()}>Log out</button>
        </div>
      </nav>
      <main class="content">
        ${Screen
          ? html`<${Screen} role=${role} settings=${settings} rest=${rest} onSettings=${setSettings} />`
          : html`<div class="card"><h1>Not available</h1><p>This screen does not exist or is not open to your role.</p>
              <a class="btn" href=${`/admin/${visible[0]?.path || ""}`}>Go to ${visible[0]?.label || "the start"}</a></div>`}
      </main>
    </div>`;
}

function App() {
  const current = useSession("Your session has ended. Please log in again.");
  const path = useRoute();
  if (!current) return html`<${Login} />`;
  return html`<${Shell} current=${current} path=${path} />`;
}

// Links inside the app change the route without reloading.
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[href^='/admin/']");
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});

const root = document.getElementById("app");
root.replaceChildren();
render(html`<${App} />`, root);
