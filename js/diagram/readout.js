// The readout: makespan, oversubscribed intervals, warnings. One text model feeds both the DOM
// readout (div.cw-readout) and the lines drawn into the canvas for the PNG.
import { formatPercent, formatQuantity, formatSpan } from "../shared/format.js";

/** At most this many oversubscribed intervals are listed in the DOM, then "… and N more". */
export const DOM_INTERVAL_LIMIT = 20;

function intervalText(scene, k, resourceNames, timeUnit) {
  const resource = resourceNames?.[scene.over_resource[k]] ?? (scene.over_resource[k] === 0 ? "compute" : "memory");
  const span = `${formatSpan(scene.over_t0[k], scene.over_t1[k])}${timeUnit ? ` ${timeUnit}` : ""}`;
  return `${resource} ${formatPercent(scene.over_demand[k])} demand, ${span}`;
}

/** { makespan, intervals: [text], warnings: [text] }, all plain text. */
export function readoutText({ scene, makespan, warnings, units, resourceNames }) {
  const timeUnit = units?.time ?? "";
  const value = Number.isFinite(makespan) ? makespan : scene.x_max;
  const intervals = [];
  for (let k = 0; k < scene.intervals; k++) intervals.push(intervalText(scene, k, resourceNames, timeUnit));
  return {
    makespan: formatQuantity(value, timeUnit, 6),
    intervals,
    warnings: (warnings ?? []).map(String),
  };
}

/**
 * The figure's own readout (drawn into the canvas, so PNGs carry it): the makespan, then one
 * summary line per oversubscribed resource. The DOM readout lists every interval and warning.
 * Returns [{ text, kind: "makespan"|"oversubscribed" }].
 */
export function readoutLines({ scene, makespan, units, resourceNames }) {
  const timeUnit = units?.time ?? "";
  const value = Number.isFinite(makespan) ? makespan : scene.x_max;
  const lines = [{ text: `makespan ${formatQuantity(value, timeUnit, 6)}`, kind: "makespan" }];
  const byResource = new Map();
  for (let k = 0; k < scene.intervals; k++) {
    const resource = scene.over_resource[k];
    const summary = byResource.get(resource) ?? { count: 0, peak: -Infinity, t0: Infinity, t1: -Infinity };
    summary.count += 1;
    summary.peak = Math.max(summary.peak, scene.over_demand[k]);
    summary.t0 = Math.min(summary.t0, scene.over_t0[k]);
    summary.t1 = Math.max(summary.t1, scene.over_t1[k]);
    byResource.set(resource, summary);
  }
  for (const [resource, s] of [...byResource].sort((a, b) => a[0] - b[0])) {
    const name = resourceNames?.[resource] ?? (resource === 0 ? "compute" : "memory");
    const intervals = s.count === 1 ? "1 interval" : `${s.count} intervals`;
    const span = `${formatSpan(s.t0, s.t1)}${timeUnit ? ` ${timeUnit}` : ""}`;
    lines.push({ text: `${name} oversubscribed: up to ${formatPercent(s.peak)} demand in ${intervals}, ${span}`, kind: "oversubscribed" });
  }
  return lines;
}

/** div.cw-readout with span.cw-makespan, ul.cw-oversubscribed and ul.cw-warnings. */
export function createReadout(document) {
  const root = document.createElement("div");
  root.className = "cw-readout";
  const label = document.createElement("span");
  label.className = "cw-readout-label";
  label.textContent = "makespan ";
  const makespan = document.createElement("span");
  makespan.className = "cw-makespan";
  const oversubscribed = document.createElement("ul");
  oversubscribed.className = "cw-oversubscribed";
  // The canvas already summarizes oversubscription (one line per resource, also in PNGs); the
  // interval-by-interval list is a collapsed detail under it.
  const details = document.createElement("details");
  details.className = "cw-details";
  const summary = document.createElement("summary");
  details.append(summary, oversubscribed);
  const warnings = document.createElement("ul");
  warnings.className = "cw-warnings";
  // The canvas draws the makespan (so PNGs carry it); this copy is for screen readers and tests.
  const spoken = document.createElement("p");
  spoken.className = "cw-visually-hidden";
  spoken.append(label, makespan);
  root.append(spoken, details, warnings);

  // A slider step sends the same lines again most of the time: the DOM is touched only when they
  // change (a rebuilt list costs the page a style and layout pass per step).
  const shown = new WeakMap();
  function fillList(list, items, limit, noun) {
    const key = `${items.length}\u0000${items.slice(0, limit).join("\u0000")}`;
    if (shown.get(list) === key) return;
    shown.set(list, key);
    list.replaceChildren();
    for (const item of items.slice(0, limit)) {
      const li = document.createElement("li");
      li.textContent = item;
      list.append(li);
    }
    if (items.length > limit) {
      const li = document.createElement("li");
      li.className = "cw-more";
      li.textContent = `… and ${items.length - limit} more${noun}`;
      list.append(li);
    }
    list.hidden = items.length === 0;
  }

  return {
    element: root,
    update(text) {
      if (makespan.textContent !== text.makespan) makespan.textContent = text.makespan;
      fillList(oversubscribed, text.intervals, DOM_INTERVAL_LIMIT, "");
      const count = text.intervals.length;
      const counted = `${count} oversubscribed interval${count === 1 ? "" : "s"}`;
      if (summary.textContent !== counted) summary.textContent = counted;
      details.hidden = count === 0;
      fillList(warnings, text.warnings, DOM_INTERVAL_LIMIT, " warnings");
    },
  };
}
