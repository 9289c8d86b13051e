// The readout: makespan, oversubscribed intervals, warnings. One text model feeds both the DOM
// readout (div.cw-readout) and the lines drawn into the canvas for the PNG.
import { formatNumber, formatPercent, formatQuantity } from "./format.js";

/** At most this many oversubscribed intervals are listed in the DOM, then "… and N more". */
export const DOM_INTERVAL_LIMIT = 20;

function intervalText(scene, k, resourceNames, timeUnit) {
  const resource = resourceNames?.[scene.over_resource[k]] ?? (scene.over_resource[k] === 0 ? "compute" : "memory");
  const span = `${formatNumber(scene.over_t0[k])}–${formatNumber(scene.over_t1[k])}${timeUnit ? ` ${timeUnit}` : ""}`;
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

/** Lines for the canvas readout: [{ text, kind: "makespan"|"oversubscribed"|"warning"|"more" }]. */
export function readoutLines(text, { maxIntervals = 4, maxWarnings = 3 } = {}) {
  const lines = [{ text: `makespan ${text.makespan}`, kind: "makespan" }];
  text.intervals.slice(0, maxIntervals).forEach((interval) => {
    lines.push({ text: `oversubscribed: ${interval}`, kind: "oversubscribed" });
  });
  if (text.intervals.length > maxIntervals) {
    lines.push({ text: `… and ${text.intervals.length - maxIntervals} more oversubscribed intervals`, kind: "more" });
  }
  text.warnings.slice(0, maxWarnings).forEach((warning) => lines.push({ text: `warning: ${warning}`, kind: "warning" }));
  if (text.warnings.length > maxWarnings) {
    lines.push({ text: `… and ${text.warnings.length - maxWarnings} more warnings`, kind: "more" });
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
  const warnings = document.createElement("ul");
  warnings.className = "cw-warnings";
  root.append(label, makespan, oversubscribed, warnings);

  function fillList(list, items, limit, noun) {
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
      makespan.textContent = text.makespan;
      fillList(oversubscribed, text.intervals, DOM_INTERVAL_LIMIT, "");
      fillList(warnings, text.warnings, DOM_INTERVAL_LIMIT, " warnings");
    },
  };
}
