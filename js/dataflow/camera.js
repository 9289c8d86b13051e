// The view transform: screen = world · k + (tx, ty), in CSS px. Pure functions; no kernel traffic.

export const MAX_ZOOM = 4;
/** Below this zoom the first view starts at the graph's left end instead of fitting all of it. */
export const MIN_START_ZOOM = 0.2;
const PAD = 16;

/** The camera that shows `bounds` [x0, y0, x1, y1] inside a `width`×`height` area. */
export function fitCamera(bounds, width, height) {
  const [x0, y0, x1, y1] = bounds;
  const bw = Math.max(x1 - x0, 1);
  const bh = Math.max(y1 - y0, 1);
  const k = Math.min(MAX_ZOOM, Math.max(1e-6, Math.min((width - 2 * PAD) / bw, (height - 2 * PAD) / bh)));
  return { k, tx: (width - bw * k) / 2 - x0 * k, ty: (height - bh * k) / 2 - y0 * k };
}

/**
 * The first view: everything when it is legible; else MIN_START_ZOOM at the graph's left end,
 * centred vertically on `anchorY` (the first phase: a long graph may run diagonally).
 */
export function startCamera(bounds, width, height, anchorY = (bounds[1] + bounds[3]) / 2) {
  const fit = fitCamera(bounds, width, height);
  if (fit.k >= MIN_START_ZOOM) return fit;
  const k = MIN_START_ZOOM;
  return { k, tx: PAD - bounds[0] * k, ty: height / 2 - anchorY * k };
}

/** The smallest zoom allowed: half of what fits everything. */
export function minZoom(bounds, width, height) {
  return fitCamera(bounds, width, height).k / 2;
}

/** Zoom by `factor` keeping screen point (sx, sy) fixed. */
export function zoomAt(camera, sx, sy, factor, kMin = 1e-6) {
  const k = Math.min(MAX_ZOOM, Math.max(kMin, camera.k * factor));
  const f = k / camera.k;
  return { k, tx: sx - (sx - camera.tx) * f, ty: sy - (sy - camera.ty) * f };
}

export function panCamera(camera, dx, dy) {
  return { k: camera.k, tx: camera.tx + dx, ty: camera.ty + dy };
}

/** Centre the camera on world point (x, y) in a `width`×`height` area. */
export function centreOn(camera, x, y, width, height) {
  return { k: camera.k, tx: width / 2 - x * camera.k, ty: height / 2 - y * camera.k };
}

/** The world rectangle [x0, y0, x1, y1] visible in a `width`×`height` area. */
export function visibleWorld(camera, width, height) {
  return [-camera.tx / camera.k, -camera.ty / camera.k, (width - camera.tx) / camera.k, (height - camera.ty) / camera.k];
}

export function toScreen(camera, x, y) {
  return [x * camera.k + camera.tx, y * camera.k + camera.ty];
}

export function toWorld(camera, sx, sy) {
  return [(sx - camera.tx) / camera.k, (sy - camera.ty) / camera.k];
}
