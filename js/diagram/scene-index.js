// A search index over a decoded scene's pieces by time. The contract says pieces come sorted by
// x0 (then stack order); the index checks that and sorts a permutation itself when they do not.

/** First position p in [lo, hi) with keyAt(p) >= value (hi when none). */
export function lowerBound(keyAt, value, lo, hi) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position p in [lo, hi) with keyAt(p) > value (hi when none). */
export function upperBound(keyAt, value, lo, hi) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function isSortedByStart(x0, n) {
  for (let i = 1; i < n; i++) if (!(x0[i] >= x0[i - 1])) return false;
  return true;
}

// 0, 1, 2, …: the order of every sorted scene (read only), grown as scenes grow.
let IDENTITY = new Int32Array(0);
function identity(n) {
  if (IDENTITY.length < n) {
    IDENTITY = new Int32Array(Math.max(n, Math.ceil(IDENTITY.length * 1.5)));
    for (let i = 0; i < IDENTITY.length; i++) IDENTITY[i] = i;
  }
  return IDENTITY.subarray(0, n);
}

/**
 * { order, start, maxEnd, sorted }: position p holds piece order[p]; start[p] is its x0, sorted
 * ascending; maxEnd[p] is the largest x1 of positions 0..p (non-decreasing), so the pieces that
 * can overlap a time t start at the first position whose maxEnd exceeds t. All read only. A
 * sorted scene (the contract's) is indexed in place: its order is the identity and its starts are
 * its x0. `reuse`: an index no longer used, whose maxEnd may be written over.
 */
export function buildSceneIndex(scene, { reuse } = {}) {
  const { n, x0, x1 } = scene;
  const sorted = isSortedByStart(x0, n);
  let order, start;
  if (sorted) {
    order = identity(n);
    start = x0.length === n ? x0 : x0.subarray(0, n);
  } else {
    order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    // A stable sort keeps the stack order of pieces that start together.
    order.sort((a, b) => x0[a] - x0[b] || a - b);
    start = new Float64Array(n);
  }
  const maxEnd = reuse?.maxEnd?.length === n && reuse.ownMaxEnd ? reuse.maxEnd : new Float64Array(n);
  let running = -Infinity;
  for (let p = 0; p < n; p++) {
    const i = order[p];
    if (!sorted) start[p] = x0[i];
    const end = x1[i];
    if (end > running) running = end;
    maxEnd[p] = running;
  }
  return { order, start, maxEnd, sorted, n, ownMaxEnd: true };
}

/**
 * Positions [lo, hi) of the index holding every piece with x1 > t0 and x0 < t1 (x0 <= t1 when
 * `includeEnd`); a piece in the range may still miss, check its own span.
 */
export function candidateRange(index, t0, t1, includeEnd = false) {
  const lo = upperBound((p) => index.maxEnd[p], t0, 0, index.n);
  const startKey = (p) => index.start[p];
  const hi = includeEnd ? upperBound(startKey, t1, lo, index.n) : lowerBound(startKey, t1, lo, index.n);
  return { lo, hi };
}

/** Original indices of the pieces overlapping (t0, t1), in draw order (ascending index). */
export function visiblePieces(scene, index, t0, t1) {
  const { lo, hi } = candidateRange(index, t0, t1);
  const result = new Int32Array(Math.max(0, hi - lo));
  let count = 0;
  for (let p = lo; p < hi; p++) {
    const i = index.order[p];
    if (scene.x1[i] > t0 && scene.x0[i] < t1) result[count++] = i;
  }
  const visible = result.subarray(0, count);
  if (!index.sorted) visible.sort();
  return visible;
}
