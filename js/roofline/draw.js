// The roofline on a canvas: log-log axes, roofs (one per shown memory level), ceilings, ridges,
// phase points (area ∝ share of the makespan), the schedule's ◆. Every number comes from the
// kernel's `geometry` (campaign_widget/model/roofline.py, roofline_geometry); this file only maps those
// numbers to pixels and picks colours. No model is computed here.
import { decodeArray } from "../shared/codecs.js";
import { formatNumber, formatSI } from "../shared/format.js";
import { fillTitle, fillVertical, themeFont as font } from "../shared/plot-text.js";
import { linearScale } from "../shared/scale.js";

export const MARGIN = { top: 30, right: 20, bottom: 46, left: 64 };
const MIN_AREA = 30; // px², the smallest point (as the bqplot view's)
const MAX_AREA = 900; // px², a phase taking the whole makespan
const HOVER_SLACK_PX = 3;

/** The synced `geometry` decoded: typed arrays and the JSON values beside them. */
export function readGeometry(raw) {
  const g = raw ?? {};
  const arr = (key) => decodeArray(g[key]) ?? new Float64Array(0);
  const levels = g.levels ?? [];
  return {
    roofX: arr("roof_x"), roofY: arr("roof_y"), ridgeX: arr("ridge_x"),
    phaseX: arr("phase_x"), phaseY: arr("phase_y"), share: arr("share"),
    levelX: arr("level_x"), levelY: arr("level_y"),
    xRange: g.x_range ?? [0.1, 10], yRange: g.y_range ?? [0.1, 10],
    xTicks: g.x_ticks ?? [], yTicks: g.y_ticks ?? [],
    peak: Number(g.peak_compute ?? 1), levels, hierarchical: Boolean(g.hierarchical),
    ceilings: g.ceilings ?? [], aggregate: g.aggregate ?? [NaN, NaN],
  };
}

/** Log-log scales from the geometry's ranges onto the plot box of a `width` × `height` figure. */
export function plotScales(geometry, width, height) {
  const plot = { left: MARGIN.left, right: width - MARGIN.right, top: MARGIN.top, bottom: height - MARGIN.bottom };
  const lx = linearScale(Math.log10(geometry.xRange[0]), Math.log10(geometry.xRange[1]), plot.left, plot.right);
  const ly = linearScale(Math.log10(geometry.yRange[0]), Math.log10(geometry.yRange[1]), plot.bottom, plot.top);
  return { plot, x: (v) => lx(Math.log10(v)), y: (v) => ly(Math.log10(v)) };
}

/** A point's radius in px for its share of the makespan (area MIN_AREA … MAX_AREA px²). */
export function pointRadius(share) {
  const s = Number.isFinite(share) ? Math.min(1, Math.max(MIN_AREA / MAX_AREA, share)) : MIN_AREA / MAX_AREA;
  return Math.sqrt((s * MAX_AREA) / Math.PI);
}

/** Each drawn point: {phase, level (index, -1 on one level), x, y (data), r (px)}. */
export function drawnPoints(geometry, shownLevels) {
  const points = [];
  const n = geometry.share.length;
  if (!geometry.hierarchical) {
    for (let i = 0; i < n; i++) {
      const x = geometry.phaseX[i];
      const y = geometry.phaseY[i];
      if (Number.isFinite(x) && Number.isFinite(y)) points.push({ phase: i, level: -1, x, y, r: pointRadius(geometry.share[i]) });
    }
    return points;
  }
  const L = geometry.levels.length;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < L; k++) {
      if (!shownLevels.has(geometry.levels[k])) continue;
      const x = geometry.levelX[i * L + k];
      const y = geometry.levelY[i];
      if (Number.isFinite(x) && Number.isFinite(y)) points.push({ phase: i, level: k, x, y, r: pointRadius(geometry.share[i]) });
    }
  }
  return points;
}

/** The phase of the point under (px, py), the nearest if several, or null. */
export function hitPoint(points, scales, px, py) {
  let best = null;
  let bestDistance = Infinity;
  for (const p of points) {
    const d = Math.hypot(scales.x(p.x) - px, scales.y(p.y) - py);
    if (d <= p.r + HOVER_SLACK_PX && d < bestDistance) {
      best = p.phase;
      bestDistance = d;
    }
  }
  return best;
}

// Marker shape per memory level from the farthest (a circle) inwards, as the bqplot view's.
const SHAPES = ["circle", "square", "triangle-up", "triangle-down", "cross"];
export const SHAPE_GLYPHS = { circle: "●", square: "■", "triangle-up": "▲", "triangle-down": "▼", cross: "✚" };

/** The marker of level `k` (nearest first) of `count` levels. */
export function levelShape(k, count) {
  return SHAPES[(((count - 1 - k) % SHAPES.length) + SHAPES.length) % SHAPES.length];
}

function marker(ctx, shape, cx, cy, r) {
  ctx.beginPath();
  if (shape === "square") ctx.rect(cx - r * 0.886, cy - r * 0.886, r * 1.772, r * 1.772);
  else if (shape === "triangle-up" || shape === "triangle-down") {
    const s = shape === "triangle-up" ? 1 : -1;
    ctx.moveTo(cx, cy - s * r * 1.2);
    ctx.lineTo(cx + r * 1.1, cy + s * r * 0.7);
    ctx.lineTo(cx - r * 1.1, cy + s * r * 0.7);
    ctx.closePath();
  } else if (shape === "cross") {
    const a = r * 0.4;
    ctx.moveTo(cx - a, cy - r); ctx.lineTo(cx + a, cy - r); ctx.lineTo(cx + a, cy - a); ctx.lineTo(cx + r, cy - a);
    ctx.lineTo(cx + r, cy + a); ctx.lineTo(cx + a, cy + a); ctx.lineTo(cx + a, cy + r); ctx.lineTo(cx - a, cy + r);
    ctx.lineTo(cx - a, cy + a); ctx.lineTo(cx - r, cy + a); ctx.lineTo(cx - r, cy - a); ctx.lineTo(cx - a, cy - a);
    ctx.closePath();
  } else ctx.arc(cx, cy, r, 0, 2 * Math.PI);
}

function polyline(ctx, xs, ys, scales) {
  ctx.beginPath();
  for (let j = 0; j < xs.length; j++) {
    const px = scales.x(xs[j]);
    const py = scales.y(ys[j]);
    if (j === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  }
  ctx.stroke();
}

/**
 * Draw the roofline into `ctx` (CSS px): `state` = {geometry, colors, units, title, shownLevels (Set),
 * hovered (phase or null)}, `theme` = theme.json colours. Returns {scales, points}.
 */
export function drawRoofline(ctx, width, height, state, theme) {
  const { geometry: g, colors, units, shownLevels, hovered } = state;
  const scales = plotScales(g, width, height);
  const { plot } = scales;
  ctx.save();
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, width, height);
  // grid and ticks (the kernel's decades)
  ctx.font = font(theme);
  ctx.lineWidth = 1;
  ctx.fillStyle = theme.mutedText;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const v of g.yTicks) {
    const py = scales.y(v);
    ctx.strokeStyle = theme.grid;
    ctx.beginPath(); ctx.moveTo(plot.left, py); ctx.lineTo(plot.right, py); ctx.stroke();
    ctx.fillText(formatSI(v, ""), plot.left - 6, py);
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const v of g.xTicks) {
    const px = scales.x(v);
    ctx.strokeStyle = theme.axis;
    ctx.beginPath(); ctx.moveTo(px, plot.bottom); ctx.lineTo(px, plot.bottom + 4); ctx.stroke();
    ctx.fillText(formatNumber(v, 3), px, plot.bottom + 6);
  }
  ctx.strokeStyle = theme.axis;
  ctx.strokeRect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
  ctx.fillStyle = theme.text;
  // the x title comes from Python (campaign_widget.figures.roofline.x_axis_label: it says what point areas mean)
  ctx.fillText(units.x_label ?? `operational intensity (${units.intensity ?? ""})`, (plot.left + plot.right) / 2, plot.bottom + 24);
  fillVertical(ctx, `attainable (${units.compute ?? ""})`, 14, (plot.top + plot.bottom) / 2);
  fillTitle(ctx, state.title, plot, theme);
  ctx.beginPath();
  ctx.rect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
  ctx.clip();
  // ceilings: dashed, under the roofs
  ctx.setLineDash([5, 4]);
  ctx.strokeStyle = theme.capacity;
  ctx.lineWidth = 1.5;
  ctx.font = font(theme);
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  for (const c of g.ceilings) {
    polyline(ctx, c.x, c.y, scales);
    ctx.fillStyle = theme.mutedText;
    ctx.fillText(c.name, scales.x(c.x[2] / 3), scales.y(c.y[2]) - 3);
  }
  ctx.setLineDash([]);
  // roofs, ridges and their labels
  const roofs = g.ridgeX.length;
  ctx.strokeStyle = theme.text;
  ctx.fillStyle = theme.text;
  ctx.lineWidth = 2;
  let previousLabel = null;
  for (let k = 0; k < roofs; k++) {
    if (g.hierarchical && !shownLevels.has(g.levels[k])) continue;
    polyline(ctx, g.roofX.subarray(3 * k, 3 * k + 3), g.roofY.subarray(3 * k, 3 * k + 3), scales);
    const rx = scales.x(g.ridgeX[k]);
    const ry = scales.y(g.peak);
    ctx.beginPath(); ctx.arc(rx, ry, 3.5, 0, 2 * Math.PI); ctx.fill();
    const label = g.hierarchical ? g.levels[k] : `ridge ${formatNumber(g.ridgeX[k], 3)} ${units.intensity ?? ""}`;
    // a name whose ridge is near the previous one's goes a row higher
    const high = previousLabel !== null && !previousLabel.high && Math.abs(rx - previousLabel.x) < 40;
    ctx.fillText(label, rx, ry - (high ? 19 : 6));
    previousLabel = { x: rx, high };
  }
  const points = drawnPoints(g, shownLevels);
  // the hierarchy: one thin line per phase through its points, in the phase's colour
  if (g.hierarchical) {
    const byPhase = new Map();
    for (const p of points) {
      if (!byPhase.has(p.phase)) byPhase.set(p.phase, []);
      byPhase.get(p.phase).push(p);
    }
    ctx.lineWidth = 1.2;
    for (const [phase, list] of byPhase) {
      if (list.length < 2) continue;
      ctx.globalAlpha = hovered === null || hovered === phase ? 1 : 0.3;
      ctx.strokeStyle = colors[phase] ?? theme.capacity;
      list.sort((a, b) => a.x - b.x);
      polyline(ctx, list.map((p) => p.x), list.map((p) => p.y), scales);
    }
    ctx.globalAlpha = 1;
  }
  // points: the hovered phase's on top, outlined
  const order = [...points].sort((a, b) => (a.phase === hovered) - (b.phase === hovered) || b.r - a.r);
  for (const p of order) {
    const shape = g.hierarchical ? levelShape(p.level, g.levels.length) : "circle";
    const on = hovered === p.phase;
    ctx.globalAlpha = hovered === null || on ? 1 : 0.35;
    marker(ctx, shape, scales.x(p.x), scales.y(p.y), p.r);
    ctx.fillStyle = colors[p.phase] ?? theme.capacity;
    ctx.fill();
    ctx.lineWidth = on ? 3 : 0.8;
    ctx.strokeStyle = on ? theme.highlight : "#222222";
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  // the schedule's point
  const [ax, ay] = g.aggregate;
  if (Number.isFinite(ax) && Number.isFinite(ay)) {
    const cx = scales.x(ax);
    const cy = scales.y(ay);
    const r = 6.5;
    ctx.beginPath();
    ctx.moveTo(cx, cy - r); ctx.lineTo(cx + r, cy); ctx.lineTo(cx, cy + r); ctx.lineTo(cx - r, cy);
    ctx.closePath();
    ctx.fillStyle = theme.text;
    ctx.fill();
  }
  ctx.restore();
  return { scales, points };
}
