// Folding the layered layout into bands so that the graph at fit uses the plot's height as well as
// its width. Python lays the graph out left to right in layers (columns); a long chain is far wider
// than tall, so a fit to the width alone leaves it a thin strip with unreadable boxes. The fold cuts
// the columns into consecutive bands and stacks them top to bottom, like lines of text; an edge that
// crosses from one band to the next leaves its band on the right, runs back along the gap below it
// and enters the next band from the left. The number of bands is the one that draws the graph
// largest in the plot. A pure geometric transform of Python's positions: nodes keep their sizes and
// their order within a band; nothing is computed from the model's values.
import { edgeBoxes } from "./model.js";

export const BAND_GAP = 56; // world px between two bands (their return edges run in it)
export const RETURN_OUT = 28; // world px a return edge runs past its band's side
export const MAX_BANDS = 24;
export const FOLD_MAX_NODES = 5000; // larger graphs keep one band (they are read by zooming in)
const PAD = 16; // js/dataflow/camera.js fitCamera's padding
const FULL_SIZE = 1; // a graph that fits at zoom 1 (every name at full size) is not folded

/** Sorted distinct values of a numeric array-like. */
function distinct(values) {
  return Float64Array.from(new Set(Array.from(values, Number))).sort();
}

/** Index of the interval of `cuts` (sorted) that x falls in: the number of cuts ≤ x. */
function bandOf(cuts, x) {
  let lo = 0;
  let hi = cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cuts[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Per column (distinct x of node centres and bends), the extent [minX, maxX, minY, maxY] of what
 * stands in it: node boxes and the bends of long edges.
 */
function columnExtents(graph, columns) {
  const n = columns.length;
  const ext = new Float64Array(4 * n);
  for (let c = 0; c < n; c++) ext.set([Infinity, -Infinity, Infinity, -Infinity], 4 * c);
  const index = new Map(Array.from(columns, (x, c) => [x, c]));
  const add = (x, x0, x1, y0, y1) => {
    const c = 4 * index.get(x);
    ext[c] = Math.min(ext[c], x0);
    ext[c + 1] = Math.max(ext[c + 1], x1);
    ext[c + 2] = Math.min(ext[c + 2], y0);
    ext[c + 3] = Math.max(ext[c + 3], y1);
  };
  for (let i = 0; i < graph.nNodes; i++) {
    const x = graph.x[i];
    add(x, x - graph.w[i] / 2, x + graph.w[i] / 2, graph.y[i] - graph.h[i] / 2, graph.y[i] + graph.h[i] / 2);
  }
  for (let j = 0; j < graph.routeX.length; j++) add(graph.routeX[j], graph.routeX[j], graph.routeX[j], graph.routeY[j], graph.routeY[j]);
  return ext;
}

/**
 * The column indices where bands start for `bands` bands of about equal width: band b starts at
 * the first column whose centre is past b/bands of the span. Strictly increasing; fewer when the
 * columns are too few.
 */
export function bandStarts(columns, bands) {
  const starts = [0];
  const lo = columns[0];
  const span = columns[columns.length - 1] - lo;
  for (let b = 1; b < bands; b++) {
    const target = lo + (span * b) / bands;
    let c = starts[starts.length - 1] + 1;
    while (c < columns.length && columns[c] < target) c++;
    if (c >= columns.length) break;
    starts.push(c);
  }
  return starts;
}

/** Bands for the given starts: per band { x0, x1, y0, y1 } over its columns. */
function bandsFor(ext, starts, nColumns) {
  const out = [];
  for (let b = 0; b < starts.length; b++) {
    const end = b + 1 < starts.length ? starts[b + 1] : nColumns;
    const band = { x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity, first: starts[b], end };
    for (let c = starts[b]; c < end; c++) {
      band.x0 = Math.min(band.x0, ext[4 * c]);
      band.x1 = Math.max(band.x1, ext[4 * c + 1]);
      band.y0 = Math.min(band.y0, ext[4 * c + 2]);
      band.y1 = Math.max(band.y1, ext[4 * c + 3]);
    }
    out.push(band);
  }
  return out;
}

/** The zoom at which `bands` fit a `width`×`height` area (as fitCamera), and the world size. */
function fitOf(bands, width, height) {
  const folded = bands.length > 1;
  let w = 0;
  let h = 0;
  for (const band of bands) {
    w = Math.max(w, band.x1 - band.x0);
    h += band.y1 - band.y0;
  }
  if (folded) {
    w += 2 * RETURN_OUT;
    h += (bands.length - 1) * BAND_GAP;
  }
  const k = Math.min(FULL_SIZE, (width - 2 * PAD) / Math.max(w, 1), (height - 2 * PAD) / Math.max(h, 1));
  return { k, w, h };
}

/**
 * How many bands draw `graph` largest (up to zoom 1) in a `width`×`height` plot: { bands: [{x0,
 * x1, y0, y1, first, end}], columns, k }. One band when folding does not make it larger (by 5% at
 * least) or when it fits at zoom 1 as it is.
 */
export function chooseFold(graph, width, height) {
  if (!graph.nNodes || graph.nNodes > FOLD_MAX_NODES || width <= 2 * PAD || height <= 2 * PAD) {
    return { columns: null, bands: null, k: null };
  }
  const points = new Float64Array(graph.nNodes + graph.routeX.length);
  points.set(graph.x);
  points.set(graph.routeX, graph.nNodes);
  const columns = distinct(points);
  const ext = columnExtents(graph, columns);
  let best = null;
  let previous = "";
  for (let n = 1; n <= Math.min(MAX_BANDS, columns.length); n++) {
    const starts = bandStarts(columns, n);
    const key = starts.join(",");
    if (key === previous) continue;
    previous = key;
    const bands = bandsFor(ext, starts, columns.length);
    const fit = fitOf(bands, width, height);
    if (!best || fit.k > best.k * (best.bands.length === 1 ? 1.05 : 1.01)) best = { bands, k: fit.k, h: fit.h };
    if (fit.k >= FULL_SIZE) break; // full size: more bands would only make it narrower
  }
  return { columns, bands: best.bands, k: best.k, h: best.h };
}

/**
 * `graph` (decodeGraph) folded for a `width`×`height` plot: node centres, bends and bounds moved
 * band by band, return bends added to the edges that cross from a band to the next, `edgeBox`
 * recomputed; `fold` = { bands (count), key }. The graph itself when one band is best.
 */
export function foldGraph(graph, width, height) {
  const { columns, bands, k, h } = chooseFold(graph, width, height);
  if (!bands || bands.length < 2) return { ...graph, fold: { bands: 1, key: "1" } };
  // Where the plot is taller than the folded graph at this zoom, the bands spread apart (up to
  // three gaps' worth) so the graph uses the height it is given.
  const room = (height - 2 * PAD) / k - h;
  const gap = BAND_GAP + Math.min(2 * BAND_GAP, Math.max(0, room / (bands.length - 1)));
  const cuts = bands.slice(1).map((band) => (columns[band.first - 1] + columns[band.first]) / 2);
  const dx = [];
  const dy = [];
  const bottom = [];
  let top = 0;
  for (const band of bands) {
    dx.push(RETURN_OUT - band.x0);
    dy.push(top - band.y0);
    top += band.y1 - band.y0;
    bottom.push(top);
    top += gap;
  }
  const x = new Float32Array(graph.nNodes);
  const y = new Float32Array(graph.nNodes);
  const nodeBand = new Int32Array(graph.nNodes);
  for (let i = 0; i < graph.nNodes; i++) {
    const b = bandOf(cuts, graph.x[i]);
    nodeBand[i] = b;
    x[i] = graph.x[i] + dx[b];
    y[i] = graph.y[i] + dy[b];
  }
  // Edges: each bend moves with its band; where consecutive points are in different bands, the edge
  // turns down past the right side into the gap, runs back left and enters the next band.
  const crossings = new Int32Array(bands.length);
  const each = [];
  for (let e = 0; e < graph.nEdges; e++) {
    const a = graph.src[e];
    const bnd = graph.dst[e];
    const pts = [[graph.x[a] + graph.w[a] / 2, graph.y[a], nodeBand[a]]];
    for (let j = graph.routeOffsets[e]; j < graph.routeOffsets[e + 1]; j++) {
      pts.push([graph.routeX[j], graph.routeY[j], bandOf(cuts, graph.routeX[j])]);
    }
    pts.push([graph.x[bnd] - graph.w[bnd] / 2, graph.y[bnd], nodeBand[bnd]]);
    for (let p = 1; p < pts.length; p++) if (pts[p][2] > pts[p - 1][2]) crossings[pts[p - 1][2]]++;
    each.push(pts);
  }
  const seen = new Int32Array(bands.length);
  const offsets = new Int32Array(graph.nEdges + 1);
  const rx = [];
  const ry = [];
  // Each edge crossing below band b has a lane of its own in the gap (y) and its own place in the
  // margins beside the bands (x) for the runs down and across: edges are not drawn on each other.
  const lane = (b) => {
    const n = crossings[b];
    const spacing = Math.min(12, (gap - 16) / Math.max(1, n));
    const i = seen[b]++;
    return { y: bottom[b] + gap / 2 + (i - (n - 1) / 2) * spacing, side: (i + 1) / (n + 1) };
  };
  for (let e = 0; e < graph.nEdges; e++) {
    const pts = each[e];
    for (let p = 1; p < pts.length; p++) {
      const [, , from] = pts[p - 1];
      const [px, py, to] = pts[p];
      if (to > from) {
        const first = lane(from);
        const last = to - 1 === from ? first : lane(to - 1);
        rx.push(bands[from].x1 - bands[from].x0 + RETURN_OUT * (1 + first.side), RETURN_OUT * (1 - last.side));
        ry.push(first.y, last.y);
      }
      if (p < pts.length - 1) {
        rx.push(px + dx[to]);
        ry.push(py + dy[to]);
      }
    }
    offsets[e + 1] = rx.length;
  }
  const folded = {
    ...graph, x, y, routeOffsets: offsets, routeX: Float32Array.from(rx), routeY: Float32Array.from(ry),
    fold: { bands: bands.length, key: `${bands.map((band) => band.first).join(",")}:${Math.round(gap)}` },
  };
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let i = 0; i < graph.nNodes; i++) {
    x0 = Math.min(x0, x[i] - graph.w[i] / 2);
    x1 = Math.max(x1, x[i] + graph.w[i] / 2);
    y0 = Math.min(y0, y[i] - graph.h[i] / 2);
    y1 = Math.max(y1, y[i] + graph.h[i] / 2);
  }
  for (let j = 0; j < rx.length; j++) {
    x0 = Math.min(x0, rx[j]);
    x1 = Math.max(x1, rx[j]);
    y0 = Math.min(y0, ry[j]);
    y1 = Math.max(y1, ry[j]);
  }
  folded.bounds = [x0, y0, x1, y1];
  folded.edgeBox = edgeBoxes(folded);
  return folded;
}
