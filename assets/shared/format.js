// Money and times as the restaurant reads them: in the tenant's currency and
// time zone, whatever the browser's own settings.

let currency = "USD";
let timeZone = "UTC";

export function useTenantFormats(settings) {
  currency = settings.currency || currency;
  timeZone = settings.timezone || timeZone;
}

export function tenantTimeZone() {
  return timeZone;
}

export function money(amount) {
  if (amount === null || amount === undefined) return "—";
  return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(amount);
}

export function dateTime(iso) {
  if (!iso) return "—";
  return new Intl.DateTimeFormat(undefined, { timeZone, dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}

export function time(iso) {
  if (!iso) return "—";
  return new Intl.DateTimeFormat(undefined, { timeZone, hour: "2-digit", minute: "2-digit" }).format(new Date(iso));
}

/** `YYYY-MM-DD` of an instant in the tenant's time zone. */
export function localDate(at = new Date()) {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(at);
  const get = (type) => parts.find((p) => p.type === type).value;
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/** The instant a local wall-clock time of the tenant's zone stands for. */
export function zonedInstant(date, clock) {
  const guess = new Date(`${date}T${clock}:00Z`);
  const shown = new Date(guess.toLocaleString("en-US", { timeZone }));
  const utc = new Date(guess.toLocaleString("en-US", { timeZone: "UTC" }));
  return new Date(guess.getTime() - (shown.getTime() - utc.getTime()));
}

export function titleCase(text) {
  return String(text || "").replace(/_/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/** `m:ss`, or `h:mm:ss` past the hour. */
export function clock(seconds) {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
