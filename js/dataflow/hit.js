// What is under the pointer (world coordinates): a node, else the nearest drawn edge.
import { edgeShown } from "./draw.js";
import { edgePoints, segmentControls } from "./model.js";

/** The node whose box contains (wx, wy), or -1 (the last drawn, i.e. topmost, wins). */
export function hitNode(graph, wx, wy) {
  const { x, y, w, h } = graph;
  for (let i = graph.nNodes - 1; i >= 0; i--) {
    if (Math.abs(wx - x[i]) <= w[i] / 2 && Math.abs(wy - y[i]) <= h[i] / 2) return i;
  }
  return -1;
}

function bezier(ax, ay, c, bx, by, t) {
  const u = 1 - t;
  const a = u * u * u;
  const b = 3 * u * u * t;
  const d = 3 * u * t * t;
  const e = t * t * t;
  return [a * ax + b * c[0] + d * c[2] + e * bx, a * ay + b * c[1] + d * c[3] + e * by];
}

function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const len = dx * dx + dy * dy;
  const t = len > 0 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len)) : 0;
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

/** The drawn edge nearest to (wx, wy) within `tolerance` (world units), or -1. */
export function hitEdge(graph, style, wx, wy, tolerance, k, highlight = -1) {
  let best = -1;
  let bestDistance = tolerance;
  const box = graph.edgeBox;
  for (let e = 0; e < graph.nEdges; e++) {
    if (wx < box[4 * e] - tolerance || wx > box[4 * e + 2] + tolerance) continue;
    if (wy < box[4 * e + 1] - tolerance || wy > box[4 * e + 3] + tolerance) continue;
    if (!edgeShown(graph, style, e, k, highlight)) continue;
    const p = edgePoints(graph, e);
    for (let q = 2; q < p.length; q += 2) {
      const [sx0, sy0, sx1, sy1] = [p[q - 2], p[q - 1], p[q], p[q + 1]];
      const c = segmentControls(sx0, sy0, sx1, sy1);
      let [ax, ay] = [sx0, sy0];
      for (let s = 1; s <= 12; s++) {
        const [bx, by] = bezier(sx0, sy0, c, sx1, sy1, s / 12);
        const d = segmentDistance(wx, wy, ax, ay, bx, by);
        if (d < bestDistance) {
          bestDistance = d;
          best = e;
        }
        ax = bx;
        ay = by;
      }
    }
  }
  return best;
}
