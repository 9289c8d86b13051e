// What is under the pointer (world coordinates): a node, else the nearest drawn edge.
import { edgeCurve, edgeShown } from "./draw.js";

/** The node whose box contains (wx, wy), or -1 (the last drawn, i.e. topmost, wins). */
export function hitNode(graph, wx, wy) {
  const { x, y, w, h } = graph;
  for (let i = graph.nNodes - 1; i >= 0; i--) {
    if (Math.abs(wx - x[i]) <= w[i] / 2 && Math.abs(wy - y[i]) <= h[i] / 2) return i;
  }
  return -1;
}

function bezier(c, t) {
  const u = 1 - t;
  const a = u * u * u;
  const b = 3 * u * u * t;
  const d = 3 * u * t * t;
  const e = t * t * t;
  return [a * c[0] + b * c[2] + d * c[4] + e * c[6], a * c[1] + b * c[3] + d * c[5] + e * c[7]];
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
  for (let e = 0; e < graph.nEdges; e++) {
    const c = edgeCurve(graph, e);
    if (wx < Math.min(c[0], c[6]) - tolerance || wx > Math.max(c[0], c[6]) + tolerance) continue;
    if (wy < Math.min(c[1], c[7]) - tolerance || wy > Math.max(c[1], c[7]) + tolerance) continue;
    if (!edgeShown(graph, style, e, k, highlight)) continue;
    let [ax, ay] = bezier(c, 0);
    for (let s = 1; s <= 16; s++) {
      const [bx, by] = bezier(c, s / 16);
      const d = segmentDistance(wx, wy, ax, ay, bx, by);
      if (d < bestDistance) {
        bestDistance = d;
        best = e;
      }
      ax = bx;
      ay = by;
    }
  }
  return best;
}
