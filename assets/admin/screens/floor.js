// Placeholder until the screen is written.
import { html } from "/shared/vendor/preact-htm-3.1.1.module.js";

export function FloorPlan() {
  return html`<div class="card"><h1>FloorPlan</h1></div>`;
}
