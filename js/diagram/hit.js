// Which piece is under the mouse. A piece answers for two bands: its pipe [line_y, max(well_top,
// fill_top)] and its compute area [base_y, line_y]. Stacked pieces overlap (a lower piece's pipe
// lies inside the compute area of the piece above it); the pipe, drawn on top, wins, then the
// piece drawn last.
import { candidateRange } from "./scene-index.js";

function distanceToBand(y, low, high) {
  if (y < low) return low - y;
  if (y > high) return y - high;
  return 0;
}

/**
 * The scene index of the piece at time t and height y, or -1. `yTolerance` (data units) lets a
 * near miss of a thin band still hit; the nearest band wins then.
 */
export function hitTest(scene, index, t, y, yTolerance = 0) {
  if (!Number.isFinite(t) || !Number.isFinite(y)) return -1;
  const { lo, hi } = candidateRange(index, t, t, true);
  let best = -1;
  let bestScore = Infinity;
  for (let p = lo; p < hi; p++) {
    const i = index.order[p];
    if (!(scene.x0[i] <= t && t < scene.x1[i])) continue;
    const line = scene.line_y[i];
    const pipeTop = Math.max(scene.well_top[i], scene.fill_top[i]);
    const pipeMiss = distanceToBand(y, line, pipeTop);
    const computeMiss = distanceToBand(y, Math.min(scene.base_y[i], line), line);
    // Score: misses first (smaller is better), then pipe before compute, then later pieces.
    let score;
    if (pipeMiss === 0) score = 0;
    else if (computeMiss === 0) score = 1;
    else {
      const miss = Math.min(pipeMiss, computeMiss);
      if (miss > yTolerance) continue;
      score = 2 + miss;
    }
    if (score < bestScore || (score === bestScore && i > best)) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}
