// Many visible pieces (from a thousand up to 10^5 intervals, a hundred stacked per pixel column) are
// drawn per pixel: straight into a pixel buffer of the plot area, layer by layer in the vector
// renderer's order (shade, wells, memory fill, spill, guard rails, compute lines), then put on the
// canvas in one drawImage. Cost: about one write per covered pixel, and the constant-colour layers
// (wells, spill) cost two writes per piece through difference arrays, however much they overlap.
// Why from a thousand: the canvas records vector calls and rasterizes them when the frame is made
// (in software, as here in headless Chromium, ~10 ms for the six calls per piece of 1,536 pieces),
// while this pass takes about 1 ms; a paper figure's few hundred pieces stay vectors.
import { fade, lighten, parseHex, withAlpha } from "../shared/color.js";
import { dashStart } from "../shared/pixels.js";
import { CRITICAL } from "../shared/legend.js";
import { THEME } from "../shared/theme.js";

/** Above this many visible pieces the plot is drawn per pixel. */
export const RASTER_LIMIT = 1_000;

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

/** Per-phase packed pixels (line, shade, fill, outline flag) in flat arrays, for the hot loops. */
function phasePixels(colors, highlightPhase, phases) {
  const highlighting = Number.isInteger(highlightPhase);
  const line = new Uint32Array(phases);
  const shade = new Uint32Array(phases);
  const fill = new Uint32Array(phases);
  const outline = new Uint8Array(phases);
  for (let phase = 0; phase < phases; phase++) {
    const color = /^#[0-9a-f]{6}$/i.test(colors?.[phase] ?? "") ? colors[phase] : "#808080";
    const faded = highlighting && phase !== highlightPhase;
    line[phase] = packColor(faded ? fade(color, THEME.fadeLighten, THEME.background) : color);
    shade[phase] = packColor(withAlpha(color, faded ? THEME.shadeAlpha / 3 : THEME.shadeAlpha));
    fill[phase] = packColor(faded ? fade(color, 0.8, THEME.background) : lighten(color, THEME.fillLighten));
    outline[phase] = highlighting && !faded ? 1 : 0;
  }
  return { line, shade, fill, outline };
}

// Per-draw work arrays, kept between draws: a slider drag redraws a 10^5-piece scene many times a
// second, and fresh arrays each time would leave megabytes to the garbage collector per frame.
const SCRATCH = new Map();
function scratch(name, Typed, length) {
  let buffer = SCRATCH.get(name);
  if (!buffer || buffer.length < length) {
    buffer = new Typed(Math.max(length, Math.ceil((buffer?.length ?? 0) * 1.5)));
    SCRATCH.set(name, buffer);
  }
  return buffer.subarray(0, length);
}

/**
 * A linear map's numbers { d0, r0, slope } (value ↦ r0 + (value − d0) · slope, scale.js's own
 * arithmetic), so the per-piece loop computes pixels inline instead of calling a function per value.
 * A plain function is taken as the affine map through its values at 0 and 1.
 */
function affine(scale) {
  if (Array.isArray(scale.domain) && Array.isArray(scale.range) && Number.isFinite(scale.slope)) {
    return { d0: scale.domain[0], r0: scale.range[0], slope: scale.slope };
  }
  const r0 = scale(0);
  return { d0: 0, r0, slope: scale(1) - r0 };
}

/**
 * Paint the pieces `visible` (scene indices, in scene order) of `scene` into `pixels` (Uint32Array,
 * width × height, the plot area at device resolution, transparent). `x`, `y` map data to CSS px;
 * `left`, `top` are the plot's device-px origin. Returns the number of pixel columns painted.
 *
 * Every piece's columns and rows are computed once, into typed arrays; the layers then only index
 * them (a 10^5-piece scene is drawn on every slider step, so this loop is the view's hot path).
 */
export function rasterizePieces(pixels, width, height, scene, visible, { x, y, ratio, left, top, colors, highlightPhase = null }) {
  const n = visible.length;
  const X0 = scratch("X0", Int32Array, n);
  const X1 = scratch("X1", Int32Array, n);
  const dashColumn = scratch("dashColumn", Int32Array, n);
  const lineRow = scratch("lineRow", Int32Array, n); // unclamped: the line's centre row
  const baseRow = scratch("baseRow", Int32Array, n);
  const wellRow = scratch("wellRow", Int32Array, n); // unclamped: the guard rail's row
  const fillRow = scratch("fillRow", Int32Array, n);
  const filledRow = scratch("filledRow", Int32Array, n); // min(fill, well)
  const spillFloorRow = scratch("spillFloorRow", Int32Array, n); // max(well, line)
  const phaseOf = scratch("phaseOf", Int32Array, n);
  const has = scratch("has", Uint8Array, n); // bits: 1 shade, 2 well, 4 memory fill, 8 spill
  const { d0: xd0, r0: xr0, slope: xs } = affine(x);
  const { d0: yd0, r0: yr0, slope: ys } = affine(y);
  const row = (value) => Math.round((yr0 + (value - yd0) * ys) * ratio) - top;
  const column = (value) => Math.round((xr0 + (value - xd0) * xs) * ratio) - left;
  const clampRow = (r) => (r < 0 ? 0 : r > height ? height : r);
  const clampCol = (c) => (c < 0 ? 0 : c > width ? width : c);
  let phases = 1;
  for (let k = 0; k < n; k++) {
    const i = visible[k];
    const x0 = scene.x0[i];
    const x1 = scene.x1[i];
    const c0 = column(x0);
    let c1 = column(x1);
    if (c1 <= c0 && x1 > x0) c1 = c0 + 1;
    X0[k] = clampCol(c0);
    X1[k] = clampCol(c1);
    const from = dashStart(scene.dash_from[i], x0, x1);
    dashColumn[k] = from >= x1 ? X1[k] : clampCol(column(from));
    const base = scene.base_y[i];
    const line = scene.line_y[i];
    const well = scene.well_top[i];
    const fill = scene.fill_top[i];
    if (!(Number.isFinite(base) && Number.isFinite(line) && Number.isFinite(well) && Number.isFinite(fill))) {
      X1[k] = X0[k]; // not drawable: nothing painted (the kernel never sends such a piece)
      has[k] = 0;
      continue;
    }
    lineRow[k] = row(line);
    baseRow[k] = clampRow(row(base));
    wellRow[k] = row(well);
    fillRow[k] = clampRow(row(fill));
    const filled = Math.min(fill, well);
    filledRow[k] = clampRow(row(filled));
    spillFloorRow[k] = clampRow(row(Math.max(well, line)));
    has[k] = (line > base ? 1 : 0) | (well > line ? 2 : 0) | (filled > line ? 4 : 0) | (fill > well ? 8 : 0);
    const phase = scene.phase[i];
    phaseOf[k] = phase;
    if (phase + 1 > phases) phases = phase + 1;
  }
  const styles = phasePixels(colors, highlightPhase, phases);

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
    if (has[k] & 1) fillSpan(X0[k], X1[k], clampRow(lineRow[k]), baseRow[k], styles.shade[phaseOf[k]]);
  }
  // Wells and spills: one colour each, so only coverage matters — a difference array per column.
  const coverage = scratch("coverage", Int32Array, (height + 1) * width).fill(0);
  const paintCovered = (color, hatch) => {
    const spacing = Math.max(1, Math.round(THEME.hatchSpacing * ratio));
    for (let r = 0; r < height; r++) {
      const base = r * width;
      if (r > 0) for (let c = 0; c < width; c++) coverage[base + c] += coverage[base - width + c];
      for (let c = 0; c < width; c++) {
        if (coverage[base + c] > 0) pixels[base + c] = hatch && (c + left + height - r) % spacing === 0 ? hatch : color;
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
    if (!(has[k] & 2)) continue;
    cover(X0[k], X1[k], clampRow(wellRow[k]), clampRow(lineRow[k]));
    wells = true;
  }
  if (wells) paintCovered(packColor(THEME.well), 0);
  for (let k = 0; k < n; k++) {
    if (has[k] & 4) fillSpan(X0[k], X1[k], filledRow[k], clampRow(lineRow[k]), styles.fill[phaseOf[k]]);
  }
  coverage.fill(0);
  let spills = false;
  for (let k = 0; k < n; k++) {
    if (!(has[k] & 8)) continue;
    cover(X0[k], X1[k], fillRow[k], spillFloorRow[k]);
    spills = true;
  }
  if (spills) paintCovered(packColor(THEME.spillFill), packColor(THEME.hatch));

  // Guard rails, then compute lines (outline first when highlighting; red where compute > 100%).
  const railWidth = Math.max(1, Math.round(THEME.railWidth * ratio));
  const rail = packColor(THEME.rail);
  for (let k = 0; k < n; k++) {
    const r0 = wellRow[k] - (railWidth >> 1);
    fillSpan(X0[k], X1[k], clampRow(r0), clampRow(r0 + railWidth), rail);
  }
  const lineWidth = Math.max(1, Math.round(THEME.computeLineWidth * ratio));
  const outlineWidth = lineWidth + 2 * Math.max(1, Math.round(THEME.outlineWidth * ratio));
  const outline = packColor(THEME.highlight);
  const warning = packColor(THEME.warning);
  const dashOn = THEME.dash[0] * ratio;
  const dashPeriod = (THEME.dash[0] + THEME.dash[1]) * ratio;
  // Dash gaps are painted in the background so they show on any pipe fill beneath the line.
  const background = packColor(THEME.background);
  const used = new Uint8Array(width);
  paintCriticalEdges(scene, visible, X0, X1, lineRow, lineWidth, ratio, clampRow, fillSpan);
  for (let k = 0; k < n; k++) {
    const c0 = X0[k];
    const c1 = X1[k];
    if (c1 <= c0) continue;
    for (let c = c0; c < c1; c++) used[c] = 1;
    const phase = phaseOf[k];
    const centre = lineRow[k];
    if (styles.outline[phase]) {
      const r0 = centre - (outlineWidth >> 1);
      fillSpan(c0, c1, clampRow(r0), clampRow(r0 + outlineWidth), outline);
    }
    const color = scene.flags[visible[k]] & 1 ? warning : styles.line[phase];
    const r0 = clampRow(centre - (lineWidth >> 1));
    const r1 = clampRow(centre - (lineWidth >> 1) + lineWidth);
    const cDash = dashColumn[k];
    fillSpan(c0, Math.max(c0, cDash), r0, r1, color);
    for (let c = Math.max(c0, cDash); c < c1; c++) {
      fillSpan(c, c + 1, r0, r1, (c + left) % dashPeriod < dashOn ? color : background);
    }
  }
  let columns = 0;
  for (let c = 0; c < width; c++) columns += used[c];
  return columns;
}

/**
 * The critical path's bold edge (flag bit CRITICAL, js/diagram/CONTRACT.md) under every compute line, as
 * drawPieces strokes it: a pass of its own, so the hot loop above is unchanged when no piece has it.
 */
function paintCriticalEdges(scene, visible, X0, X1, lineRow, lineWidth, ratio, clampRow, fillSpan) {
  const edgeWidth = lineWidth + 2 * Math.max(1, Math.round(THEME.criticalWidth * ratio));
  const edge = packColor(THEME.critical);
  for (let k = 0; k < visible.length; k++) {
    if (!(scene.flags[visible[k]] & CRITICAL) || X1[k] <= X0[k]) continue;
    const r0 = lineRow[k] - (edgeWidth >> 1);
    fillSpan(X0[k], X1[k], clampRow(r0), clampRow(r0 + edgeWidth), edge);
  }
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
  const surface = offscreenSurface(ctx, width, height);
  if (!surface) return -1;
  const { canvas, offscreen, image, pixels } = surface;
  pixels.fill(0);
  const columns = rasterizePieces(pixels, width, height, scene, visible, { x, y, ratio, left, top, colors, highlightPhase });
  offscreen.putImageData(image, 0, 0);
  ctx.drawImage(canvas, left / ratio, top / ratio, width / ratio, height / ratio);
  return columns;
}

let surfaceCache = null;
/** An offscreen canvas with its ImageData, reused while the plot keeps its size. */
function offscreenSurface(ctx, width, height) {
  const document = ctx.canvas?.ownerDocument ?? null;
  const cached = surfaceCache;
  if (cached && cached.width === width && cached.height === height && cached.document === document) return cached;
  const canvas = makeCanvas(ctx, width, height);
  if (!canvas) return null;
  const offscreen = canvas.getContext("2d");
  const image = offscreen.createImageData(width, height);
  surfaceCache = { width, height, document, canvas, offscreen, image, pixels: new Uint32Array(image.data.buffer) };
  return surfaceCache;
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
