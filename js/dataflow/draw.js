// Drawing the dataflow graph on a canvas, with level of detail: labels, arrows, curves and small
// edges give way as the view zooms out. Positions, colours and widths come from Python as they are.
import { parseHex } from "../shared/color.js";
import { formatSI } from "../shared/format.js";
import { visibleWorld } from "./camera.js";
import { EDGE_FONT_PX, edgeLabelSpots, nodeLabel, Occupancy, placeLabel, textWidth } from "./labels.js";
import { edgePoints, segmentControls } from "./model.js";

export const LOD = {
  labels: 0.2, // node names and edge bytes (where they fit) at or above this zoom
  curves: 0.2, // curved edges, arrowheads, outlines and ellipses at or above this zoom
  someEdges: 0.06, // below `curves`: edges with rank >= 0.5 only; below this: rank >= 0.85
};
export const MAX_LABELS = 600;
const EDGE_LABEL_TRIES = 400; // the heaviest edges in view that an edge label is tried for, per frame
const FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
const PHASE_OUTLINE = "#3c4043";
const TENSOR_OUTLINE = "#7d8a97";
const HIGHLIGHT = "#111111";
const SELECTED = "#1a56db";
export const LEGEND_HEIGHT = 54;
export const LABEL_BOX = "rgba(255, 255, 255, 0.85)"; // behind a predicted edge label
export const PREDICTED_TEXT = "#1f3f8f"; // a predicted edge label
const NODE_TEXT = "#1f1f1f"; // names sit on the nodes' own (light) fills, in either theme

/**
 * The colours drawn on the canvas itself (not on a node) from the view's theme (js/shared/page-theme.js):
 * background, text, muted text, axis and the highlight ring; light defaults.
 */
export function canvasLook(theme = {}) {
  return {
    background: theme.background ?? "#ffffff",
    text: theme.text ?? "#222222",
    muted: theme.mutedText ?? "#555555",
    axis: theme.axis ?? "#333333",
    highlight: theme.highlight ?? HIGHLIGHT,
  };
}

/** [r, g, b] of a CSS colour, as the context reads it (white when it cannot be read). */
function rgbOf(ctx, colour) {
  const before = ctx.fillStyle;
  ctx.fillStyle = colour;
  const read = String(ctx.fillStyle);
  ctx.fillStyle = before;
  if (/^#[0-9a-f]{6}$/i.test(read)) return parseHex(read);
  const m = read.match(/^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [255, 255, 255];
}

/**
 * The text on edge e (as campaign_widget.figures.dataflow.edge_label): the bytes it moves ("4.19 MB"), or where
 * its phase's traffic is predicted by a cache model the logical and the predicted bytes side by side
 * ("4.19 MB → 1.05 MB predicted").
 */
export function edgeLabel(style, e, unit = "B") {
  const predicted = style.edgePredictedBytes?.[e];
  if (Number.isFinite(predicted)) return `${formatSI(style.edgeLogicalBytes[e], unit)} → ${formatSI(predicted, unit)} predicted`;
  return formatSI(style.edgeBytes[e], unit);
}

/** Node label size: 12 px when zoomed in, down to 8 px at the labels' level of detail. */
export function labelFontPx(k) {
  return Math.max(8, Math.min(12, Math.round(28 * k)));
}

/** The font size of a name in a node `hPx` tall at zoom k: labelFontPx, no taller than the box holds. */
function nodeFontPx(k, hPx, tensor) {
  return Math.min(labelFontPx(k), Math.floor(hPx * (tensor ? 0.62 : 0.75)));
}

const pictures = new WeakMap(); // context → its ImageData for rasterNodes

/** Below this zoom nodes are smaller than a few pixels: they are written straight into pixels. */
export const RASTER_BELOW = 0.02;

/**
 * Write every node in view as a small block of its colour into a fresh picture of the area (device
 * px) in the `background` colour, with putImageData: one pass over the nodes, no path building.
 * `colour(group)` may override a batch's colour. Returns how many were written.
 */
export function rasterNodes(ctx, graph, style, area, camera, ratio, { background = "#ffffff", colour = (group) => group.css, groups = style.farGroups ?? style.nodeGroups } = {}) {
  const W = Math.max(1, Math.round(area.width * ratio));
  const H = Math.max(1, Math.round(area.height * ratio));
  let image = pictures.get(ctx);
  if (!image || image.width !== W || image.height !== H) {
    image = ctx.createImageData(W, H); // kept for the next frame: no 10 MB allocation per pan step
    pictures.set(ctx, image);
  }
  const pixels = new Uint32Array(image.data.buffer);
  const [br, bg, bb] = rgbOf(ctx, background);
  pixels.fill((0xff000000 | (bb << 16) | (bg << 8) | br) >>> 0);
  const { k, tx, ty } = camera;
  let written = 0;
  for (const group of groups) {
    const css = colour(group);
    const r = parseInt(css.slice(1, 3), 16);
    const g = parseInt(css.slice(3, 5), 16);
    const b = parseInt(css.slice(5, 7), 16);
    const packed = (0xff000000 | (b << 16) | (g << 8) | r) >>> 0; // RGBA bytes, little-endian
    for (const i of group.indices) {
      const cx = (graph.x[i] * k + tx) * ratio;
      const cy = (graph.y[i] * k + ty) * ratio;
      const hw = Math.max(1, Math.round((graph.w[i] * k * ratio) / 2));
      const hh = Math.max(1, Math.round((graph.h[i] * k * ratio) / 2));
      const x0 = Math.max(0, Math.round(cx) - hw);
      const x1 = Math.min(W, Math.round(cx) + hw);
      const y0 = Math.max(0, Math.round(cy) - hh);
      const y1 = Math.min(H, Math.round(cy) + hh);
      if (x0 >= x1 || y0 >= y1) continue;
      for (let y = y0; y < y1; y++) pixels.fill(packed, y * W + x0, y * W + x1);
      written++;
    }
  }
  ctx.putImageData(image, Math.round(area.left * ratio), Math.round(area.top * ratio));
  return written;
}

/** The smallest edge rank drawn at zoom k ("small edges give way"). */
export function minEdgeRank(k) {
  if (k >= LOD.curves) return 0;
  if (k >= LOD.someEdges) return 0.5;
  return 0.85;
}

/** Whether the edge is drawn at zoom k (edges touching the highlighted phase always are). */
export function edgeShown(graph, style, e, k, highlight = -1) {
  if (style.edgeRank[e] >= minEdgeRank(k)) return true;
  return highlight >= 0 && (graph.src[e] === highlight || graph.dst[e] === highlight);
}

/** Trace edge e's points (world → screen via sx, sy) into the current path: curves or straight lines. */
export function traceEdge(ctx, points, sx, sy, curved) {
  ctx.moveTo(sx(points[0]), sy(points[1]));
  for (let k = 2; k < points.length; k += 2) {
    const [ax, ay, bx, by] = [points[k - 2], points[k - 1], points[k], points[k + 1]];
    if (curved) {
      const c = segmentControls(ax, ay, bx, by);
      ctx.bezierCurveTo(sx(c[0]), sy(c[1]), sx(c[2]), sy(c[3]), sx(bx), sy(by));
    } else {
      ctx.lineTo(sx(bx), sy(by));
    }
  }
}

/**
 * Draw the graph into the plot area { left, top, width, height } of `ctx` (already scaled to CSS
 * px). `view`: { camera, highlight (phase index or -1), selected (-1), hoverNode (-1), hoverEdge (-1) }.
 * Returns counts { nodes, edges, labels, lod, drawn }, `drawn` the labels written: [{ kind ("node" |
 * "edge"), index, text, box: [x0, y0, x1, y1] (CSS px of the context) }].
 */
export function drawGraph(ctx, graph, style, names, area, view) {
  const { camera } = view;
  const { k } = camera;
  const look = canvasLook(view.theme);
  const [wx0, wy0, wx1, wy1] = visibleWorld(camera, area.width, area.height);
  const highlight = view.highlight ?? -1;
  const detailed = k >= LOD.curves;
  const counts = { nodes: 0, edges: 0, labels: 0, lod: detailed ? (k >= LOD.labels ? 0 : 1) : k >= LOD.someEdges ? 2 : 3, drawn: [] };
  const sx = (x) => area.left + x * k + camera.tx;
  const sy = (y) => area.top + y * k + camera.ty;

  const raster = k < RASTER_BELOW && typeof ctx.createImageData === "function" && typeof ctx.putImageData === "function";
  if (raster) counts.nodes = rasterNodes(ctx, graph, style, area, camera, view.ratio ?? 1, { background: look.background });
  ctx.save();
  ctx.beginPath();
  ctx.rect(area.left, area.top, area.width, area.height);
  ctx.clip();
  if (!raster) {
    ctx.fillStyle = look.background;
    ctx.fillRect(area.left, area.top, area.width, area.height);
  }

  // Edges, one stroke per colour and dash; arrowheads filled in the same colour.
  const { x, y, w, h } = graph;
  const rank = minEdgeRank(k);
  const inView = []; // edges drawn that carry bytes: the candidates for a label
  const labelled = k >= LOD.labels;
  for (const group of style.edgeGroups) {
    const dashed = group.extra === 1;
    const order = group.extra === 2;
    ctx.beginPath();
    const heads = [];
    let widthSum = 0;
    let drawn = 0;
    for (const e of group.indices) {
      if (style.edgeRank[e] < rank && !(highlight >= 0 && (graph.src[e] === highlight || graph.dst[e] === highlight))) continue;
      const box = graph.edgeBox;
      if (box[4 * e + 2] < wx0 || box[4 * e] > wx1 || box[4 * e + 3] < wy0 || box[4 * e + 1] > wy1) continue;
      // zoomed out, an edge shorter than a pixel both ways is not drawn (its nodes' pixels show it)
      if (!detailed && (box[4 * e + 2] - box[4 * e]) * k < 1 && (box[4 * e + 3] - box[4 * e + 1]) * k < 1) continue;
      const points = edgePoints(graph, e);
      traceEdge(ctx, points, sx, sy, detailed);
      if (labelled && !order) inView.push(e);
      if (detailed) heads.push(sx(points[points.length - 2]), sy(points[points.length - 1]));
      widthSum += style.edgeWidth[e];
      drawn++;
    }
    if (!drawn) continue;
    counts.edges += drawn;
    ctx.strokeStyle = group.css;
    ctx.lineWidth = Math.max(0.5, (widthSum / drawn) * Math.min(1, Math.max(k, 0.25)));
    ctx.setLineDash(dashed ? [6, 4] : order ? [2, 3] : []);
    ctx.stroke();
    ctx.setLineDash([]);
    if (heads.length) {
      const size = Math.max(4, 7 * Math.min(1, k));
      ctx.beginPath();
      for (let i = 0; i < heads.length; i += 2) {
        ctx.moveTo(heads[i], heads[i + 1]);
        ctx.lineTo(heads[i] - size, heads[i + 1] - size * 0.55);
        ctx.lineTo(heads[i] - size, heads[i + 1] + size * 0.55);
        ctx.closePath();
      }
      ctx.fillStyle = group.css;
      ctx.fill();
    }
  }

  // Nodes, one fill per colour; phases are boxes, tensors ellipses (boxes when zoomed out).
  const visible = [];
  for (const group of raster ? [] : style.nodeGroups) {
    const tensor = group.extra === 1;
    ctx.beginPath();
    let drawn = 0;
    for (const i of group.indices) {
      if (x[i] + w[i] / 2 < wx0 || x[i] - w[i] / 2 > wx1 || y[i] + h[i] / 2 < wy0 || y[i] - h[i] / 2 > wy1) continue;
      const left = sx(x[i] - w[i] / 2);
      const top = sy(y[i] - h[i] / 2);
      const width = Math.max(1, w[i] * k);
      const height = Math.max(1, h[i] * k);
      if (tensor && detailed) {
        ctx.moveTo(left + width, top + height / 2);
        ctx.ellipse(left + width / 2, top + height / 2, width / 2, height / 2, 0, 0, 2 * Math.PI);
      } else {
        ctx.rect(left, top, width, height);
      }
      if (detailed) visible.push(i);
      drawn++;
    }
    if (!drawn) continue;
    counts.nodes += drawn;
    ctx.fillStyle = group.css;
    ctx.fill();
  }
  if (detailed) {
    // Outlines: phases dark; tensors grey, dashed when fused (kept on chip).
    for (const [wanted, colour, dash] of [[0, PHASE_OUTLINE, []], [1, TENSOR_OUTLINE, []], [2, TENSOR_OUTLINE, [4, 3]]]) {
      ctx.beginPath();
      for (const i of visible) {
        const code = graph.kind[i] === 0 ? 0 : graph.fusedTensor[i] ? 2 : 1;
        if (code !== wanted) continue;
        const left = sx(x[i] - w[i] / 2);
        const top = sy(y[i] - h[i] / 2);
        if (code === 0) ctx.rect(left, top, w[i] * k, h[i] * k);
        else {
          ctx.moveTo(left + w[i] * k, top + (h[i] * k) / 2);
          ctx.ellipse(left + (w[i] * k) / 2, top + (h[i] * k) / 2, (w[i] * k) / 2, (h[i] * k) / 2, 0, 0, 2 * Math.PI);
        }
      }
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1;
      ctx.setLineDash(dash);
      ctx.stroke();
    }
    ctx.setLineDash([]);
  }

  // Highlight rings: the linked hover, then the selection.
  for (const [phase, colour, width] of [[highlight, look.highlight, 3], [view.selected ?? -1, SELECTED, 3.5]]) {
    if (!(phase >= 0 && phase < graph.nPhases)) continue;
    const pad = 3;
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.strokeRect(sx(x[phase] - w[phase] / 2) - pad, sy(y[phase] - h[phase] / 2) - pad,
      Math.max(2, w[phase] * k) + 2 * pad, Math.max(2, h[phase] * k) + 2 * pad);
  }
  if (view.hoverEdge >= 0 && view.hoverEdge < graph.nEdges) {
    ctx.beginPath();
    traceEdge(ctx, edgePoints(graph, view.hoverEdge), sx, sy, true);
    ctx.strokeStyle = look.highlight;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }

  // Labels: names inside nodes, bytes on edges where they fit; text drawn with fillText only.
  if (labelled) drawLabels(ctx, graph, style, names, area, view, visible, inView, counts, look);
  ctx.restore();
  return counts;
}

/**
 * Each visible node's name inside its box (shortened in the middle to what the box holds), then the
 * bytes of the heaviest edges in view, each where it hits no node and no other label and stays
 * inside the plot area; pushed to counts.drawn.
 */
function drawLabels(ctx, graph, style, names, area, view, visible, inView, counts, look) {
  const { k } = view.camera;
  const { x, y, w, h } = graph;
  const sx = (wx) => area.left + wx * k + view.camera.tx;
  const sy = (wy) => area.top + wy * k + view.camera.ty;
  const taken = new Occupancy();
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillStyle = NODE_TEXT;
  for (const i of visible) {
    const tensor = graph.kind[i] === 1;
    const left = sx(x[i] - w[i] / 2);
    const top = sy(y[i] - h[i] / 2);
    taken.add([left, top, left + w[i] * k, top + h[i] * k], tensor);
    if (counts.labels >= MAX_LABELS) continue;
    const largest = nodeFontPx(k, h[i] * k, tensor);
    const fitted = nodeLabel(ctx, names[i], tensor, w[i] * k, h[i] * k, largest, (px) => `${px}px ${FONT}`);
    if (fitted === null) continue;
    const { text, fontPx } = fitted;
    const cx = sx(x[i]);
    const cy = sy(y[i]);
    ctx.fillText(text, cx, cy);
    const half = textWidth(ctx, text) / 2;
    counts.drawn.push({ kind: "node", index: i, text, box: [cx - half, cy - fontPx / 2, cx + half, cy + fontPx / 2] });
    counts.labels++;
  }
  if (visible.length > MAX_LABELS) return; // too many nodes in view for edge labels to find room
  ctx.font = `${EDGE_FONT_PX}px ${FONT}`;
  const order = labelOrder(style, inView);
  for (let r = 0; r < order.length && counts.labels < MAX_LABELS && r < EDGE_LABEL_TRIES; r++) {
    const e = order[r];
    const p = edgePoints(graph, e);
    for (let j = 0; j < p.length; j += 2) {
      p[j] = sx(p[j]);
      p[j + 1] = sy(p[j + 1]);
    }
    const a = graph.src[e];
    const b = graph.dst[e];
    const clear = (Math.max(h[a], h[b]) * k) / 2;
    const text = edgeLabel(style, e);
    const predicted = Number.isFinite(style.edgePredictedBytes?.[e]);
    const at = placeLabel(edgeLabelSpots(p, clear), textWidth(ctx, text) + 6, area, taken);
    if (!at) continue;
    taken.add(at);
    const cx = (at[0] + at[2]) / 2;
    const cy = (at[1] + at[3]) / 2;
    if (predicted) {
      // on a pale box, so it reads over edges and outlines
      ctx.fillStyle = LABEL_BOX;
      ctx.fillRect(at[0], at[1], at[2] - at[0], at[3] - at[1]);
      ctx.fillStyle = PREDICTED_TEXT;
    } else {
      ctx.fillStyle = look.muted;
    }
    ctx.fillText(text, cx, cy);
    counts.drawn.push({ kind: "edge", index: e, text, box: at });
    counts.labels++;
  }
}

/** `edges` heaviest first (`edgeBytes`, ties by index): who gets a label first. */
export function labelOrder(style, edges) {
  const bytes = (e) => (Number.isFinite(style.edgeBytes[e]) ? style.edgeBytes[e] : -1);
  return Int32Array.from(edges).sort((a, b) => bytes(b) - bytes(a) || a - b);
}

/** The colour bar (docs/data-movement.md#palettes: method, centre or bucket edges, unit) across the top strip. */
export function drawLegend(ctx, legend, area, theme) {
  const look = canvasLook(theme);
  const stops = Array.isArray(legend?.stops) ? legend.stops : [];
  ctx.save();
  ctx.fillStyle = look.background;
  ctx.fillRect(area.left, area.top, area.width, LEGEND_HEIGHT);
  ctx.font = "12px system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
  ctx.textAlign = "left";
  ctx.textBaseline = "top";
  ctx.fillStyle = look.text;
  ctx.fillText(String(legend?.title ?? ""), area.left + 8, area.top + 4);
  const barLeft = area.left + 8;
  const barTop = area.top + 22;
  const barWidth = Math.min(320, Math.max(120, area.width - 220));
  const barHeight = 10;
  if (stops.length) {
    const step = barWidth / stops.length;
    for (let i = 0; i < stops.length; i++) {
      ctx.fillStyle = String(stops[i]);
      ctx.fillRect(barLeft + i * step, barTop, Math.ceil(step) + 0.5, barHeight);
    }
  }
  ctx.strokeStyle = look.muted;
  ctx.lineWidth = 1;
  ctx.strokeRect(barLeft, barTop, barWidth, barHeight);
  ctx.font = "10px system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
  ctx.fillStyle = look.axis;
  const ticks = Array.isArray(legend?.ticks) ? legend.ticks : [];
  ticks.forEach(([s, label], i) => {
    const tx = barLeft + Number(s) * barWidth;
    ctx.textAlign = i === 0 && Number(s) <= 0.02 ? "left" : Number(s) >= 0.98 ? "right" : "center";
    ctx.fillRect(tx - 0.5, barTop + barHeight, 1, 3);
    ctx.fillText(String(label), tx, barTop + barHeight + 4);
  });
  // grey: missing or <= 0, out of the scale
  const missing = Number(legend?.missing ?? 0);
  const gx = barLeft + barWidth + 18;
  ctx.fillStyle = String(legend?.nan_color ?? "#c8c8c8");
  ctx.fillRect(gx, barTop, 14, barHeight);
  ctx.strokeRect(gx, barTop, 14, barHeight);
  ctx.fillStyle = look.axis;
  ctx.textAlign = "left";
  ctx.textBaseline = "top";
  ctx.fillText(`no value or ≤ 0${missing ? ` (${missing})` : ""}`, gx + 20, barTop);
  ctx.restore();
}
