// The visible time domain. `null` means "the whole diagram"; otherwise [t0, t1] inside it.
// Zoom and pan are pure functions of the current domain; nothing here talks to the kernel.

/** Narrowest span allowed, relative to the full span (deep enough for 10^5+ tiles). */
export const MIN_SPAN_FRACTION = 1e-7;
/** When a new scene's makespan differs from the old one by more than this factor, zoom resets. */
export const RESET_ON_MAKESPAN_FACTOR = 2;

/** [0, x_max], or [0, 1] when x_max is not a positive number. */
export function fullDomain(xMax) {
  return [0, Number.isFinite(xMax) && xMax > 0 ? xMax : 1];
}

export function visibleDomain(zoom, full) {
  return zoom ?? full;
}

/** Shift [t0, t1] into `full` (keeping its span when it fits) and cap its span. */
export function clampDomain([t0, t1], full) {
  const [f0, f1] = full;
  const fullSpan = f1 - f0;
  let span = Math.min(Math.max(t1 - t0, fullSpan * MIN_SPAN_FRACTION), fullSpan);
  let start = Math.min(Math.max(t0, f0), f1 - span);
  return [start, start + span];
}

/** The zoom state for a domain: null when it shows everything. */
export function asZoom(domain, full) {
  const span = full[1] - full[0];
  const covers = domain[0] <= full[0] + span * 1e-9 && domain[1] >= full[1] - span * 1e-9;
  return covers ? null : domain;
}

/** Zoom by `factor` (< 1 zooms in) keeping time `anchor` under the cursor. */
export function zoomAround(zoom, full, anchor, factor) {
  const [t0, t1] = visibleDomain(zoom, full);
  const span = t1 - t0;
  const fullSpan = full[1] - full[0];
  const newSpan = Math.min(Math.max(span * factor, fullSpan * MIN_SPAN_FRACTION), fullSpan);
  const at = Number.isFinite(anchor) ? Math.min(Math.max(anchor, t0), t1) : (t0 + t1) / 2;
  const start = at - (at - t0) * (newSpan / span);
  return asZoom(clampDomain([start, start + newSpan], full), full);
}

/** Move the view by `dt` time units (positive shows later times). */
export function panBy(zoom, full, dt) {
  if (!zoom) return null;
  return asZoom(clampDomain([zoom[0] + dt, zoom[1] + dt], full), full);
}

/**
 * The zoom to keep when the scene changes (a slider moved). The zoom survives, clamped into the
 * new diagram, unless the makespan changed by more than RESET_ON_MAKESPAN_FACTOR either way or
 * the old view lies entirely past the new end: then the view shows the whole new diagram.
 */
export function zoomAfterSceneChange(zoom, oldXMax, newXMax) {
  if (!zoom) return null;
  if (!(newXMax > 0) || !(oldXMax > 0)) return null;
  const ratio = newXMax / oldXMax;
  if (ratio > RESET_ON_MAKESPAN_FACTOR || ratio < 1 / RESET_ON_MAKESPAN_FACTOR) return null;
  if (zoom[0] >= newXMax) return null;
  const full = fullDomain(newXMax);
  return asZoom(clampDomain(zoom, full), full);
}

/** Wheel delta (any deltaMode) → zoom factor; one notch (~100 px) ≈ ×1.2. */
export function wheelZoomFactor(deltaY, deltaMode = 0) {
  const pixels = deltaMode === 1 ? deltaY * 16 : deltaMode === 2 ? deltaY * 400 : deltaY;
  return Math.exp(Math.max(-2, Math.min(2, pixels * 0.0018)));
}
