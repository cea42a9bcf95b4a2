// The tickets on one station's board, kept as the server last described them:
// a load replaces them, a ticket from an event or an action's answer is put in
// place by id (or taken off when it is done or acknowledged), so nothing shows
// twice and nothing needs a reload.

import { all } from "/shared/api.js";

/** Open tickets, and cancelled ones until the cook acknowledges them. */
export function onBoard(ticket) {
  return ticket.status === "open" || (ticket.status === "cancelled" && !ticket.acknowledged_at);
}

/** An expo station sees every station's tickets; a prep station its own. */
export function belongs(ticket, station) {
  return station.kind === "expo" || ticket.station_id === station.id;
}

function byAge(a, b) {
  return Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Puts `ticket` in `map` as it now is; says what changed, or null. A view older
 * than one already seen (`versions`, kept for tickets that left the board too)
 * is ignored: an action's answer can overtake the events before it, and a late
 * event must not bring a bumped ticket back.
 */
function put(map, ticket, versions) {
  const seen = versions.get(ticket.id);
  if (seen !== undefined && ticket.version < seen) return null;
  versions.set(ticket.id, ticket.version);
  const had = map.has(ticket.id);
  if (onBoard(ticket)) {
    map.set(ticket.id, ticket);
    return had ? "changed" : "added";
  }
  if (!had) return null;
  map.delete(ticket.id);
  return "removed";
}

export class TicketBoard {
  constructor(station) {
    this.station = station;
    this.tickets = new Map();
    // The newest version seen of every ticket, on the board or not.
    this.versions = new Map();
    this.sorted = [];
    this.listeners = new Set();
    // Tickets that arrived while a load was under way, put back over its answer.
    this.arrived = null;
    this.loads = 0;
    this.loaded = false;
    // The server's clock minus this screen's, in milliseconds.
    this.skew = 0;
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed() {
    this.sorted = [...this.tickets.values()].sort(byAge);
    for (const listener of this.listeners) listener(this.sorted);
  }

  /** A ticket as it now is (from an event or an action); returns what changed. */
  apply(ticket) {
    if (!ticket?.id || !belongs(ticket, this.station)) return null;
    this.arrived?.push(ticket);
    const change = put(this.tickets, ticket, this.versions);
    if (change) this.changed();
    return change;
  }

  /**
   * Fetches the board again. Tickets that arrive meanwhile are applied over the
   * answer, so a slow answer cannot undo a newer change. Returns the ids that
   * were not on the board before (none on the first load).
   */
  async load() {
    const load = ++this.loads;
    this.arrived = [];
    let list;
    try {
      list = await all(`/kitchen/tickets?station_id=${encodeURIComponent(this.station.id)}`);
    } catch (failed) {
      if (load === this.loads) this.arrived = null;
      throw failed;
    }
    if (load !== this.loads) return [];
    const now = Date.now();
    const skews = list
      .filter((t) => t.status === "open" && Number.isFinite(t.elapsed_seconds))
      .map((t) => Date.parse(t.created_at) + t.elapsed_seconds * 1000 - now);
    if (skews.length) this.skew = Math.max(...skews);
    const map = new Map();
    // What the screen already holds newer than the answer stays as it is; what
    // arrived meanwhile goes on top.
    const versions = new Map(this.versions);
    for (const ticket of list) {
      if (!belongs(ticket, this.station)) continue;
      const seen = versions.get(ticket.id);
      if (seen !== undefined && ticket.version < seen) {
        const mine = this.tickets.get(ticket.id);
        if (mine) map.set(ticket.id, mine);
        continue;
      }
      put(map, ticket, versions);
    }
    for (const ticket of this.arrived) put(map, ticket, versions);
    this.versions = versions;
    this.arrived = null;
    const fresh = this.loaded ? [...map.keys()].filter((id) => !this.tickets.has(id)) : [];
    this.tickets = map;
    this.loaded = true;
    this.changed();
    return fresh;
  }

  /** Seconds a ticket has been open, by the server's clock. */
  elapsed(ticket, now = Date.now()) {
    return Math.max(0, Math.floor((now + this.skew - Date.parse(ticket.created_at)) / 1000));
  }
}

/** normal, warn or late, by the thresholds of the ticket's station. */
export function lateness(seconds, station) {
  if (!station) return "normal";
  if (seconds >= station.late_after_minutes * 60) return "late";
  if (seconds >= station.warn_after_minutes * 60) return "warn";
  return "normal";
}
