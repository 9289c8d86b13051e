// The dataflow view's synced state decoded into typed arrays, plus draw batches by colour.
// Nothing here computes the model: positions, colours, widths and values all come from Python.
import { decodeArray } from "../shared/codecs.js";

const EMPTY_BOUNDS = [0, 0, 1, 1];

function typed(raw, key, Typed, n) {
  const value = decodeArray(raw?.[key]);
  if (value && value.length >= n) return value;
  return new Typed(n);
}

/** Per edge, the bytes a cache model predicts (NaN where the phase is not predicted, or not sent). */
function predictedBytes(values, n) {
  const value = decodeArray(values?.edge_predicted_bytes);
  if (value && value.length >= n) return value;
  return new Float64Array(n).fill(NaN);
}

/** Decode the `graph` trait: geometry (CSS px at zoom 1) and structure. */
export function decodeGraph(raw) {
  const graph = decodeGraphArrays(raw);
  graph.edgeBox = edgeBoxes(graph);
  return graph;
}

function decodeGraphArrays(raw) {
  const nNodes = Number.isInteger(raw?.n_nodes) ? raw.n_nodes : 0;
  const nEdges = Number.isInteger(raw?.n_edges) ? raw.n_edges : 0;
  const bounds = Array.isArray(raw?.bounds) && raw.bounds.length === 4 ? raw.bounds.map(Number) : EMPTY_BOUNDS;
  return {
    nNodes, nEdges, nPhases: Number.isInteger(raw?.n_phases) ? raw.n_phases : 0, bounds,
    x: typed(raw, "x", Float32Array, nNodes), y: typed(raw, "y", Float32Array, nNodes),
    w: typed(raw, "w", Float32Array, nNodes), h: typed(raw, "h", Float32Array, nNodes),
    kind: typed(raw, "kind", Uint8Array, nNodes), fusedTensor: typed(raw, "fused_tensor", Uint8Array, nNodes),
    src: typed(raw, "src", Int32Array, nEdges), dst: typed(raw, "dst", Int32Array, nEdges),
    edgeKind: typed(raw, "edge_kind", Uint8Array, nEdges), fused: typed(raw, "fused", Uint8Array, nEdges),
    ...decodeRoutes(raw, nEdges),
  };
}

/** Bends of long edges (one per layer crossed): offsets (nEdges + 1) into routeX / routeY. */
function decodeRoutes(raw, nEdges) {
  const offsets = decodeArray(raw?.route_offsets);
  const routeX = decodeArray(raw?.route_x);
  const routeY = decodeArray(raw?.route_y);
  const ok = offsets && routeX && routeY && offsets.length === nEdges + 1 && offsets[nEdges] <= Math.min(routeX.length, routeY.length);
  return ok ? { routeOffsets: offsets, routeX, routeY } : { routeOffsets: new Int32Array(nEdges + 1), routeX: new Float32Array(0), routeY: new Float32Array(0) };
}

/**
 * The points edge e passes (world): the source's right side, its bends, the target's left side,
 * as a flat [x0, y0, x1, y1, …] array.
 */
export function edgePoints(graph, e) {
  const a = graph.src[e];
  const b = graph.dst[e];
  const lo = graph.routeOffsets[e];
  const hi = graph.routeOffsets[e + 1];
  const out = new Array(4 + 2 * (hi - lo));
  out[0] = graph.x[a] + graph.w[a] / 2;
  out[1] = graph.y[a];
  for (let j = lo, k = 2; j < hi; j++, k += 2) {
    out[k] = graph.routeX[j];
    out[k + 1] = graph.routeY[j];
  }
  out[out.length - 2] = graph.x[b] - graph.w[b] / 2;
  out[out.length - 1] = graph.y[b];
  return out;
}

/** Control points of the curve from (ax, ay) to (bx, by), leaving and arriving horizontally. */
export function segmentControls(ax, ay, bx, by) {
  const dx = Math.max(24, (bx - ax) / 2);
  return [ax + dx, ay, bx - dx, by];
}

/** Per edge [minX, minY, maxX, maxY] over its points, for culling and hit testing. */
export function edgeBoxes(graph) {
  const boxes = new Float64Array(4 * graph.nEdges);
  for (let e = 0; e < graph.nEdges; e++) {
    const p = edgePoints(graph, e);
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (let k = 0; k < p.length; k += 2) {
      x0 = Math.min(x0, p[k]);
      x1 = Math.max(x1, p[k]);
      y0 = Math.min(y0, p[k + 1]);
      y1 = Math.max(y1, p[k + 1]);
    }
    boxes.set([x0, y0, x1, y1], 4 * e);
  }
  return boxes;
}

export function cssColor(rgb, i) {
  const hex = (v) => v.toString(16).padStart(2, "0");
  return `#${hex(rgb[3 * i])}${hex(rgb[3 * i + 1])}${hex(rgb[3 * i + 2])}`;
}

/**
 * Indices grouped by colour (and an extra key, e.g. dashed): [{ css, key, indices: Int32Array }],
 * so a frame sets each fill or stroke style once. `count` elements, colours in `rgb` (n×3 uint8).
 */
export function colorGroups(rgb, count, extraKey = null) {
  const byKey = new Map();
  for (let i = 0; i < count; i++) {
    const key = (((rgb[3 * i] << 16) | (rgb[3 * i + 1] << 8) | rgb[3 * i + 2]) * 4) + (extraKey ? extraKey(i) : 0);
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(i);
  }
  return [...byKey].map(([key, list]) => ({ key, extra: key % 4, css: cssColor(rgb, list[0]), indices: Int32Array.from(list) }));
}

/**
 * Decode the `paint` (colours, severities) and `values` (numbers, edge widths and ranks) traits
 * for a graph, and make the draw batches.
 */
export function decodeStyle(raw, graph, values = raw) {
  const { nNodes, nEdges, nPhases } = graph;
  const style = {
    target: raw?.target === "phases" ? "phases" : "edges",
    overlay: typeof raw?.overlay === "string" ? raw.overlay : "bytes",
    nodeRgb: typed(raw, "node_rgb", Uint8Array, 3 * nNodes),
    edgeRgb: typed(raw, "edge_rgb", Uint8Array, 3 * nEdges),
    edgeRank: typed(values, "edge_rank", Float32Array, nEdges),
    edgeWidth: typed(values, "edge_width", Float32Array, nEdges),
    edgeBytes: typed(values, "edge_bytes", Float64Array, nEdges),
    edgeLogicalBytes: typed(values, "edge_logical_bytes", Float64Array, nEdges),
    edgePredictedBytes: predictedBytes(values, nEdges),
    tensorBytes: typed(values, "tensor_bytes", Float64Array, nNodes),
    s: decodeArray(raw?.s) ?? new Float32Array(0),
    phase: {},
  };
  for (const key of ["ops", "bytes", "intensity", "duration", "efficiency"]) {
    style.phase[key] = typed(values, `phase_${key}`, Float64Array, nPhases);
  }
  style.nodeGroups = colorGroups(style.nodeRgb, nNodes, (i) => (graph.kind[i] === 1 ? 1 : 0));
  // Seen from far out: the hottest colour each node touches, batches in increasing severity so the
  // most severe pixels are written last (on top).
  const farRgb = decodeArray(raw?.node_far_rgb);
  const farS = decodeArray(raw?.node_far_s);
  if (farRgb && farRgb.length >= 3 * nNodes) {
    const groups = colorGroups(farRgb, nNodes);
    const severity = (g) => (farS && Number.isFinite(farS[g.indices[0]]) ? farS[g.indices[0]] : -1);
    style.farGroups = groups.sort((a, b) => severity(a) - severity(b));
  } else {
    style.farGroups = style.nodeGroups;
  }
  style.edgeGroups = colorGroups(style.edgeRgb, nEdges, (i) => (graph.fused[i] ? 1 : graph.edgeKind[i] === 2 ? 2 : 0));
  return style;
}
