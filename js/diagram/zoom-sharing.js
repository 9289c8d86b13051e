// The zoom window shared through the `time_window` trait (jslinked across stacked panels): written,
// throttled, when this view zooms or pans; the view follows it when it changes elsewhere.
import { sameZoom, zoomFromWindow, zoomToWindow } from "../shared/zoom.js";

/** While zooming or panning, time_window is written at most once per this many ms. */
export const WINDOW_WRITE_INTERVAL_MS = 200;

/**
 * createZoomSharing({ model, window, zoom: () => current zoom, full: () => full domain }) →
 * { publish({ now }), dispose() }. publish() writes the current zoom at most every
 * WINDOW_WRITE_INTERVAL_MS (at once with `now`), and only when it differs from the trait.
 */
export function createZoomSharing({ model, window, zoom, full }) {
  let timer = null;
  let lastWrite = -Infinity;
  let disposed = false;
  function write() {
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
    lastWrite = window.performance.now();
    if (disposed) return;
    const current = zoom();
    if (sameZoom(zoomFromWindow(model.get("time_window"), full()), current, full())) return;
    model.set("time_window", zoomToWindow(current));
    model.save_changes();
  }
  return {
    publish({ now = false } = {}) {
      if (disposed) return;
      if (now) return write();
      if (timer !== null) return;
      const wait = Math.max(0, lastWrite + WINDOW_WRITE_INTERVAL_MS - window.performance.now());
      timer = window.setTimeout(write, wait);
    },
    dispose() {
      disposed = true;
      if (timer !== null) window.clearTimeout(timer);
      timer = null;
    },
  };
}
