// The hover tooltip: what it says (pure) and the div.cw-tooltip that shows it (textContent only).
import { formatNumber, formatPercent, formatQuantity, formatSI, formatSpan, MISSING, timeUnitFor } from "./format.js";
import { CRITICAL } from "./legend.js";
import { dashStart } from "./pixels.js";

function column(table, name, phase) {
  const values = table?.[name];
  return values && phase >= 0 && phase < values.length ? Number(values[phase]) : NaN;
}

function boundName(code, resourceNames) {
  if (code === 0) return resourceNames?.[0] ?? "compute";
  if (code === 1) return resourceNames?.[1] ?? "memory";
  if (code === 2) return "balanced";
  if (code === 3) return `${resourceNames?.[1] ?? "memory"} latency`; // model/phase_arrays.py BOUND_LATENCY
  if (code === 4) return "unknown (bytes unknown)"; // the source gives no bytes: no bound (diagram.py BOUND_UNKNOWN)
  return MISSING;
}

/** scene.flags bit of a piece that stands for several pieces of one phase in one pixel column. */
export const MERGED = 4;

const tileSpans = new WeakMap();

/**
 * The tile scene piece i belongs to: { t0, t1, added } over every piece of its phase and tile (the
 * scene cuts a tile where what is stacked under it changes). `added` is the time dilation and
 * throttling added to it, from where its compute line turns dashed to its end. Worked out once per
 * tile and scene, on the first hover over it.
 */
export function tileSpan(scene, i) {
  let spans = tileSpans.get(scene);
  if (!spans) tileSpans.set(scene, (spans = new Map()));
  const phase = scene.phase[i];
  const tile = scene.tile[i];
  const key = `${phase}:${tile}`;
  let span = spans.get(key);
  if (span) return span;
  let t0 = Infinity;
  let t1 = -Infinity;
  let dashFrom = Infinity;
  for (let k = 0; k < scene.n; k++) {
    if (scene.phase[k] !== phase || scene.tile[k] !== tile || scene.flags[k] & MERGED) continue;
    const x0 = scene.x0[k];
    const x1 = scene.x1[k];
    if (x0 < t0) t0 = x0;
    if (x1 > t1) t1 = x1;
    const from = dashStart(scene.dash_from[k], x0, x1);
    if (from < x1 && from < dashFrom) dashFrom = from;
  }
  if (!(t1 >= t0)) [t0, t1] = [scene.x0[i], scene.x1[i]];
  span = { t0, t1, added: dashFrom < t1 ? t1 - dashFrom : 0 };
  spans.set(key, span);
  return span;
}

/**
 * { title, rows: [[label, value]] } for scene piece i: its tile's own interval and length, the time
 * dilation/throttling added to it, the rates it runs at there, then its phase's totals.
 */
export function tooltipContent(figure, i) {
  const { scene, phaseTable: table, units, resourceNames } = figure;
  const phase = scene.phase[i];
  const name = figure.phaseNames[phase] ?? `phase ${phase}`;
  const [first, second] = [resourceNames?.[0] ?? "compute", resourceNames?.[1] ?? "memory"];
  // Times in the unit of the time axis (ms on an axis in ms), as the readout gives them.
  const display = timeUnitFor(units.time ?? "", Math.max(scene.x_max, figure.timeMax ?? 0));
  const timeUnit = display.unit ? ` ${display.unit}` : "";
  const time = (value) => (Number.isFinite(value) ? `${formatNumber(value * display.factor, 4)}${timeUnit}` : MISSING);
  const spanOf = (t0, t1) => `${formatSpan(t0 * display.factor, t1 * display.factor)}${timeUnit}`;
  const phaseRows = (prefix) => [
    [`${prefix}${first} volume`, formatSI(column(table, "ops", phase), units.ops)],
    [`${prefix}${second} volume`, formatSI(column(table, "bytes", phase), units.bytes)],
    ["operational intensity", formatQuantity(column(table, "intensity", phase), `${units.ops}/${units.bytes}`)],
    ["bound", boundName(table?.bound ? table.bound[phase] : undefined, resourceNames)],
    ["efficiency", formatPercent(column(table, "efficiency", phase))],
  ];
  // A piece the kernel merged for this zoom (scene_pixels.py: flag 4) stands for several tiles:
  // there is no one tile to describe, so it reads as its phase.
  if (scene.flags[i] & MERGED) {
    const rows = [
      ["time", spanOf(scene.x0[i], scene.x1[i])],
      ["phase duration", time(column(table, "duration", phase))],
      [`${first} utilization`, formatPercent(column(table, "compute_util", phase))],
      [`${second} utilization`, formatPercent(column(table, "memory_util", phase))],
      ...phaseRows("phase "),
    ];
    return { title: `${name} · several tiles (zoom in for each)`, rows };
  }
  const tiled = scene.tile[i] > 0 || figure.tiled;
  const span = tileSpan(scene, i);
  const length = span.t1 - span.t0;
  const rows = [
    ["time", spanOf(span.t0, span.t1)],
    ["duration", time(length)],
  ];
  if (span.added > 1e-9 * Math.max(Math.abs(span.t0), Math.abs(span.t1))) {
    rows.push(["added by dilation/throttling", `${time(span.added)} (${formatPercent(span.added / (length - span.added))} longer)`]);
  }
  // The rates of this piece: a tile throttled for part of its length runs slower there.
  const partial = scene.x0[i] > span.t0 || scene.x1[i] < span.t1;
  const where = partial ? ` (${spanOf(scene.x0[i], scene.x1[i])})` : "";
  const pipe = scene.pipe_width > 0 ? scene.pipe_width : NaN;
  rows.push(
    [`${first} utilization`, `${formatPercent(scene.line_y[i] - scene.base_y[i])}${where}`],
    [`${second} utilization`, `${formatPercent((scene.fill_top[i] - scene.line_y[i]) / pipe)}${where}`],
  );
  if (scene.flags[i] & CRITICAL) rows.push(["critical path", "on it: shortening it shortens the whole"]);
  const phaseDuration = column(table, "duration", phase);
  if (tiled || Math.abs(phaseDuration - length) > 1e-9 * Math.abs(phaseDuration)) {
    rows.push(["phase duration", time(phaseDuration)]);
  }
  rows.push(...phaseRows(tiled ? "phase " : ""));
  return { title: tiled ? `${name} · tile ${scene.tile[i] + 1}` : name, rows };
}

export function createTooltip(document) {
  const element = document.createElement("div");
  element.className = "cw-tooltip";
  element.hidden = true;
  element.setAttribute("role", "tooltip");

  function show(content, x, y, bounds) {
    const title = document.createElement("div");
    title.className = "cw-tooltip-title";
    title.textContent = content.title;
    const rows = content.rows.map(([label, value]) => {
      const row = document.createElement("div");
      row.className = "cw-tooltip-row";
      const l = document.createElement("span");
      l.className = "cw-tooltip-label";
      l.textContent = label;
      const v = document.createElement("span");
      v.className = "cw-tooltip-value";
      v.textContent = value;
      row.append(l, v);
      return row;
    });
    element.replaceChildren(title, ...rows);
    element.hidden = false;
    // Beside the cursor, flipped to the other side near the right or bottom edge.
    const { width, height } = element.getBoundingClientRect();
    const gap = 14;
    const left = x + gap + width > bounds.width ? Math.max(0, x - gap - width) : x + gap;
    const top = y + gap + height > bounds.height ? Math.max(0, y - gap - height) : y + gap;
    element.style.left = `${left}px`;
    element.style.top = `${top}px`;
  }

  function hide() {
    element.hidden = true;
  }

  return { element, show, hide };
}
