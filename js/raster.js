// Very many visible pieces (10^5 intervals, a hundred stacked per pixel column) are drawn per pixel:
// straight into a pixel buffer of the plot area, layer by layer in the vector renderer's order
// (shade, wells, memory fill, spill, guard rails, compute lines), then put on the canvas in one
// drawImage. Cost: about one write per covered pixel, and the constant-colour layers (wells,
// spill) cost two writes per piece through difference arrays, however much they overlap.
import { lighten, parseHex, withAlpha } from "./color.js";
import { dashStart } from "./pixels.js";
import { THEME } from "./theme.js";

/** Above this many visible pieces the plot is drawn per pixel. */
export const RASTER_LIMIT = 20_000;

/** "#rrggbb", "rgb(r, g, b)" or "rgba(r, g, b, a)" → a little-endian RGBA pixel (ImageData order). */
export function packColor(css) {
  const text = String(css).trim();
  let r, g, b, a = 1;
  const fn = /^rgba?\(([^)]*)\)$/i.exec(text);
  if (fn) {
    const parts = fn[1].split(",").map((p) => Number(p.trim()));
    [r, g, b] = parts;
    if (parts.length > 3) a = parts[3];
  } else {
    [r, g, b] = parseHex(text);
  }
  const alpha = Math.round(Math.min(1, Math.max(0, a)) * 255);
  return ((alpha << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

function phasePixels(colors, highlightPhase) {
  const cache = new Map();
  const highlighting = Number.isInteger(highlightPhase);
  return (phase) => {
    let styles = cache.get(phase);
    if (!styles) {
      const color = /^#[0-9a-f]{6}$/i.test(colors?.[phase] ?? "") ? colors[phase] : "#808080";
      const faded = highlighting && phase !== highlightPhase;
      styles = faded
        ? { line: packColor(lighten(color, THEME.fadeLighten)), shade: packColor(withAlpha(color, THEME.shadeAlpha / 3)), fill: packColor(lighten(color, 0.8)), outline: false }
        : { line: packColor(color), shade: packColor(withAlpha(color, THEME.shadeAlpha)), fill: packColor(lighten(color, THEME.fillLighten)), outline: highlighting };
      cache.set(phase, styles);
    }
    return styles;
  };
}

/**
 * Paint the pieces `visible` (scene indices, in scene order) of `scene` into `pixels` (Uint32Array,
 * width × height, the plot area at device resolution, transparent). `x`, `y` map data to CSS px;
 * `left`, `top` are the plot's device-px origin. Returns the number of pixel columns painted.
 */
export function rasterizePieces(pixels, width, height, scene, visible, { x, y, ratio, left, top, colors, highlightPhase = null }) {
  const n = visible.length;
  const X0 = new Int32Array(n);
  const X1 = new Int32Array(n);
  const row = (value) => Math.round(y(value) * ratio) - top;
  const clampRow = (r) => (r < 0 ? 0 : r > height ? height : r);
  const clampCol = (c) => (c < 0 ? 0 : c > width ? width : c);
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    const c0 = Math.round(x(scene.x0[i]) * ratio) - left;
    let c1 = Math.round(x(scene.x1[i]) * ratio) - left;
    if (c1 <= c0 && scene.x1[i] > scene.x0[i]) c1 = c0 + 1;
    X0[k] = clampCol(c0);
    X1[k] = clampCol(c1);
  }
  const stylesOf = phasePixels(colors, highlightPhase);

  const fillSpan = (c0, c1, r0, r1, color) => {
    if (r1 <= r0 || c1 <= c0) return;
    if (c1 - c0 > 16) {
      for (let r = r0; r < r1; r++) pixels.fill(color, r * width + c0, r * width + c1);
      return;
    }
    for (let r = r0; r < r1; r++) {
      const base = r * width;
      for (let c = c0; c < c1; c++) pixels[base + c] = color;
    }
  };

  // Shade under the compute line (translucent, composited by drawImage onto the grid below).
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    if (!(scene.line_y[i] > scene.base_y[i])) continue;
    fillSpan(X0[k], X1[k], clampRow(row(scene.line_y[i])), clampRow(row(scene.base_y[i])), stylesOf(scene.phase[i]).shade);
  }
  // Wells and spills: one colour each, so only coverage matters — a difference array per column.
  const coverage = new Int32Array((height + 1) * width);
  const paintCovered = (color, hatch) => {
    const spacing = Math.max(1, Math.round(THEME.hatchSpacing * ratio));
    for (let c = 0; c < width; c++) {
      let depth = 0;
      for (let r = 0; r < height; r++) {
        depth += coverage[r * width + c];
        if (depth > 0) pixels[r * width + c] = hatch && (c + left + height - r) % spacing === 0 ? hatch : color;
      }
    }
  };
  const cover = (c0, c1, r0, r1) => {
    if (r1 <= r0) return;
    for (let c = c0; c < c1; c++) {
      coverage[r0 * width + c] += 1;
      coverage[r1 * width + c] -= 1;
    }
  };
  let wells = false;
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    if (!(scene.well_top[i] > scene.line_y[i])) continue;
    cover(X0[k], X1[k], clampRow(row(scene.well_top[i])), clampRow(row(scene.line_y[i])));
    wells = true;
  }
  if (wells) paintCovered(packColor(THEME.well), 0);
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    const filled = Math.min(scene.fill_top[i], scene.well_top[i]);
    if (!(filled > scene.line_y[i])) continue;
    fillSpan(X0[k], X1[k], clampRow(row(filled)), clampRow(row(scene.line_y[i])), stylesOf(scene.phase[i]).fill);
  }
  coverage.fill(0);
  let spills = false;
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    if (!(scene.fill_top[i] > scene.well_top[i])) continue;
    cover(X0[k], X1[k], clampRow(row(scene.fill_top[i])), clampRow(row(Math.max(scene.well_top[i], scene.line_y[i]))));
    spills = true;
  }
  if (spills) paintCovered(packColor(THEME.spillFill), packColor(THEME.hatch));

  // Guard rails, then compute lines (outline first when highlighting; red where compute > 100%).
  const railWidth = Math.max(1, Math.round(THEME.railWidth * ratio));
  const rail = packColor(THEME.rail);
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    const r0 = row(scene.well_top[i]) - (railWidth >> 1);
    fillSpan(X0[k], X1[k], clampRow(r0), clampRow(r0 + railWidth), rail);
  }
  const lineWidth = Math.max(1, Math.round(THEME.computeLineWidth * ratio));
  const outlineWidth = lineWidth + 2 * Math.max(1, Math.round(THEME.outlineWidth * ratio));
  const outline = packColor(THEME.highlight);
  const warning = packColor(THEME.warning);
  const dashOn = THEME.dash[0] * ratio;
  const dashPeriod = (THEME.dash[0] + THEME.dash[1]) * ratio;
  const used = new Uint8Array(width);
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    const c0 = X0[k];
    const c1 = X1[k];
    if (c1 <= c0) continue;
    used.fill(1, c0, c1);
    const styles = stylesOf(scene.phase[i]);
    const centre = row(scene.line_y[i]);
    if (styles.outline) {
      const r0 = centre - (outlineWidth >> 1);
      fillSpan(c0, c1, clampRow(r0), clampRow(r0 + outlineWidth), outline);
    }
    const color = scene.flags[i] & 1 ? warning : styles.line;
    const r0 = clampRow(centre - (lineWidth >> 1));
    const r1 = clampRow(centre - (lineWidth >> 1) + lineWidth);
    const from = dashStart(scene.dash_from[i], scene.x0[i], scene.x1[i]);
    const cDash = from >= scene.x1[i] ? c1 : clampCol(Math.round(x(from) * ratio) - left);
    fillSpan(c0, Math.max(c0, cDash), r0, r1, color);
    for (let c = Math.max(c0, cDash); c < c1; c++) {
      if ((c + left) % dashPeriod < dashOn) fillSpan(c, c + 1, r0, r1, color);
    }
  }
  let columns = 0;
  for (let c = 0; c < width; c++) columns += used[c];
  return columns;
}

/**
 * Draw `visible` pieces per pixel onto `ctx` (whose transform is `ratio` device px per CSS px).
 * Returns the number of pixel columns drawn, or -1 when no offscreen canvas can be made (the
 * caller then draws vectors).
 */
export function drawPiecesRaster(ctx, scene, visible, { x, y, plot, colors, ratio, highlightPhase = null }) {
  const left = Math.round(plot.left * ratio);
  const top = Math.round(plot.top * ratio);
  const width = Math.max(0, Math.round(plot.right * ratio) - left);
  const height = Math.max(0, Math.round(plot.bottom * ratio) - top);
  if (!width || !height) return 0;
  const canvas = makeCanvas(ctx, width, height);
  if (!canvas) return -1;
  const offscreen = canvas.getContext("2d");
  const image = offscreen.createImageData(width, height);
  const pixels = new Uint32Array(image.data.buffer);
  const columns = rasterizePieces(pixels, width, height, scene, visible, { x, y, ratio, left, top, colors, highlightPhase });
  offscreen.putImageData(image, 0, 0);
  ctx.drawImage(canvas, left / ratio, top / ratio, width / ratio, height / ratio);
  return columns;
}

function makeCanvas(ctx, width, height) {
  if (typeof OffscreenCanvas === "function") return new OffscreenCanvas(width, height);
  const document = ctx.canvas?.ownerDocument;
  if (!document) return null;
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  return canvas;
}
