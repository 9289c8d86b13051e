// Pure helpers of the local view (no DOM): cell size, hit grid, loop counters, labels, histogram
// bars, ticks and labels. Python computes every number of the model; these only place what it sent
// on the screen.
import { niceTicks, tickCountFor } from "../shared/ticks.js";

/** CSS px per cell so that a grid of `widthCells` fits `availableWidth`, clamped to [min, max]. */
export function fitCell(widthCells, availableWidth, { min = 4, max = 22 } = {}) {
  if (!(widthCells > 0) || !(availableWidth > 0)) return min;
  return Math.max(min, Math.min(max, Math.floor(availableWidth / widthCells)));
}

/** Int32Array of width×height cells holding the element drawn there, −1 elsewhere. */
export function buildHitGrid(x, y, width, height) {
  const grid = new Int32Array(Math.max(0, width * height)).fill(-1);
  const n = Math.min(x.length, y.length);
  for (let e = 0; e < n; e++) {
    const cx = x[e];
    const cy = y[e];
    if (cx >= 0 && cx < width && cy >= 0 && cy < height) grid[cy * width + cx] = e;
  }
  return grid;
}

/** The element under cell coordinates (cx, cy) (floats, cells), or −1. */
export function hitElement(grid, width, height, cx, cy) {
  const ix = Math.floor(cx);
  const iy = Math.floor(cy);
  if (!(ix >= 0 && ix < width && iy >= 0 && iy < height)) return -1;
  return grid[iy * width + ix];
}

/** Loop counters (outermost first) of iteration `point` of a nest with `extents`. */
export function indicesFromPoint(point, extents) {
  const out = new Array(extents.length).fill(0);
  let rest = Math.max(0, Math.floor(point));
  for (let k = extents.length - 1; k >= 0; k--) {
    const n = Math.max(1, extents[k]);
    out[k] = rest % n;
    rest = Math.floor(rest / n);
  }
  return out;
}

/** The iteration number of loop counters `indices` (outermost first); counters are clamped. */
export function pointFromIndices(indices, extents) {
  let point = 0;
  for (let k = 0; k < extents.length; k++) {
    const n = Math.max(1, extents[k]);
    const i = Math.min(n - 1, Math.max(0, Math.floor(indices[k] ?? 0)));
    point = point * n + i;
  }
  return point;
}

/** Playback: the iteration after `elapsedMs` at `speed` iterations/s from `start`, wrapping at `count`. */
export function advance(start, elapsedMs, speed, count) {
  if (!(count > 0)) return 0;
  const steps = Math.floor((Math.max(0, elapsedMs) * Math.max(0, speed)) / 1000);
  return (((start + steps) % count) + count) % count;
}

/** "A[1,2]" for flat (C-order) element `flat` of a tensor `name` of `shape`. Text, never HTML. */
export function elementLabel(name, shape, flat) {
  if (!shape.length) return name;
  const idx = new Array(shape.length);
  let rest = flat;
  for (let d = shape.length - 1; d >= 0; d--) {
    idx[d] = rest % shape[d];
    rest = Math.floor(rest / shape[d]);
  }
  return `${name}[${idx.join(",")}]`;
}

/** CSS colour strings for an (n×3) uint8 array, one per element. */
export function rgbStyles(rgb, n) {
  const out = new Array(n);
  const cache = new Map();
  for (let e = 0; e < n; e++) {
    const key = (rgb[3 * e] << 16) | (rgb[3 * e + 1] << 8) | rgb[3 * e + 2];
    let style = cache.get(key);
    if (style === undefined) {
      style = `rgb(${rgb[3 * e]},${rgb[3 * e + 1]},${rgb[3 * e + 2]})`;
      cache.set(key, style);
    }
    out[e] = style;
  }
  return out;
}

/**
 * Bars of a stack-distance histogram: bins 0…max (counts[d] accesses at distance d) plus one
 * "cold" bar, in a box of `width`×`height` px. A bar is a miss when d ≥ `capacity` (lines), a hit
 * below, and cold bars always miss. Returns [{x, y, w, h, kind: "hit"|"miss"|"cold", bin, count}].
 */
export function histogramBars(counts, cold, capacity, width, height) {
  const bins = counts.length + 1;
  const peak = histogramPeak(counts, cold);
  const slot = width / bins;
  const w = Math.max(1, slot * 0.8);
  const bars = [];
  const push = (k, count, kind, bin) => {
    const h = (count / peak) * height;
    bars.push({ x: k * slot + (slot - w) / 2, y: height - h, w, h, kind, bin, count });
  };
  for (let d = 0; d < counts.length; d++) push(d, counts[d], d >= capacity ? "miss" : "hit", d);
  push(counts.length, cold, "cold", "cold");
  return bars;
}

/** x (px, in the histogram box) of the capacity marker: the left edge of bin `capacity`. */
export function capacityMarkerX(capacity, bins, width) {
  return (Math.min(capacity, bins) * width) / (bins + 1);
}

/** The tallest bar of a histogram (at least 1), without spreading a large array into Math.max. */
export function histogramPeak(counts, cold) {
  let peak = Math.max(1, cold);
  for (let d = 0; d < counts.length; d++) if (counts[d] > peak) peak = counts[d];
  return peak;
}

/**
 * Where the histogram's parts go in a canvas of `width`×`height` CSS px: the title row on top, the
 * capacity label's row under it (above the plot area, so the label never covers a bar), the plot
 * area, then the x-axis tick labels and its title.
 */
export function histogramLayout(width, height) {
  const left = 44;
  const right = 10;
  const title = { y: 2, h: 13 };
  const label = { y: 18, h: 13 };
  const top = label.y + label.h + 4;
  const bottom = 30; // tick labels and the axis title
  return {
    left, top, right, title, label,
    width: Math.max(10, width - left - right),
    height: Math.max(10, height - top - bottom),
    ticksY: Math.max(10, height - top - bottom) + top + 4,
    axisTitleY: height - 12,
  };
}

/**
 * x-axis ticks of a histogram of `bins` distances (0…bins−1) plus its "cold" bar, `plotW` px wide:
 * nice integer distances (js/shared/ticks.js) at their bins' centres, and "cold" under its own bar, apart
 * from the numbers. A number whose label would touch the next one or the "cold" label is left out.
 * `measure(text)` gives a label's width in px. Returns [{x, label, kind: "distance"|"cold", value}].
 */
export function histogramTicks(bins, plotW, measure, gap = 6) {
  const slot = plotW / (bins + 1);
  const cold = { x: bins * slot + slot / 2, label: "cold", kind: "cold", value: null };
  const coldLeft = cold.x - measure(cold.label) / 2;
  const ticks = [];
  if (bins > 0) {
    const last = bins - 1;
    const nice = niceTicks(0, last, tickCountFor(bins * slot, 56));
    // distances are whole lines: a step below one line would label every bin
    const values = nice.step >= 1 ? nice.values : Array.from({ length: last + 1 }, (_, d) => d);
    let right = -Infinity;
    for (const d of values) {
      if (!Number.isInteger(d)) continue;
      const label = d.toLocaleString("en-US");
      const x = d * slot + slot / 2;
      const half = measure(label) / 2;
      if (x - half < right + gap || x + half > coldLeft - gap) continue;
      ticks.push({ x, label, kind: "distance", value: d });
      right = x + half;
    }
  }
  ticks.push(cold);
  return ticks;
}

/**
 * The capacity label's box {x, y, w, h} beside the marker at `markerX` in the label row (both in
 * canvas px): right of the marker, or left of it when it would leave the canvas, kept inside it.
 */
export function capacityLabelBox(markerX, textWidth, layout, canvasWidth, pad = 3) {
  const w = textWidth + 2 * pad;
  let x = markerX + 3;
  if (x + w > canvasWidth - 1) x = markerX - 3 - w;
  x = Math.max(1, Math.min(x, canvasWidth - 1 - w));
  return { x, y: layout.label.y, w, h: layout.label.h };
}

/** Whether two boxes {x, y, w, h} share any area. */
export function boxesOverlap(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
