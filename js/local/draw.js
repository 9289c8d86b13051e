// Drawing the local view on a 2D context: tensor grids, highlights, overlays, histogram, colour bar.
import { parseHex } from "../shared/color.js";
import { capacityLabel } from "./controls.js";
import {
  capacityLabelBox, capacityMarkerX, histogramBars, histogramLayout, histogramPeak, histogramTicks,
} from "./geometry.js";

export const LOCAL_THEME = {
  background: "#ffffff",
  text: "#222222",
  muted: "#666666",
  idle: "#f1f1f1", // an element with nothing to show
  cellBorder: "#d4d4d4",
  read: "#1f77b4", // touched by the current iteration: read
  write: "#e6550d", // written
  line: "#00a651", // the cache-line overlay (the paper's green)
  selection: "#111111",
  hit: "#2ca02c",
  miss: "#d62728",
  cold: "#6a3d9a",
  gridBackground: "#fafafa", // the gaps between nested blocks
  font: '"Helvetica Neue", Helvetica, Arial, sans-serif',
};

// What changes on a dark page; the data's own colours (read, write, hit, miss, …) stay.
const DARK = {
  idle: "#2a2a2a", cellBorder: "#4a4a4a", gridBackground: "#1c1c1c", selection: "#f5f5f5",
  untouched: "#2a2a2a", // Python's white "nothing here" (never accessed, no miss, not related)
  coldOnly: "#8c8c8c", // Python's dark grey "cold only": light on a dark page, as dark on a light one
};

/**
 * The local view's colours for a theme of js/shared/page-theme.js: background, text and the highlight
 * from the theme, the grid's idle and border colours dark on a dark page.
 */
export function localLook(theme = {}) {
  return {
    ...LOCAL_THEME,
    ...(theme.name === "dark" ? DARK : {}),
    name: theme.name === "dark" ? "dark" : "light",
    background: theme.background ?? LOCAL_THEME.background,
    text: theme.text ?? LOCAL_THEME.text,
    muted: theme.mutedText ?? LOCAL_THEME.muted,
    selection: theme.name === "dark" ? theme.highlight ?? DARK.selection : LOCAL_THEME.selection,
  };
}

/**
 * The colours Python sends for "nothing here" and "cold only" (`heat.neutral`) would read inverted
 * on a dark page: a Map from their CSS forms to the dark look's own (empty in the light theme).
 */
export function neutralSwap(neutral, look) {
  const swap = new Map();
  if (look.name !== "dark") return swap;
  for (const [key, replacement] of [["untouched", look.untouched], ["cold_only", look.coldOnly]]) {
    const hex = neutral?.[key];
    if (typeof hex !== "string" || !replacement) continue;
    const [r, g, b] = parseHex(hex);
    swap.set(`rgb(${r},${g},${b})`, replacement).set(hex.toLowerCase(), replacement);
  }
  return swap;
}

export function font(size, weight = "normal") {
  return `${weight} ${size}px ${LOCAL_THEME.font}`;
}

/**
 * Draw every tensor's grid. `view` = {cell, originX, originY, labelSize, look (localLook)}; `data` =
 * {tensors, x, y, n, fill (array of CSS colours or null), highlight (Map element → "read"|"write"),
 * lineMask (Uint8Array or null), selection (Set)}. Returns counts for the data-* attributes.
 */
export function drawTensors(ctx, view, data) {
  const look = view.look ?? LOCAL_THEME;
  const { cell, originX, originY } = view;
  const inner = cell >= 6 ? cell - 1 : cell;
  const { x, y, n, fill, highlight, lineMask, selection, tensors } = data;
  const swap = data.swap ?? new Map();
  ctx.fillStyle = look.cellBorder;
  for (let t = 0; t < tensors.names.length; t++) {
    const [ox, oy] = tensors.origins[t];
    const [w, h] = tensors.sizes[t];
    // the grid's background shows the gaps between nested blocks as lines of cells
    ctx.fillStyle = look.gridBackground;
    ctx.fillRect(originX + ox * cell - 1, originY + oy * cell - 1, w * cell + 1, h * cell + 1);
  }
  for (let e = 0; e < n; e++) {
    ctx.fillStyle = fill ? swap.get(fill[e]) ?? fill[e] : look.idle;
    ctx.fillRect(originX + x[e] * cell, originY + y[e] * cell, inner, inner);
  }
  let lineCells = 0;
  if (lineMask) {
    ctx.strokeStyle = look.line;
    ctx.fillStyle = "rgba(0, 166, 81, 0.35)";
    ctx.lineWidth = Math.max(1.5, cell / 6);
    for (let e = 0; e < n; e++) {
      if (!lineMask[e]) continue;
      lineCells++;
      const px = originX + x[e] * cell;
      const py = originY + y[e] * cell;
      ctx.fillRect(px, py, inner, inner);
      ctx.strokeRect(px + ctx.lineWidth / 2, py + ctx.lineWidth / 2, inner - ctx.lineWidth, inner - ctx.lineWidth);
    }
  }
  let highlighted = 0;
  if (highlight) {
    for (const [e, kind] of highlight) {
      highlighted++;
      ctx.fillStyle = kind === "write" ? look.write : look.read;
      const pad = Math.max(1, Math.round(cell / 6));
      ctx.fillRect(originX + x[e] * cell + pad, originY + y[e] * cell + pad, inner - 2 * pad, inner - 2 * pad);
    }
  }
  if (selection && selection.size) {
    ctx.strokeStyle = look.selection;
    ctx.lineWidth = Math.max(1.5, cell / 8);
    for (const e of selection) {
      if (e < 0 || e >= n) continue;
      ctx.strokeRect(originX + x[e] * cell + 0.5, originY + y[e] * cell + 0.5, inner - 1, inner - 1);
    }
  }
  // labels: tensor name and shape, as text (never HTML)
  ctx.fillStyle = look.text;
  ctx.font = font(view.labelSize, "bold");
  ctx.textBaseline = "bottom";
  ctx.textAlign = "left";
  for (let t = 0; t < tensors.names.length; t++) {
    const [ox, oy] = tensors.origins[t];
    const shape = tensors.shapes[t];
    ctx.fillText(`${tensors.names[t]} [${shape.join("×")}]`, originX + ox * cell, originY + oy * cell - 3);
  }
  return { highlighted, lineCells };
}

/** A horizontal colour bar with its title and ticks in the box (x, y, width, height). */
export function drawColourBar(ctx, bar, x, y, width, height, look = LOCAL_THEME) {
  if (!bar || !Array.isArray(bar.stops) || bar.stops.length === 0) return;
  const step = width / bar.stops.length;
  bar.stops.forEach((colour, k) => {
    ctx.fillStyle = colour;
    ctx.fillRect(x + k * step, y, Math.ceil(step), height);
  });
  ctx.fillStyle = look.text;
  ctx.font = font(11);
  ctx.textBaseline = "top";
  for (const [s, label] of bar.ticks ?? []) {
    ctx.textAlign = s <= 0 ? "left" : s >= 1 ? "right" : "center";
    ctx.fillText(String(label), x + s * width, y + height + 2);
  }
  ctx.textAlign = "left";
  ctx.textBaseline = "bottom";
  const unit = bar.unit ? ` (${bar.unit})` : "";
  const method = bar.method ? `, ${bar.method} scaling` : "";
  ctx.fillText(`${bar.title}${unit}${method}`, x, y - 2);
}

/** Legend swatches [{colour, label}] in one row from (x, y); returns the row's width. */
export function drawSwatches(ctx, swatches, x, y, size = 10, look = LOCAL_THEME) {
  ctx.font = font(11);
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  let cx = x;
  for (const { colour, label } of swatches) {
    ctx.fillStyle = colour;
    ctx.fillRect(cx, y - size / 2, size, size);
    ctx.strokeStyle = look.cellBorder;
    ctx.lineWidth = 1;
    ctx.strokeRect(cx + 0.5, y - size / 2 + 0.5, size - 1, size - 1);
    ctx.fillStyle = look.text;
    ctx.fillText(String(label), cx + size + 4, y);
    cx += size + 12 + ctx.measureText(String(label)).width;
  }
  return cx - x;
}

/**
 * The stack-distance histogram of the selection: bars 0…max and "cold"; hits green, misses red
 * (d ≥ capacity), cold purple; a dashed marker at the capacity, its label in the row above the plot
 * area (never over a bar); x ticks at nice distances, "cold" apart. (width, height) in CSS px;
 * `options`: {lineBytes, unit} ("lines" | "bytes") for the capacity label. Returns what was placed:
 * {bars, ticks, labelBox, plot} in canvas px (the tests and data-* attributes read them).
 */
export function drawHistogram(ctx, hist, capacity, width, height, look = LOCAL_THEME, options = {}) {
  ctx.fillStyle = look.background;
  ctx.fillRect(0, 0, width, height);
  const layout = histogramLayout(width, height);
  const { left, top } = layout;
  const plotW = layout.width;
  const plotH = layout.height;
  const counts = hist?.counts ?? new Int32Array(0);
  const cold = hist?.cold ?? 0;
  ctx.fillStyle = look.text;
  ctx.font = font(11, "bold");
  ctx.textBaseline = "top";
  ctx.textAlign = "left";
  ctx.fillText(hist?.title ?? "stack distances", left, layout.title.y);
  const bars = histogramBars(counts, cold, capacity, plotW, plotH);
  const colours = { hit: look.hit, miss: look.miss, cold: look.cold };
  for (const bar of bars) {
    if (bar.h <= 0) continue;
    ctx.fillStyle = colours[bar.kind];
    ctx.fillRect(left + bar.x, top + bar.y, bar.w, Math.max(1, bar.h));
  }
  // the x axis: the distances' part, then a gap, then the cold bar's own stretch
  const slot = plotW / (counts.length + 1);
  ctx.strokeStyle = look.muted;
  ctx.lineWidth = 1;
  ctx.beginPath();
  const axisY = top + plotH + 0.5;
  if (counts.length) {
    ctx.moveTo(left, axisY);
    ctx.lineTo(left + counts.length * slot - Math.min(3, slot * 0.1), axisY);
  }
  ctx.moveTo(left + counts.length * slot + Math.min(3, slot * 0.1), axisY);
  ctx.lineTo(left + plotW, axisY);
  ctx.stroke();
  ctx.font = font(10);
  const ticks = histogramTicks(counts.length, plotW, (text) => ctx.measureText(text).width);
  ctx.fillStyle = look.muted;
  ctx.textBaseline = "top";
  ctx.textAlign = "center";
  ctx.beginPath();
  for (const tick of ticks) {
    const x = Math.round(left + tick.x) + 0.5;
    ctx.moveTo(x, top + plotH);
    ctx.lineTo(x, top + plotH + 3);
  }
  ctx.stroke();
  for (const tick of ticks) ctx.fillText(tick.label, left + tick.x, layout.ticksY);
  ctx.textAlign = "left";
  ctx.fillText("stack distance (lines)", left, layout.axisTitleY);
  // the capacity marker: dashed through the plot, its label in the row above with a background
  const mx = Math.round(left + capacityMarkerX(capacity, counts.length, plotW)) + 0.5;
  const label = `capacity ${capacityText(capacity, options)}`;
  const labelBox = capacityLabelBox(mx, ctx.measureText(label).width, layout, width);
  ctx.setLineDash([4, 3]);
  ctx.strokeStyle = look.text;
  ctx.beginPath();
  ctx.moveTo(mx, labelBox.y);
  ctx.lineTo(mx, top + plotH);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = look.background;
  ctx.fillRect(labelBox.x, labelBox.y, labelBox.w, labelBox.h);
  ctx.fillStyle = look.text;
  ctx.textBaseline = "middle";
  ctx.fillText(label, labelBox.x + 3, labelBox.y + labelBox.h / 2);
  const peak = histogramPeak(counts, cold);
  ctx.fillStyle = look.muted;
  ctx.textAlign = "right";
  ctx.fillText(peak.toLocaleString("en-US"), left - 4, top + 4);
  ctx.fillText("0", left - 4, top + plotH);
  return {
    bars: bars.map((b) => ({ ...b, x: left + b.x, y: top + b.y })),
    ticks: ticks.map((t) => ({ ...t, x: left + t.x, y: layout.ticksY })),
    labelBox,
    plot: { x: left, y: top, w: plotW, h: plotH },
  };
}

/** The capacity as the label says it: lines, or bytes with the lines beside them. */
function capacityText(capacity, { lineBytes, unit } = {}) {
  const lines = capacityLabel(capacity, lineBytes, "lines");
  return unit === "bytes" && lineBytes > 0 ? `${capacityLabel(capacity, lineBytes, "bytes")} (${lines})` : lines;
}
