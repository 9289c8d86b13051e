// The visible time domain. `null` means "the whole diagram"; otherwise [t0, t1] inside it.
// Zoom and pan are pure functions of the current domain; nothing here talks to the kernel.

/** Narrowest span allowed, relative to the full span (deep enough for 10^5+ tiles). */
export const MIN_SPAN_FRACTION = 1e-7;
/** When a new scene's makespan differs from the old one by more than this factor, zoom resets. */
export const RESET_ON_MAKESPAN_FACTOR = 2;

/**
 * [0, max(time_max, x_max)] (time_max > 0 makes stacked panels share one axis), or [0, 1] when
 * neither is a positive number.
 */
export function fullDomain(xMax, timeMax = 0) {
  const end = Math.max(Number.isFinite(xMax) ? xMax : 0, Number.isFinite(timeMax) ? timeMax : 0);
  return [0, end > 0 ? end : 1];
}

export function visibleDomain(zoom, full) {
  return zoom ?? full;
}

/** Shift [t0, t1] into `full` (keeping its span when it fits) and cap its span. */
export function clampDomain([t0, t1], full) {
  const [f0, f1] = full;
  const fullSpan = f1 - f0;
  const span = Math.min(Math.max(t1 - t0, fullSpan * MIN_SPAN_FRACTION), fullSpan);
  const start = Math.min(Math.max(t0, f0), f1 - span);
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
 * The zoom to keep when the full time domain changes (a slider moved, so the makespan did). The
 * zoom survives, clamped into the new domain, unless the domain's end changed by more than
 * RESET_ON_MAKESPAN_FACTOR either way or the old view lies entirely past the new end: then the
 * view shows everything.
 */
export function zoomAfterDomainChange(zoom, oldFull, newFull) {
  if (!zoom) return null;
  const oldEnd = oldFull[1];
  const newEnd = newFull[1];
  if (!(newEnd > 0) || !(oldEnd > 0)) return null;
  const ratio = newEnd / oldEnd;
  if (ratio > RESET_ON_MAKESPAN_FACTOR || ratio < 1 / RESET_ON_MAKESPAN_FACTOR) return null;
  if (zoom[0] >= newEnd) return null;
  return asZoom(clampDomain(zoom, newFull), newFull);
}

/** The `time_window` trait value for a zoom: [t0, t1], or [] for the whole diagram. */
export function zoomToWindow(zoom) {
  return zoom ? [zoom[0], zoom[1]] : [];
}

/** The zoom a `time_window` trait value asks for (clamped into `full`); null for [] or junk. */
export function zoomFromWindow(window, full) {
  if (!Array.isArray(window) || window.length !== 2) return null;
  const [t0, t1] = window.map(Number);
  if (!Number.isFinite(t0) || !Number.isFinite(t1) || !(t1 > t0)) return null;
  return asZoom(clampDomain([t0, t1], full), full);
}

/** Whether two zooms show the same window (to a relative 1e-9 of the full span). */
export function sameZoom(a, b, full) {
  if (!a || !b) return !a && !b;
  const tolerance = (full[1] - full[0]) * 1e-9;
  return Math.abs(a[0] - b[0]) <= tolerance && Math.abs(a[1] - b[1]) <= tolerance;
}

/** Wheel delta (any deltaMode) → zoom factor; one notch (~100 px) ≈ ×1.2. */
export function wheelZoomFactor(deltaY, deltaMode = 0) {
  const pixels = deltaMode === 1 ? deltaY * 16 : deltaMode === 2 ? deltaY * 400 : deltaY;
  return Math.exp(Math.max(-2, Math.min(2, pixels * 0.0018)));
}
