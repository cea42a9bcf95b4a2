// The Brigade API as the web apps use it: the same public API as any POS, with
// the session kept in this browser, problems as `Problem` errors, and the live
// event stream read with fetch (EventSource cannot send the Authorization header).

const BASE = "/api/v1";
const SESSION_KEY = "brigade.session";

/** A problem+json answer, or a network failure (`status` 0, code `network`). */
export class Problem extends Error {
  constructor(status, body) {
    super(body?.detail || body?.title || `request failed (${status})`);
    this.status = status;
    this.code = body?.code || (status === 0 ? "network" : "error");
    this.errors = body?.errors || [];
    this.body = body || {};
  }

  /** The message for one field, as the server named it. */
  field(name) {
    return this.errors.find((e) => e.field === name || e.field.startsWith(`${name}.`) || e.field.startsWith(`${name}[`))?.message;
  }
}

export function session() {
  try {
    return JSON.parse(localStorage.getItem(SESSION_KEY) || "null");
  } catch {
    return null;
  }
}

function saveSession(value) {
  if (value) localStorage.setItem(SESSION_KEY, JSON.stringify(value));
  else localStorage.removeItem(SESSION_KEY);
  window.dispatchEvent(new CustomEvent("brigade:session"));
}

export function logout(reason) {
  saveSession(null);
  if (reason) sessionStorage.setItem("brigade.logout-reason", reason);
}

/** Why the last session ended, once. */
export function takeLogoutReason() {
  const reason = sessionStorage.getItem("brigade.logout-reason");
  sessionStorage.removeItem("brigade.logout-reason");
  return reason;
}

async function parse(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text };
  }
}

/** Posts to a route that needs no session (logging in, pairing). */
async function postSignedOut(path, payload, headers = {}) {
  let response;
  try {
    response = await fetch(`${BASE}${path}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(payload),
    });
  } catch {
    throw new Problem(0, { detail: "The server cannot be reached. Check the network and try again." });
  }
  const body = await parse(response);
  if (!response.ok) throw new Problem(response.status, body);
  return body;
}

/** Logs in; with several businesses for one email, `tenantId` picks one. */
export async function login(email, password, tenantId) {
  const body = await postSignedOut("/auth/login", { email, password }, tenantId ? { "X-Tenant-ID": tenantId } : {});
  saveSession({
    token: body.access_token,
    expiresAt: Date.now() + body.expires_in * 1000,
    user: body.user,
    tenant: body.tenant,
  });
  return body;
}

/** Pairs a device with a setup key's code; the answer is `{device, api_key, tenant}`. */
export function pair(code, deviceName) {
  return postSignedOut("/devices/pair", { code, device_name: deviceName });
}

/** A device's session has no end of its own: it lasts until the device is revoked (401). */
const DEVICE_SESSION_MS = 10 * 365 * 24 * 3600 * 1000;

/** Signs this browser in as the paired device: its credential is the bearer token. */
export function signInAsDevice(paired) {
  saveSession({
    token: paired.api_key,
    expiresAt: Date.now() + DEVICE_SESSION_MS,
    user: { id: paired.device.id, name: paired.device.name, role: paired.device.role },
    tenant: paired.tenant,
  });
}

/** Replaces a temporary password; the answer's new token carries the session on. */
export async function changePassword(currentPassword, newPassword) {
  const body = await request("POST", "/auth/change-password", { current_password: currentPassword, new_password: newPassword });
  saveSession({
    token: body.access_token,
    expiresAt: Date.now() + body.expires_in * 1000,
    user: body.user,
    tenant: body.tenant,
  });
}

/** Calls the API as the logged-in user. A 401 ends the session. */
export async function request(method, path, body) {
  const current = session();
  const headers = {};
  if (current) {
    headers.Authorization = `Bearer ${current.token}`;
    headers["X-Tenant-ID"] = current.tenant.id;
  }
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new Problem(0, { detail: "The server cannot be reached. Nothing was lost: check the network and try again." });
  }
  const parsed = await parse(response);
  if (response.status === 401 && current) {
    logout("Your session has ended. Please log in again.");
  }
  if (!response.ok) throw new Problem(response.status, parsed);
  return parsed;
}

export const api = {
  get: (path) => request("GET", path),
  post: (path, body = {}) => request("POST", path, body),
  patch: (path, body) => request("PATCH", path, body),
  put: (path, body) => request("PUT", path, body),
  delete: (path) => request("DELETE", path),
};

/** Every page of a list, up to `max` items. */
export async function all(path, max = 1000) {
  const items = [];
  let cursor = null;
  do {
    const join = path.includes("?") ? "&" : "?";
    const page = await api.get(`${path}${join}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor && items.length < max);
  return items;
}

/** Rocket sends a comment every 30 s; a stream silent for longer is dead. */
const STREAM_SILENCE_MS = 75_000;

/**
 * A stream the server ended after being open this long is reopened at once (it
 * ends when the session's credential is revoked, and reopening it is refused);
 * otherwise the next try waits.
 */
const STREAM_SETTLED_MS = 1000;

/**
 * Follows the tenant's live event stream, calling `onEvent(envelope)` for each
 * event; reconnects with Last-Event-ID after a drop. With `onStatus`, calls
 * `onStatus(true)` when the stream is open and `onStatus(false)` when it drops
 * or cannot be opened (each change once). A stream that stays silent past the
 * server's keep-alive is dropped and reopened. Returns a function that stops it.
 */
export function followEvents(onEvent, { onStatus } = {}) {
  let stopped = false;
  let lastId = null;
  let controller = null;
  let connected = null;
  function status(now) {
    if (stopped || now === connected) return;
    connected = now;
    try {
      onStatus?.(now);
    } catch (failed) {
      console.error(failed);
    }
  }
  async function run() {
    while (!stopped) {
      const current = session();
      if (!current) return;
      controller = new AbortController();
      const abort = controller;
      let watchdog = null;
      const watch = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => abort.abort(), STREAM_SILENCE_MS);
      };
      let ended = false;
      const opened = Date.now();
      try {
        const headers = { Authorization: `Bearer ${current.token}`, "X-Tenant-ID": current.tenant.id };
        if (lastId) headers["Last-Event-ID"] = lastId;
        watch();
        const response = await fetch(`${BASE}/events/stream`, { headers, signal: controller.signal });
        if (response.status === 401) {
          logout("Your session has ended. Please log in again.");
          return;
        }
        status(response.ok);
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            ended = response.ok && Date.now() - opened >= STREAM_SETTLED_MS;
            break;
          }
          watch();
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id = null;
            let data = "";
            for (const line of message.split("\n")) {
              if (line.startsWith("id:")) id = line.slice(3).trim();
              else if (line.startsWith("data:")) data += line.slice(5).trim();
            }
            if (id) lastId = id;
            if (data) {
              try {
                onEvent(JSON.parse(data));
              } catch {
                // A message that is not an envelope (a keep-alive) is ignored.
              }
            }
          }
        }
      } catch {
        if (stopped) return;
      } finally {
        clearTimeout(watchdog);
      }
      if (ended) continue;
      status(false);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
  run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
