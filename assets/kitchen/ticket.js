// One ticket as a card: the header says whose order it is and how long it has
// waited (tap it to bump), each line what to cook (tap it to move it on).

import { html } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { clock } from "/shared/format.js";

const ORDER_TYPES = { dine_in: "Dine in", takeaway: "Takeaway", delivery: "Delivery" };

const STATE_LABEL = { queued: "", cooking: "Cooking", ready: "Ready" };

/** What tapping a line does next, or null when nothing can. */
export function nextStep(item) {
  if (item.voided_quantity >= item.quantity) return null;
  if (item.state === "queued") return "start";
  if (item.state === "cooking") return "ready";
  return null;
}

function Line({ item, cancelled, busy, onTap }) {
  const left = Math.max(0, item.quantity - item.voided_quantity);
  const isVoid = left === 0;
  const step = cancelled ? null : nextStep(item);
  const hint = step === "start" ? "tap to start" : step === "ready" ? "tap when ready" : "";
  const classes = ["line", `is-${item.state}`, isVoid ? "is-void" : "", step ? "" : "is-still"].filter(Boolean).join(" ");
  return html`<li>
    <button type="button" class=${classes} data-line-id=${item.line_id} data-state=${item.state}
        disabled=${!step || busy} aria-busy=${busy ? "true" : undefined}
        aria-label=${`${left} ${item.name}${isVoid ? ", void" : ""}, ${item.state}${hint ? `, ${hint}` : ""}`}
        onClick=${() => step && onTap(item, step)}>
      <span class="line-main">
        <span class="qty">${isVoid ? item.quantity : left}</span>
        <span class="name">${isVoid ? html`<del>${item.name}</del>` : item.name}</span>
        ${isVoid
          ? html`<span class="tag void">VOID</span>`
          : item.voided_quantity > 0
            ? html`<span class="tag void partial"><del>${item.voided_quantity}</del> void</span>`
            : null}
        ${!isVoid && STATE_LABEL[item.state] ? html`<span class=${`tag state ${item.state}`}>${STATE_LABEL[item.state]}</span>` : null}
      </span>
      ${item.course > 1 ? html`<span class="course">Course ${item.course}</span>` : null}
      ${item.modifiers?.length ? html`<span class="mods">${item.modifiers.map((m) => html`<span class="mod">${m}</span>`)}</span>` : null}
      ${item.notes ? html`<span class="notes">${item.notes}</span>` : null}
    </button>
  </li>`;
}

export function TicketCard({ ticket, index, selected, seconds, level, showStation, busy, onBump, onLine, onAcknowledge }) {
  const cancelled = ticket.status === "cancelled";
  const where = ticket.table_name
    ? (/^\d+$/.test(ticket.table_name) ? `Table ${ticket.table_name}` : ticket.table_name)
    : ticket.customer_name || "";
  // `261121-007`: the day's sequence is what the pass calls out.
  const cut = ticket.order_number.lastIndexOf("-");
  const day = cut > 0 ? ticket.order_number.slice(0, cut + 1) : "";
  const sequence = cut > 0 ? ticket.order_number.slice(cut + 1) : ticket.order_number;
  const key = index < 9 ? String(index + 1) : null;
  const classes = ["ticket", `level-${cancelled ? "cancelled" : level}`, selected ? "selected" : "", busy.has("ticket") ? "busy" : ""]
    .filter(Boolean).join(" ");
  const head = html`
    <span class="head-main">
      ${key ? html`<span class="key" aria-hidden="true">${key}</span>` : null}
      <span class="number">${day ? html`<small>${day}</small>` : null}${sequence}</span>
      <span class="timer" data-timer>${cancelled ? "" : clock(seconds)}</span>
    </span>
    <span class="head-sub">
      <span class="where">${where}</span>
      <span class="type">${ORDER_TYPES[ticket.order_type] || ticket.order_type}</span>
    </span>
    ${showStation || ticket.server_name
      ? html`<span class="station-name">${[showStation ? ticket.station_name : null, ticket.server_name].filter(Boolean).join(" · ")}</span>`
      : null}`;
  return html`<article class=${classes} data-ticket-id=${ticket.id} data-order-number=${ticket.order_number}
      data-status=${ticket.status} data-level=${cancelled ? "cancelled" : level} aria-current=${selected ? "true" : undefined}>
    ${cancelled
      ? html`<div class="ticket-head">${head}</div>`
      : html`<button type="button" class="ticket-head" data-action="bump" disabled=${busy.has("ticket")}
          aria-label=${`Bump order ${ticket.order_number}`} onClick=${() => onBump(ticket)}>${head}</button>`}
    ${ticket.addition ? html`<div class="flag addition">ADDITION</div>` : null}
    ${cancelled ? html`<div class="flag cancelled">CANCELLED — do not make</div>` : null}
    <ul class="lines">
      ${ticket.items.map((item) => html`<${Line} key=${item.line_id} item=${item} cancelled=${cancelled}
          busy=${busy.has(item.line_id)} onTap=${(it, step) => onLine(ticket, it, step)} />`)}
    </ul>
    ${cancelled ? html`<button type="button" class="btn ack" data-action="acknowledge" disabled=${busy.has("ticket")}
        onClick=${() => onAcknowledge(ticket)}>Seen — clear it</button>` : null}
  </article>`;
}
