// The kitchen display: sign the screen in once (or pair it with a setup key at
// `/kitchen/pair`), choose its station (or expo), then the board. The session
// and the station are kept in this browser, so a screen that restarts comes
// back to its board by itself.

import { html, render, useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { api, followEvents, logout } from "/shared/api.js";
import { useSession } from "/shared/session.js";
import { Login } from "/kitchen/login.js";
import { Display } from "/kitchen/display.js";
import { Pair } from "/kitchen/pair.js";

const STATION_KEY = "brigade.kitchen.station";

/** How long to wait before asking again when the server cannot be reached. */
const RETRY_MS = 3000;


function StationPicker({ current, stations, onStation }) {
  // Only so that the screen hears at once when its session ends (its device
  // revoked): the stream ends and reopening it is refused.
  useEffect(() => followEvents(() => {}), []);
  return html`<main class="kds-picker">
    <div class="picker-card">
      <div class="brand big"><span class="logo">B</span><div><strong>Brigade kitchen</strong><small>${current.tenant.name}</small></div></div>
      <h1>Which station is this screen?</h1>
      ${stations.length === 0
        ? html`<p>No kitchen station is set up yet. A manager can add one; this screen will then offer it.</p>`
        : html`<div class="station-list">
            ${stations.map((s) => html`<button type="button" class="station-choice" data-station=${s.name} onClick=${() => onStation(s.id)}>
              <strong>${s.name}</strong>
              <span>${s.kind === "expo" ? "Expo: every station's tickets" : "Prep: its own tickets"}</span>
            </button>`)}
          </div>`}
      <p class="picker-foot">Signed in as ${current.user.name}.
        <button type="button" class="btn ghost small" data-action="logout" onClick=${() => logout()}>Log out</button></p>
    </div>
  </main>`;
}

function Kitchen({ current }) {
  const [stations, setStations] = useState(null);
  const [problem, setProblem] = useState(null);
  const [stationId, setStationId] = useState(localStorage.getItem(STATION_KEY));

  // The stations, asked again until the server answers (a screen may boot first).
  useEffect(() => {
    let alive = true;
    let timer = null;
    const load = () => api.get("/kitchen/stations").then((answer) => {
      if (!alive) return;
      setStations(answer.data.filter((s) => s.active));
      setProblem(null);
    }, (failed) => {
      if (!alive || failed.status === 401) return;
      setProblem(failed);
      if (failed.status === 0 || failed.status >= 500) timer = setTimeout(load, RETRY_MS);
    });
    load();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, []);

  function choose(id) {
    if (id) localStorage.setItem(STATION_KEY, id);
    else localStorage.removeItem(STATION_KEY);
    setStationId(id);
  }

  if (!stations) {
    return html`<main class="kds-picker">
      ${problem?.status === 0
        ? html`<div class="banner offline" data-banner="offline" role="alert">Offline — reconnecting…</div>`
        : problem ? html`<div class="picker-card">
            <div class="notice error" role="alert">${problem.message}</div>
            <button type="button" class="btn" data-action="logout" onClick=${() => logout()}>Log out</button>
          </div>`
        : html`<p class="boot">Loading the stations…</p>`}
    </main>`;
  }
  const station = stations.find((s) => s.id === stationId);
  if (!station) return html`<${StationPicker} current=${current} stations=${stations} onStation=${choose} />`;
  return html`<${Display} key=${station.id} current=${current} station=${station} stations=${stations} onStation=${choose} />`;
}

const PAIR_PATH = "/kitchen/pair";

function App() {
  const current = useSession("The screen's session has ended. Please sign in again.");
  const [pairing, setPairing] = useState(location.pathname.replace(/\/+$/, "") === PAIR_PATH);
  if (pairing) {
    return html`<${Pair} onSignedIn=${() => {
      history.replaceState(null, "", "/kitchen/");
      setPairing(false);
    }} />`;
  }
  if (!current) return html`<${Login} />`;
  return html`<${Kitchen} key=${current.token} current=${current} />`;
}

const root = document.getElementById("app");
root.replaceChildren();
render(html`<${App} />`, root);
