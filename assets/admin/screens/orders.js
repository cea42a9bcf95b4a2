// Orders: the list with the API's filters, newest first, a page at a time; an
// order's lines, payments, timeline and the events it sent; cancelling with a
// reason (refunding what was paid), and refunding a completed order.

import { html, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api } from "/shared/api.js";
import { dateTime, localDate, money, time, titleCase, zonedInstant } from "/shared/format.js";
import { Action, Badge, Dialog, Empty, Field, Notice, Pager, Select } from "/shared/ui.js";
import { can } from "/admin/roles.js";

const STATUSES = ["pending", "confirmed", "preparing", "ready", "served", "completed", "cancelled"];

function query(filters, cursor) {
  const params = new URLSearchParams({ limit: "25" });
  if (filters.status) params.set("status", filters.status);
  if (filters.order_type) params.set("order_type", filters.order_type);
  if (filters.date) {
    params.set("from", zonedInstant(filters.date, "00:00").toISOString());
    params.set("to", new Date(zonedInstant(filters.date, "00:00").getTime() + 24 * 3600 * 1000).toISOString());
  }
  if (cursor) params.set("cursor", cursor);
  return `/orders?${params}`;
}

function OrderList() {
  const [filters, setFilters] = useState({ status: "", order_type: "", date: localDate() });
  const [cursors, setCursors] = useState([null]);
  const [page, setPage] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    setPage(null);
    api.get(query(filters, cursors[cursors.length - 1])).then((p) => { setPage(p); setProblem(null); }, setProblem);
  }, [filters, cursors]);
  const set = (name) => (e) => { setFilters({ ...filters, [name]: e.target.value }); setCursors([null]); };
  return html`
    <div class="screen-head"><h1>Orders</h1></div>
    <form class="filters card" onSubmit=${(e) => e.preventDefault()}>
      <${Field} label="Day" name="date" type="date" value=${filters.date} onInput=${set("date")} />
      <${Select} label="Status" name="status" value=${filters.status} onChange=${set("status")}
        options=${[["", "Any status"], ...STATUSES.map((s) => [s, titleCase(s)])]} />
      <${Select} label="Type" name="order_type" value=${filters.order_type} onChange=${set("order_type")}
        options=${[["", "Any type"], ["dine_in", "Dine in"], ["takeaway", "Takeaway"], ["delivery", "Delivery"]]} />
    </form>
    <${Notice} problem=${problem} />
    <section class="card">
      ${page === null ? html`<p class="muted">Loading…</p>` : page.data.length ? html`
        <table class="list"><thead><tr><th>Order</th><th>Time</th><th>Type</th><th>Table / customer</th><th>Status</th>
          <th class="num">Total</th><th class="num">Due</th></tr></thead><tbody>
          ${page.data.map((o) => html`<tr data-order=${o.order_number}>
            <td><a href=${`/admin/orders/${o.id}`}>${o.order_number}</a></td><td>${time(o.created_at)}</td>
            <td>${titleCase(o.order_type)}</td><td>${o.table_name || o.customer?.name || "—"}</td>
            <td><${Badge} status=${o.status} /></td><td class="num">${money(o.total_amount)}</td><td class="num">${money(o.balance_due)}</td></tr>`)}
        </tbody></table>
        <${Pager} cursors=${cursors} next=${page.next_cursor} onPage=${setCursors} />` : html`<${Empty}>No orders match.<//>`}
    </section>`;
}

function Cancel({ order, role, onDone, onClose }) {
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState(null);
  const paid = order.paid_amount - order.refunded_amount;
  const mayRefund = can(role, "refunds");
  async function cancel() {
    try {
      await api.post(`/orders/${order.id}/cancel`, { reason: reason.trim() || undefined, refund_payments: paid > 0 || undefined });
      onDone();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<${Dialog} title=${`Cancel order ${order.order_number}`} onClose=${onClose}>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    ${paid > 0 ? html`<p class=${mayRefund ? "" : "notice error"} data-panel="cancel-refund">${mayRefund
      ? `${money(paid)} was paid: each payment and its tip will be refunded by its own method.`
      : `${money(paid)} was paid: only an owner or a manager can cancel it and refund the payments.`}</p>` : null}
    <${Field} label="Reason" name="reason" value=${reason} error=${problem?.field("reason")} hint="Kept with the order."
      onInput=${(e) => setReason(e.target.value)} />
    <div class="actions"><${Action} kind="danger" action=${cancel} data-action="confirm-cancel" disabled=${paid > 0 && !mayRefund}>
        ${paid > 0 ? "Cancel and refund" : "Cancel the order"}<//>
      <button type="button" class="btn" onClick=${onClose}>Keep it</button></div>
  <//>`;
}

/** Gives back units of the order's lines, or an amount, with a reason. */
function Refund({ order, onDone, onClose }) {
  const [units, setUnits] = useState({});
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [method, setMethod] = useState("card");
  const [problem, setProblem] = useState(null);
  const left = (line) => line.quantity - line.refunded_quantity;
  const lines = Object.entries(units).filter(([, n]) => Number(n) > 0)
    .map(([line_id, n]) => ({ line_id, quantity: Number(n) }));
  async function refund() {
    const body = { reason, method, ...(amount.trim() ? { amount: Number(amount) } : lines.length ? { lines } : {}) };
    try {
      await api.post(`/orders/${order.id}/refunds`, body);
      onDone();
    } catch (failed) {
      setProblem(failed);
    }
  }
  return html`<${Dialog} title=${`Refund order ${order.order_number}`} onClose=${onClose}>
    <${Notice} problem=${problem?.errors.length ? null : problem} />
    <p class="muted">${money(order.paid_amount - order.refunded_amount)} can still be refunded. Choose units, or an amount;
      with neither, all of it is given back.</p>
    <table class="list"><tbody>${order.items.map((line) => html`<tr data-line=${line.name}>
      <td>${line.name}</td><td class="muted">${left(line)} of ${line.quantity} left</td>
      <td class="num"><input type="number" min="0" max=${left(line)} name=${`units-${line.id}`} aria-label=${`Units of ${line.name} to refund`}
        value=${units[line.id] ?? ""} placeholder="0" disabled=${left(line) === 0 || amount.trim() !== ""} class="units"
        onInput=${(e) => setUnits({ ...units, [line.id]: e.target.value })} /></td></tr>`)}</tbody></table>
    <${Field} label="Or an amount" name="amount" inputmode="decimal" value=${amount} error=${problem?.field("amount")}
      disabled=${lines.length > 0} onInput=${(e) => setAmount(e.target.value)} />
    <${Field} label="Reason" name="reason" value=${reason} error=${problem?.field("reason")} hint="Kept with the refund."
      onInput=${(e) => setReason(e.target.value)} />
    <${Select} label="Given back by" name="method" value=${method} onChange=${(e) => setMethod(e.target.value)}
      options=${[["card", "Card"], ["cash", "Cash"], ["other", "Other"]]} />
    ${problem?.errors.find((e) => e.field.startsWith("lines")) ? html`<p class="field-error" role="alert">
      ${problem.errors.filter((e) => e.field.startsWith("lines")).map((e) => e.message).join("; ")}</p>` : null}
    <div class="actions"><${Action} kind="danger" action=${refund} data-action="confirm-refund">Refund<//>
      <button type="button" class="btn" onClick=${onClose}>Close</button></div>
  <//>`;
}

function OrderDetail({ id, role }) {
  const [order, setOrder] = useState(null);
  const [payments, setPayments] = useState([]);
  const [problem, setProblem] = useState(null);
  const [cancelling, setCancelling] = useState(false);
  const [refunding, setRefunding] = useState(false);
  const [events, setEvents] = useState(null);
  const reload = () => Promise.all([api.get(`/orders/${id}`), api.get(`/orders/${id}/payments`)]).then(
    ([o, p]) => { setOrder(o); setPayments(p.data); setProblem(null); }, setProblem);
  // The order's events as they were sent out, from the delivery record (managers only).
  const loadEvents = () => {
    if (!can(role, "webhooks")) return;
    api.get("/webhooks/deliveries?limit=200").then(
      (page) => setEvents(page.data.filter((d) => d.payload?.data?.order?.id === id).reverse()),
      () => setEvents([]),
    );
  };
  useEffect(() => { reload(); loadEvents(); }, [id]);
  if (problem && !order) return html`<${Notice} problem=${problem} /><a class="btn" href="/admin/orders">Back to orders</a>`;
  if (!order) return html`<p class="muted">Loading…</p>`;
  const timeline = [
    [order.created_at, "Created"],
    ...payments.map((p) => [p.created_at, p.amount < 0
      ? `Refunded ${money(-p.amount)} by ${p.method}${p.tip ? `, tip ${money(-p.tip)}` : ""}: ${p.reason}`
      : `Paid ${money(p.amount)} by ${p.method}${p.tip ? `, tip ${money(p.tip)}` : ""}`]),
    ...(order.closed_at ? [[order.closed_at, order.status === "cancelled" ? `Cancelled${order.cancel_reason ? `: ${order.cancel_reason}` : ""}` : "Completed"]] : []),
  ].sort((a, b) => a[0].localeCompare(b[0]));
  const open = !["completed", "cancelled"].includes(order.status);
  const refundable = order.status === "completed" && order.paid_amount > order.refunded_amount && can(role, "refunds");
  return html`
    <div class="screen-head">
      <div><a href="/admin/orders" class="muted">← Orders</a><h1>Order ${order.order_number} <${Badge} status=${order.status} /></h1></div>
      ${open && can(role, "ordersCancel") ? html`<button type="button" class="btn danger" data-action="cancel-order" onClick=${() => setCancelling(true)}>Cancel order</button>` : null}
      ${refundable ? html`<button type="button" class="btn" data-action="refund-order" onClick=${() => setRefunding(true)}>Refund</button>` : null}
    </div>
    <${Notice} problem=${problem} />
    <div class="columns">
      <section class="card">
        <h2>Lines</h2>
        <table class="list"><tbody>
          ${order.items.map((l) => html`<tr><td class="num">${l.quantity}×</td><td>${l.name}
            ${l.refunded_quantity ? html`<div class="muted small">${l.refunded_quantity} refunded</div>` : null}
            ${l.modifiers.length ? html`<div class="muted small">${l.modifiers.map((m) => m.name).join(", ")}</div>` : null}
            ${l.notes ? html`<div class="muted small">${l.notes}</div>` : null}</td><td class="num">${money(l.line_total)}</td></tr>`)}
          <tr><td></td><td class="muted">Subtotal</td><td class="num">${money(order.subtotal)}</td></tr>
          ${order.discount_amount ? html`<tr><td></td><td class="muted">Discounts</td><td class="num">−${money(order.discount_amount)}</td></tr>` : null}
          <tr><td></td><td class="muted">Tax</td><td class="num">${money(order.tax_amount)}</td></tr>
          <tr><td></td><td><strong>Total</strong></td><td class="num"><strong>${money(order.total_amount)}</strong></td></tr>
          <tr><td></td><td class="muted">Paid</td><td class="num">${money(order.paid_amount)}</td></tr>
          ${order.refunded_amount ? html`<tr data-total="refunded"><td></td><td class="muted">Refunded</td><td class="num">−${money(order.refunded_amount)}</td></tr>` : null}
          <tr><td></td><td><strong>Balance due</strong></td><td class="num"><strong>${money(order.balance_due)}</strong></td></tr>
        </tbody></table>
      </section>
      <section class="card">
        <h2>Details</h2>
        <dl class="facts">
          <dt>Type</dt><dd>${titleCase(order.order_type)}</dd>
          ${order.external ? html`<dt>From</dt>
            <dd data-external>${`${titleCase(order.external.platform)} · ${order.external.display_id || order.external.id}`}</dd>` : null}
          <dt>Table</dt><dd>${order.table_name || "—"}</dd>
          <dt>Customer</dt><dd>${[order.customer?.name, order.customer?.phone].filter(Boolean).join(", ") || "—"}</dd>
          <dt>Notes</dt><dd>${order.notes || "—"}</dd>
          <dt>Business day</dt><dd>${order.business_date}</dd>
        </dl>
        <h2>Payments</h2>
        ${payments.length ? html`<table class="list"><tbody>${payments.map((p) => html`<tr><td>${time(p.created_at)}</td>
          <td>${p.amount < 0 ? "Refund, " : ""}${titleCase(p.method)}${p.reference ? html` <span class="muted">${p.reference}</span>` : null}
            ${p.reason ? html`<div class="muted small">${p.reason}</div>` : null}</td>
          <td class="num">${money(p.amount)}</td></tr>`)}</tbody></table>` : html`<${Empty}>No payment yet.<//>`}
        <h2>Timeline</h2>
        <ol class="timeline">${timeline.map(([at, what]) => html`<li><span class="muted">${dateTime(at)}</span> ${what}</li>`)}</ol>
        ${events ? html`<h2>Events</h2>
          ${events.length ? html`<table class="list" data-panel="order-events"><tbody>${events.map((d) => html`<tr>
            <td>${time(d.created_at)}</td><td><a href=${`/admin/integrations/deliveries/${d.event_id}`}>${d.event}</a></td>
            <td><${Badge} status=${d.status} /></td></tr>`)}</tbody></table>`
          : html`<${Empty}>No event of this order among the latest deliveries.<//>`}` : null}
      </section>
    </div>
    ${cancelling ? html`<${Cancel} order=${order} role=${role} onClose=${() => setCancelling(false)}
        onDone=${() => { setCancelling(false); reload(); loadEvents(); }} />` : null}
    ${refunding ? html`<${Refund} order=${order} onClose=${() => setRefunding(false)}
        onDone=${() => { setRefunding(false); reload(); loadEvents(); }} />` : null}`;
}

export function Orders({ role, rest }) {
  return rest[0] ? html`<${OrderDetail} id=${rest[0]} role=${role} />` : html`<${OrderList} />`;
}
