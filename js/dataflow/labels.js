// Where the dataflow view writes text: each node's name inside its box (shortened in the middle by
// the legend rule, js/shared/legend.js, to what the box holds), and the bytes of as many edges as fit,
// heaviest first, each where it overlaps no node, no other label and stays inside the plot.
import { LABEL_MAX_CHARS, shortenMiddle } from "../shared/legend.js";

export const NODE_PAD = 4; // CSS px kept clear between a name and its box's sides
export const EDGE_FONT_PX = 10;
const EDGE_BOX_H = 12; // CSS px: an edge label's box height
const MIN_NAME_CHARS = 3; // fewer characters of a name than this tell nothing: not written

const widths = new Map(); // `${font}|${text}` → measured width, for the frames that follow

/** ctx.measureText(text).width under ctx's current font, remembered per font and text. */
export function textWidth(ctx, text) {
  const key = `${ctx.font}|${text}`;
  let w = widths.get(key);
  if (w === undefined) {
    if (widths.size > 20000) widths.clear();
    w = ctx.measureText(text).width;
    widths.set(key, w);
  }
  return w;
}

/**
 * The width a name may take inside node box `wPx`×`hPx` (CSS px) at `fontPx`: a box less its
 * padding; an ellipse (tensor) its chord at the text's top and bottom. 0 when the text is too tall.
 */
export function labelRoom(tensor, wPx, hPx, fontPx) {
  if (fontPx > hPx - 2) return 0;
  if (!tensor) return Math.max(0, wPx - 2 * NODE_PAD);
  const t = (0.5 * fontPx + 1) / (hPx / 2); // the text's half height, as a fraction of the half axis
  return t >= 1 ? 0 : Math.max(0, wPx * Math.sqrt(1 - t * t) - 2 * NODE_PAD);
}

/**
 * `name` as written in `room` px under ctx's font: whole when it fits, else shortened in the middle
 * (shortenMiddle) to the most characters that fit; null when fewer than MIN_NAME_CHARS would.
 */
export function fitName(ctx, name, room) {
  const full = shortenMiddle(String(name ?? ""), LABEL_MAX_CHARS);
  if (textWidth(ctx, full) <= room) return full;
  const chars = Array.from(full).length;
  let lo = 0; // most characters known to fit
  let hi = chars - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (textWidth(ctx, shortenMiddle(full, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  if (lo - 1 < Math.min(MIN_NAME_CHARS, chars)) return null; // the ellipsis takes one character
  return shortenMiddle(full, lo);
}

export const MIN_FONT_PX = 7; // node names are never written smaller
export const SMALLER = 2; // a name that does not fit whole is tried up to this many px smaller first

/**
 * A node's name as written in its box `wPx`×`hPx` (CSS px): { text, fontPx }, the whole name at the
 * largest size from `largest` down to SMALLER px less that holds it, else shortened in the middle
 * (fitName) at the largest size that holds text; null when none does. `font(px)` names the CSS font;
 * ctx.font is left at the size chosen.
 */
export function nodeLabel(ctx, name, tensor, wPx, hPx, largest, font) {
  const whole = shortenMiddle(String(name ?? ""), LABEL_MAX_CHARS);
  const smallest = Math.max(MIN_FONT_PX, largest - SMALLER);
  for (let px = largest; px >= smallest; px--) {
    const room = labelRoom(tensor, wPx, hPx, px);
    if (room <= 0) continue;
    ctx.font = font(px);
    if (textWidth(ctx, whole) <= room) return { text: whole, fontPx: px };
  }
  for (let px = largest; px >= smallest; px--) {
    const room = labelRoom(tensor, wPx, hPx, px);
    if (room <= 0) continue;
    ctx.font = font(px);
    const text = fitName(ctx, name, room);
    return text === null ? null : { text, fontPx: px };
  }
  return null;
}

/** Boxes [x0, y0, x1, y1] (CSS px) in a uniform grid, to ask quickly whether a new box hits one. */
export class Occupancy {
  constructor(cell = 64) {
    this.cell = cell;
    this.cells = new Map();
  }
  keys(box) {
    const c = this.cell;
    const out = [];
    for (let gx = Math.floor(box[0] / c); gx <= Math.floor(box[2] / c); gx++) {
      for (let gy = Math.floor(box[1] / c); gy <= Math.floor(box[3] / c); gy++) out.push(`${gx},${gy}`);
    }
    return out;
  }
  /** Add a box; `ellipse` true: the box's inscribed ellipse is what is taken. */
  add(box, ellipse = false) {
    const item = { box, ellipse };
    for (const key of this.keys(box)) {
      const list = this.cells.get(key);
      if (list) list.push(item);
      else this.cells.set(key, [item]);
    }
  }
  /** Whether `box` overlaps any box (or ellipse) added. */
  hits(box) {
    for (const key of this.keys(box)) {
      for (const item of this.cells.get(key) ?? []) if (overlaps(box, item)) return true;
    }
    return false;
  }
}

function overlaps(box, { box: b, ellipse }) {
  if (!(box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) return false;
  if (!ellipse) return true;
  // rectangle vs axis-aligned ellipse: scale y so the ellipse is a circle; the rectangle's point
  // nearest the centre is then inside it exactly when they overlap
  const cx = (b[0] + b[2]) / 2;
  const cy = (b[1] + b[3]) / 2;
  const a = (b[2] - b[0]) / 2;
  const r = (b[3] - b[1]) / 2;
  if (a <= 0 || r <= 0) return false;
  const px = Math.min(Math.max(cx, box[0]), box[2]) - cx;
  const py = (Math.min(Math.max(cy, box[1]), box[3]) - cy) * (a / r);
  return px * px + py * py < a * a;
}

/**
 * Where edge labels may go along a polyline of screen points [x0, y0, x1, y1, …]: the middle of its
 * first segment, of its last and of the others, each just above, just below, and above or below
 * the nodes at its ends (`clear` px from the line). [[cx, cy], …] best first.
 */
export function edgeLabelSpots(points, clear) {
  const n = points.length / 2 - 1;
  const segments = [0];
  if (n > 1) segments.push(n - 1);
  for (let s = 1; s < n - 1; s++) segments.push(s);
  const out = [];
  const offsets = [-(EDGE_BOX_H / 2 + 2), EDGE_BOX_H / 2 + 2, -(clear + EDGE_BOX_H / 2 + 2), clear + EDGE_BOX_H / 2 + 2];
  for (const s of segments) {
    const mx = (points[2 * s] + points[2 * s + 2]) / 2;
    const my = (points[2 * s + 1] + points[2 * s + 3]) / 2;
    for (const dy of offsets) out.push([mx, my + dy]);
  }
  return out;
}

/**
 * The first of `spots` where a label `width` px wide goes inside `area` (CSS px: left, top, width,
 * height) without hitting `taken`: its box [x0, y0, x1, y1], or null.
 */
export function placeLabel(spots, width, area, taken) {
  const hw = width / 2;
  const hh = EDGE_BOX_H / 2;
  for (const [cx, cy] of spots) {
    const box = [cx - hw, cy - hh, cx + hw, cy + hh];
    if (box[0] < area.left || box[1] < area.top || box[2] > area.left + area.width || box[3] > area.top + area.height) continue;
    if (taken.hits(box)) continue;
    return box;
  }
  return null;
}
