// The hover tooltip: what it says (pure) and the div.cw-tooltip that shows it (textContent only).
import { formatPercent, formatQuantity, formatSI, formatSpan, MISSING } from "./format.js";

function column(table, name, phase) {
  const values = table?.[name];
  return values && phase >= 0 && phase < values.length ? Number(values[phase]) : NaN;
}

function boundName(code, resourceNames) {
  if (code === 0) return resourceNames?.[0] ?? "compute";
  if (code === 1) return resourceNames?.[1] ?? "memory";
  if (code === 2) return "balanced";
  return MISSING;
}

/** { title, rows: [[label, value]] } for scene piece i. */
/** scene.flags bit of a piece that stands for several pieces of one phase in one pixel column. */
export const MERGED = 4;

export function tooltipContent(figure, i) {
  const { scene, phaseTable: table, units, resourceNames } = figure;
  const phase = scene.phase[i];
  const name = figure.phaseNames[phase] ?? `phase ${phase}`;
  const [first, second] = [resourceNames?.[0] ?? "compute", resourceNames?.[1] ?? "memory"];
  const timeUnit = units.time ? ` ${units.time}` : "";
  const rows = [
    ["time", `${formatSpan(scene.x0[i], scene.x1[i])}${timeUnit}`],
    ["duration", formatQuantity(column(table, "duration", phase), units.time)],
    [`${first} utilization`, formatPercent(column(table, "compute_util", phase))],
    [`${second} utilization`, formatPercent(column(table, "memory_util", phase))],
    [`${first} volume`, formatSI(column(table, "ops", phase), units.ops)],
    [`${second} volume`, formatSI(column(table, "bytes", phase), units.bytes)],
    ["operational intensity", formatQuantity(column(table, "intensity", phase), `${units.ops}/${units.bytes}`)],
    ["bound", boundName(table?.bound ? table.bound[phase] : undefined, resourceNames)],
    ["efficiency", formatPercent(column(table, "efficiency", phase))],
  ];
  // A piece the kernel merged for this zoom (scene_pixels.py: flag 4) stands for several tiles.
  if (scene.flags[i] & MERGED) return { title: `${name} · several tiles (zoom in for each)`, rows };
  const tiled = scene.tile[i] > 0 || figure.tiled;
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
