// What a manager checks first: today's takings and orders, the room, the door,
// the bookings ahead, and what needs attention (failed webhook deliveries,
// partners' messages parked, failed or refused).

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { all, api, followEvents } from "/shared/api.js";
import { localDate, money, time, titleCase, zonedInstant } from "/shared/format.js";
import { Badge, Empty, Notice } from "/shared/ui.js";
import { can } from "/admin/roles.js";

/** When the business day that is running now began, in the tenant's zone. */
function businessDayStart(settings) {
  const startHour = String(settings.business_day_start_hour).padStart(2, "0");
  const now = new Date();
  const today = zonedInstant(localDate(now), `${startHour}:00`);
  return today > now ? new Date(today.getTime() - 24 * 3600 * 1000) : today;
}

async function load(role, settings) {
  const from = businessDayStart(settings).toISOString();
  const [orders, seatmap, queue, reservations, summary, failed] = await Promise.all([
    all(`/orders?from=${encodeURIComponent(from)}`, 2000),
    api.get("/tables/seatmap"),
    api.get("/queue"),
    api.get(`/reservations?date=${localDate()}&limit=200`),
    can(role, "notifications") ? api.get("/notifications/summary") : null,
    can(role, "notifications") ? api.get("/webhooks/deliveries?status=failed&limit=5") : null,
  ]);
  const kept = orders.filter((o) => o.status !== "cancelled");
  const tables = seatmap.floors.flatMap((f) => f.tables);
  const now = Date.now();
  return {
    sales: kept.filter((o) => o.status === "completed").reduce((sum, o) => sum + o.total_amount, 0),
    orderCount: kept.length,
    open: orders.filter((o) => !["completed", "cancelled"].includes(o.status)),
    seated: tables.filter((t) => t.state === "occupied").length,
    tableCount: tables.length,
    waiting: queue.data,
    upcoming: reservations.data
      .filter((r) => ["pending", "confirmed"].includes(r.status) && new Date(r.starts_at).getTime() > now - 30 * 60000)
      .slice(0, 6),
    summary,
    failed: failed?.data || [],
  };
}

const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;

/** Partners' messages that wait for a manager, and those refused today. */
function InboundNotice({ inbound }) {
  const waiting = inbound.parked + inbound.failed;
  if (!waiting && !inbound.rejected_24h) return null;
  const list = (status) => `/admin/integrations/messages?status=${status}`;
  return html`<div class="card attention" data-panel="inbound-messages">
    <h2>Needs attention: partners' messages</h2>
    <ul class="plain">
      ${inbound.parked ? html`<li><a href=${list("parked")} data-link="parked">${plural(inbound.parked, "message parked", "messages parked")}</a>
        <span class="muted"> · waiting for a fix and a retry</span></li>` : null}
      ${inbound.failed ? html`<li><a href=${list("failed")} data-link="failed">${plural(inbound.failed, "message failed", "messages failed")}</a>
        <span class="muted"> · could not be processed</span></li>` : null}
      ${inbound.rejected_24h ? html`<li><a href=${list("rejected")} data-link="rejected">${plural(inbound.rejected_24h, "message refused", "messages refused")}</a>
        <span class="muted"> · in the last 24 hours (bad signature, unknown or switched-off partner)</span></li>` : null}
    </ul>
  </div>`;
}

export function Dashboard({ role, settings }) {
  const [data, setData] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    let timer = null;
    const refresh = () => load(role, settings).then((d) => { setData(d); setProblem(null); }, setProblem);
    refresh();
    const stop = followEvents((event) => {
      // Kitchen and test events change nothing the dashboard shows.
      if (!/^(session|order|reservation)\./.test(event.event || "")) return;
      clearTimeout(timer);
      timer = setTimeout(refresh, 400);
    });
    return () => { stop(); clearTimeout(timer); };
  }, [role]);
  if (problem && !data) return html`<${Notice} problem=${problem} />`;
  if (!data) return html`<p class="muted">Loading the dashboard…</p>`;
  return html`
    <div class="screen-head"><h1>Today at ${settings.business_name}</h1></div>
    ${problem ? html`<${Notice} problem=${problem} />` : null}
    ${data.summary && data.summary.failed_deliveries > 0 ? html`
      <div class="card attention" data-panel="failed-deliveries">
        <h2>Needs attention: ${data.summary.failed_deliveries} failed webhook ${data.summary.failed_deliveries === 1 ? "delivery" : "deliveries"}</h2>
        <ul class="plain">
          ${data.failed.map((d) => html`<li><a href=${`/admin/integrations/deliveries/${d.event_id}`}>${d.event}</a>
            <span class="muted"> · ${time(d.created_at)} · ${d.last_error || "failed"}</span></li>`)}
        </ul>
      </div>` : null}
    ${data.summary ? html`<${InboundNotice} inbound=${data.summary.inbound} />` : null}
    <div class="stats">
      <div class="stat"><div class="value" data-stat="sales">${money(data.sales)}</div><div class="label">Sales today (completed orders)</div></div>
      <div class="stat"><div class="value" data-stat="orders">${data.orderCount}</div><div class="label">Orders today</div></div>
      <div class="stat"><div class="value" data-stat="open-orders">${data.open.length}</div><div class="label">Open orders</div></div>
      <div class="stat"><div class="value" data-stat="seated">${data.seated} / ${data.tableCount}</div><div class="label">Tables seated</div></div>
      <div class="stat"><div class="value" data-stat="waiting">${data.waiting.length}</div><div class="label">Parties waiting</div></div>
    </div>
    <div class="columns">
      <section class="card">
        <h2>Open orders</h2>
        ${data.open.length ? html`<table class="list"><thead><tr><th>Order</th><th>Table</th><th>Status</th><th class="num">Total</th></tr></thead><tbody>
          ${data.open.slice(0, 8).map((o) => html`<tr>
            <td><a href=${`/admin/orders/${o.id}`}>${o.order_number}</a></td><td>${o.table_name || titleCase(o.order_type)}</td>
            <td><${Badge} status=${o.status} /></td><td class="num">${money(o.total_amount)}</td></tr>`)}
        </tbody></table>` : html`<${Empty}>No open orders.<//>`}
      </section>
      <section class="card">
        <h2>Waiting at the door</h2>
        ${data.waiting.length ? html`<table class="list"><tbody>
          ${data.waiting.slice(0, 8).map((t) => html`<tr><td>${t.number}</td><td>${t.name}</td><td>${t.party_size} guests</td>
            <td><${Badge} status=${t.status} /></td><td class="num">${t.estimated_wait_minutes ?? "–"} min</td></tr>`)}
        </tbody></table>` : html`<${Empty}>Nobody is waiting.<//>`}
      </section>
      <section class="card">
        <h2>Coming up</h2>
        ${data.upcoming.length ? html`<table class="list"><tbody>
          ${data.upcoming.map((r) => html`<tr><td>${time(r.starts_at)}</td><td>${r.name}</td><td>${r.party_size} guests</td>
            <td><${Badge} status=${r.status} /></td></tr>`)}
        </tbody></table>` : html`<${Empty}>No more reservations today.<//>`}
      </section>
    </div>`;
}
