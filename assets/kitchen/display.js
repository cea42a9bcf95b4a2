// The board of one station (or expo): tickets oldest first, live from the event
// stream, with their timers, taps and a bump bar's keys (1–9 picks a card,
// Enter bumps it, R or Backspace recalls the last bumped), the all-day counts
// and a beep for each new ticket.

import { html, useEffect, useMemo, useRef, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api, followEvents, logout } from "/shared/api.js";
import { time, useTenantFormats } from "/shared/format.js";
import { TicketBoard, lateness } from "/kitchen/tickets.js";
import { TicketCard } from "/kitchen/ticket.js";
import { audible, beep, muted, setMuted, unlock } from "/kitchen/sound.js";

const ALL_DAY_KEY = "brigade.kitchen.all-day";

/** What a 409 means to a cook, by the status the ticket is in now. */
const ALREADY = {
  open: "is open again",
  done: "was already bumped",
  cancelled: "was cancelled",
};

function useNow() {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function AllDay({ counts }) {
  return html`<aside class="all-day" data-panel="all-day" aria-label="All day">
    <h2>All day</h2>
    ${counts === null ? html`<p class="muted">Counting…</p>`
      : counts.length === 0 ? html`<p class="muted">Nothing left to cook.</p>`
      : html`<ul>
          ${counts.map((c) => html`<li>
            <span class="qty">${c.quantity}</span>
            <span class="name">${c.name}${c.modifiers?.length ? html`<span class="mods">${c.modifiers.join(", ")}</span>` : null}</span>
          </li>`)}
        </ul>`}
  </aside>`;
}

function Menu({ current, station, stations, onStation, onClose }) {
  const panel = useRef(null);
  useEffect(() => {
    panel.current?.querySelector("button")?.focus();
    const away = (event) => {
      if (!event.target.closest?.(".menu, [data-action=menu]")) onClose();
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, []);
  return html`<div class="menu" role="menu" ref=${panel} aria-label="Display menu">
    <p class="menu-who">${current.user.name} · ${current.tenant.name}</p>
    <h2>Station</h2>
    ${stations.map((s) => html`<button type="button" role="menuitemradio" class="menu-item" data-station=${s.name}
        aria-checked=${s.id === station.id ? "true" : "false"} onClick=${() => onStation(s.id)}>
      ${s.name}${s.kind === "expo" ? html` <span class="muted">· expo</span>` : null}
    </button>`)}
    <hr />
    <button type="button" role="menuitem" class="menu-item" data-action="logout" onClick=${() => logout()}>Log out</button>
  </div>`;
}

export function Display({ current, station, stations, onStation }) {
  const board = useMemo(() => new TicketBoard(station), [station.id]);
  const [tickets, setTickets] = useState([]);
  const [loaded, setLoaded] = useState(false);
  // null while the stream first connects, then whether it is up.
  const [online, setOnline] = useState(null);
  const [selectedId, setSelectedId] = useState(null);
  const [busy, setBusy] = useState(() => new Set());
  const [bumped, setBumped] = useState([]);
  const [toast, setToast] = useState(null);
  const [allDayOpen, setAllDayOpen] = useState(localStorage.getItem(ALL_DAY_KEY) === "1");
  const [allDay, setAllDay] = useState(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const [soundOn, setSoundOn] = useState(!muted());
  const [, setTouched] = useState(0);
  const now = useNow();
  const byId = useMemo(() => new Map(stations.map((s) => [s.id, s])), [stations]);

  function say(text, kind = "error") {
    setToast({ text, kind, at: Date.now() });
  }

  useEffect(() => {
    if (!toast) return undefined;
    const timer = setTimeout(() => setToast(null), 5000);
    return () => clearTimeout(timer);
  }, [toast]);

  // The business's time zone for the clock; the board works without it.
  useEffect(() => {
    api.get("/settings").then(useTenantFormats, () => {});
  }, []);

  // The board: loaded now, then on every (re)connection of the stream, which
  // also replays what was missed; each kitchen event puts its ticket in place.
  useEffect(() => {
    const unsubscribe = board.subscribe(setTickets);
    let alive = true;
    const load = () => board.load().then((fresh) => {
      if (!alive) return;
      setLoaded(true);
      if (fresh.length) beep();
    }, (failed) => {
      if (alive && failed.status !== 0 && failed.status !== 401) say(failed.message);
    });
    load();
    const stop = followEvents((envelope) => {
      if (!envelope?.event?.startsWith("kitchen.ticket.")) return;
      const change = board.apply(envelope.data?.ticket);
      if (change === "added" && envelope.event === "kitchen.ticket.created") beep();
    }, {
      onStatus: (connected) => {
        if (!alive) return;
        setOnline(connected);
        if (connected) load();
      },
    });
    return () => {
      alive = false;
      stop();
      unsubscribe();
    };
  }, [board]);

  // All-day counts, while the panel is open, after the board changes.
  useEffect(() => {
    if (!allDayOpen) return undefined;
    const timer = setTimeout(() => {
      api.get(`/kitchen/all-day?station_id=${encodeURIComponent(station.id)}`)
        .then((answer) => setAllDay(answer.items), () => {});
    }, allDay === null ? 0 : 400);
    return () => clearTimeout(timer);
  }, [allDayOpen, tickets, station.id]);

  // The sound hint follows the first touch.
  useEffect(() => {
    const touched = () => setTouched((n) => n + 1);
    window.addEventListener("pointerup", touched);
    window.addEventListener("keyup", touched);
    return () => {
      window.removeEventListener("pointerup", touched);
      window.removeEventListener("keyup", touched);
    };
  }, []);

  function working(key, on) {
    setBusy((was) => {
      const next = new Set(was);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
  }

  /**
   * Posts an action; the answer is the ticket as it now is, put on the board.
   * Returns `{ ticket }`, or `{ problem }` once the cook has been told.
   */
  async function act(ticket, path, key) {
    working(key, true);
    try {
      const answer = await api.post(`/kitchen/tickets/${ticket.id}/${path}`);
      board.apply(answer);
      return { ticket: answer };
    } catch (problem) {
      if (problem.status === 409) {
        const status = problem.body.current_status;
        say(ALREADY[status] ? `Order #${ticket.order_number} ${ALREADY[status]}.` : `Order #${ticket.order_number}: ${problem.message}`, "info");
        board.load().catch(() => {});
      } else if (problem.status === 404) {
        say(`Order #${ticket.order_number} is no longer on the board.`, "info");
        board.load().catch(() => {});
      } else if (problem.status === 0) {
        say("Not sent: the server cannot be reached. Try again when the screen is back online.");
      } else if (problem.status !== 401) {
        say(problem.message);
      }
      return { problem };
    } finally {
      working(key, false);
    }
  }

  async function bump(ticket) {
    if (busy.has(ticket.id)) return;
    const { ticket: answer } = await act(ticket, "bump", ticket.id);
    if (!answer) return;
    setBumped((was) => [...was.filter((b) => b.id !== ticket.id), { id: ticket.id, order_number: ticket.order_number }].slice(-20));
    setSelectedId((id) => (id === ticket.id ? null : id));
  }

  function acknowledge(ticket) {
    if (busy.has(ticket.id)) return null;
    return act(ticket, "acknowledge", ticket.id);
  }

  function line(ticket, item, step) {
    return act(ticket, `items/${encodeURIComponent(item.line_id)}/${step}`, `${ticket.id}:${item.line_id}`);
  }

  /** Reopens the last ticket bumped on this screen. */
  async function recall() {
    const last = bumped[bumped.length - 1];
    if (!last) {
      say("Nothing bumped on this screen to recall.", "info");
      return;
    }
    if (busy.has(last.id)) return;
    const { ticket, problem } = await act(last, "recall", last.id);
    // Recalled, or refused because it is no longer done: either way it leaves the list.
    if (ticket || (problem && problem.status !== 0)) setBumped((was) => was.filter((b) => b.id !== last.id));
    if (ticket) setSelectedId(ticket.id);
  }

  // A bump bar is a keyboard: the latest state, for the one key listener.
  const latest = useRef({});
  latest.current = { tickets, selectedId, bump, acknowledge, recall, menuOpen };
  useEffect(() => {
    function onKey(event) {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.target.closest?.("input, select, textarea, [contenteditable]")) return;
      const s = latest.current;
      if (s.menuOpen) {
        if (event.key === "Escape") setMenuOpen(false);
        return;
      }
      const index = s.tickets.findIndex((t) => t.id === s.selectedId);
      if (/^[1-9]$/.test(event.key)) {
        const ticket = s.tickets[Number(event.key) - 1];
        if (ticket) setSelectedId(ticket.id);
        event.preventDefault();
      } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        if (!s.tickets.length) return;
        const step = event.key === "ArrowRight" ? 1 : -1;
        const next = index < 0 ? 0 : Math.min(s.tickets.length - 1, Math.max(0, index + step));
        setSelectedId(s.tickets[next].id);
        event.preventDefault();
      } else if (event.key === "Enter") {
        const ticket = s.tickets[index];
        if (!ticket) return;
        event.preventDefault();
        if (ticket.status === "cancelled") s.acknowledge(ticket);
        else s.bump(ticket);
      } else if (event.key === "r" || event.key === "R" || event.key === "Backspace") {
        event.preventDefault();
        s.recall();
      } else if (event.key === "Escape") {
        setSelectedId(null);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  // The selected card stays in view on a long board.
  useEffect(() => {
    if (!selectedId) return;
    document.querySelector(`[data-ticket-id="${CSS.escape(selectedId)}"]`)?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [selectedId]);

  function toggleSound() {
    const on = !soundOn;
    setMuted(!on);
    setSoundOn(on);
    if (on) {
      unlock();
      // Heard at once when the sound is switched on, so the cook knows its volume.
      setTimeout(beep, 50);
    }
  }

  function toggleAllDay() {
    const open = !allDayOpen;
    localStorage.setItem(ALL_DAY_KEY, open ? "1" : "0");
    setAllDayOpen(open);
    if (!open) setAllDay(null);
  }

  const expo = station.kind === "expo";
  const levels = tickets.map((t) => {
    const seconds = board.elapsed(t, now);
    return { seconds, level: t.status === "cancelled" ? "cancelled" : lateness(seconds, byId.get(t.station_id) || station) };
  });
  const late = levels.filter((l) => l.level === "late").length;
  const open = tickets.filter((t) => t.status === "open").length;
  const lastBumped = bumped[bumped.length - 1];
  const waitingForTouch = soundOn && !audible();

  return html`<div class=${`kds${allDayOpen ? " with-all-day" : ""}`}>
    <header class="kds-head">
      <div class="kds-station">
        <span class="logo">B</span>
        <strong data-current-station>${station.name}</strong>
        ${expo ? html`<span class="pill">Expo · all stations</span>` : null}
      </div>
      <div class="kds-counts" aria-live="polite">
        <span><strong>${open}</strong> open</span>
        ${late ? html`<span class="late-count"><strong>${late}</strong> late</span>` : null}
      </div>
      <div class="kds-tools">
        <button type="button" class="tool" data-action="recall" disabled=${!lastBumped}
            title="Recall the last ticket bumped here (R or Backspace)" onClick=${recall}>
          ↶ Recall${lastBumped ? ` #${lastBumped.order_number}` : ""}
        </button>
        <button type="button" class="tool" data-action="all-day" aria-pressed=${allDayOpen ? "true" : "false"} onClick=${toggleAllDay}>All day</button>
        <button type="button" class="tool" data-action="sound" aria-pressed=${soundOn ? "true" : "false"} onClick=${toggleSound}
            title=${waitingForTouch ? "The browser plays sound once the screen has been touched" : ""}>
          ${soundOn ? (waitingForTouch ? "♪ Tap to enable sound" : "♪ Sound on") : "Muted"}
        </button>
        <span class="kds-clock">${time(new Date(now).toISOString())}</span>
        <button type="button" class="tool" data-action="menu" aria-haspopup="menu" aria-expanded=${menuOpen ? "true" : "false"}
            onClick=${() => setMenuOpen(!menuOpen)}>☰ Menu</button>
      </div>
      ${menuOpen ? html`<${Menu} current=${current} station=${station} stations=${stations}
          onStation=${(id) => { setMenuOpen(false); onStation(id); }} onClose=${() => setMenuOpen(false)} />` : null}
    </header>
    ${online === false ? html`<div class="banner offline" data-banner="offline" role="alert">
        Offline — reconnecting… New tickets will appear when the connection is back.</div>` : null}
    <div class="kds-body">
      <main class="board" aria-label="Tickets">
        ${tickets.length === 0
          ? html`<p class="board-empty">${loaded ? "No tickets. New orders appear here as they come in." : "Loading tickets…"}</p>`
          : tickets.map((ticket, i) => {
            const key = (k) => (k === "ticket" ? ticket.id : `${ticket.id}:${k}`);
            return html`<${TicketCard} key=${ticket.id} ticket=${ticket} index=${i} selected=${ticket.id === selectedId}
              seconds=${levels[i].seconds} level=${levels[i].level} showStation=${expo}
              busy=${{ has: (k) => busy.has(key(k)) }} onBump=${bump} onLine=${line} onAcknowledge=${acknowledge} />`;
          })}
      </main>
      ${allDayOpen ? html`<${AllDay} counts=${allDay} />` : null}
    </div>
    ${toast ? html`<div class=${`toast ${toast.kind}`} role="status">${toast.text}</div>` : null}
  </div>`;
}
