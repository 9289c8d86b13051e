// Drawing the campaign diagram onto a 2D context. Pure: no DOM, the same code draws the screen
// canvas and the PNG export (the caller picks `ratio`, device px per CSS px). Every coordinate
// below is in CSS px; drawFigure sets the context transform.
import { fade, lighten, phaseColor, withAlpha } from "../shared/color.js";
import { drawAxes, drawGrid } from "./draw-axes.js";
import { drawGroupBands, drawGroupLabels } from "./draw-groups.js";
import { drawLegend, drawReadout, drawTitle } from "./draw-legend.js";
import { dashStart, snapEdge, snapLine } from "../shared/pixels.js";
import { piecesToDraw } from "./aggregate.js";
import { CRITICAL } from "../shared/legend.js";
import { drawPhaseLabels } from "./draw-labels.js";
import { drawPiecesRaster } from "./raster.js";
import { THEME } from "../shared/theme.js";

/** Above this many visible pieces the phases are not labelled in place (the legend names them). */
const LABEL_LIMIT = 100_000;

/** Rectangles and segments grouped by style, so each style is one path and one fill/stroke. */
class Batches {
  constructor() {
    this.groups = new Map();
  }
  list(style) {
    let list = this.groups.get(style);
    if (!list) this.groups.set(style, (list = []));
    return list;
  }
  rect(style, x, y, w, h) {
    this.list(style).push(x, y, w, h);
  }
  segment(style, x0, x1, y) {
    this.list(style).push(x0, x1, y);
  }
}

/**
 * The styles of one phase, computed once per draw rather than once per piece. With a highlighted
 * phase (hover linking), every other phase is faded.
 */
function phaseStyles(colors, highlightPhase) {
  const cache = new Map();
  const highlighting = Number.isInteger(highlightPhase);
  return (phase) => {
    let styles = cache.get(phase);
    if (!styles) {
      const color = phaseColor(colors, phase);
      const faded = highlighting && phase !== highlightPhase;
      styles = faded
        ? { line: fade(color, THEME.fadeLighten, THEME.background), shade: withAlpha(color, THEME.shadeAlpha / 3), fill: fade(color, 0.8, THEME.background), outline: false }
        : { line: color, shade: withAlpha(color, THEME.shadeAlpha), fill: lighten(color, THEME.fillLighten), outline: highlighting };
      cache.set(phase, styles);
    }
    return styles;
  };
}

function fillRects(ctx, batches) {
  for (const [style, r] of batches.groups) {
    ctx.fillStyle = style;
    ctx.beginPath();
    for (let k = 0; k < r.length; k += 4) ctx.rect(r[k], r[k + 1], r[k + 2], r[k + 3]);
    ctx.fill();
  }
}

/** Segments are [xStart, xEnd, y] triples. */
function strokeSegments(ctx, batches, lineWidth, dash) {
  ctx.lineWidth = lineWidth;
  ctx.setLineDash(dash);
  ctx.lineCap = "butt";
  for (const [style, s] of batches.groups) {
    ctx.strokeStyle = style;
    ctx.beginPath();
    for (let k = 0; k < s.length; k += 3) {
      ctx.moveTo(s[k], s[k + 2]);
      ctx.lineTo(s[k + 1], s[k + 2]);
    }
    ctx.stroke();
  }
  ctx.setLineDash([]);
}

/** Diagonal hatch over the union of `rects` (flat [x, y, w, h, …]). */
function hatchRects(ctx, rects, ratio) {
  if (!rects.length) return;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  ctx.save();
  ctx.beginPath();
  for (let k = 0; k < rects.length; k += 4) {
    ctx.rect(rects[k], rects[k + 1], rects[k + 2], rects[k + 3]);
    minX = Math.min(minX, rects[k]);
    minY = Math.min(minY, rects[k + 1]);
    maxX = Math.max(maxX, rects[k] + rects[k + 2]);
    maxY = Math.max(maxY, rects[k + 1] + rects[k + 3]);
  }
  ctx.clip();
  ctx.strokeStyle = THEME.hatch;
  ctx.lineWidth = Math.max(1 / ratio, 1);
  ctx.setLineDash([]);
  ctx.beginPath();
  const height = maxY - minY;
  const spacing = THEME.hatchSpacing;
  // Lines rising to the right; start far enough left that the box's bottom-left is covered.
  const first = Math.floor((minX - height) / spacing) * spacing;
  for (let x = first; x <= maxX; x += spacing) {
    ctx.moveTo(x, maxY);
    ctx.lineTo(x + height, minY);
  }
  ctx.stroke();
  ctx.restore();
}

function xClamp(value, plot) {
  return Math.min(Math.max(value, plot.left - 4), plot.right + 4);
}

/**
 * Draw the pieces (see aggregate.piecesToDraw) in layers, bottom to top: shading under the
 * compute line, the grey wells, the memory fill, the spill (red, hatched), the guard rails, the
 * compute lines (solid, then dashed from dash_from with gaps in the background colour; red where
 * flag bit 0; over a bold edge in THEME.critical where flag bit 3, CRITICAL: on the critical path).
 * `highlightPhase` (an
 * integer, or null) draws that phase at full strength with a dark outline on its compute line and
 * fades the others.
 */
export function drawPieces(ctx, pieces, { x, y, plot, colors, ratio, highlightPhase = null }) {
  const shade = new Batches();
  const wells = new Batches();
  const fills = new Batches();
  const spills = [];
  const rails = new Batches();
  const solid = new Batches();
  const dashed = new Batches();
  const outlines = new Batches();
  const critical = new Batches();
  const computeWidth = THEME.computeLineWidth;
  const stylesOf = phaseStyles(colors, highlightPhase);

  for (let k = 0; k < pieces.n; k++) {
    const px0 = snapEdge(xClamp(x(pieces.x0[k]), plot), ratio);
    let px1 = snapEdge(xClamp(x(pieces.x1[k]), plot), ratio);
    if (!(px1 > px0)) {
      if (!(pieces.x1[k] > pieces.x0[k])) continue;
      px1 = px0 + 1 / ratio;
    }
    const width = px1 - px0;
    const styles = stylesOf(pieces.phase[k]);
    const base = pieces.base_y[k];
    const line = pieces.line_y[k];
    const wellTop = pieces.well_top[k];
    const fillTop = pieces.fill_top[k];
    const lineY = snapEdge(y(line), ratio);

    if (line > base) {
      const baseY = snapEdge(y(base), ratio);
      shade.rect(styles.shade, px0, lineY, width, baseY - lineY);
    }
    if (wellTop > line) {
      const topY = snapEdge(y(wellTop), ratio);
      wells.rect(THEME.well, px0, topY, width, lineY - topY);
    }
    const filled = Math.min(fillTop, wellTop);
    if (filled > line) {
      const topY = snapEdge(y(filled), ratio);
      fills.rect(styles.fill, px0, topY, width, lineY - topY);
    }
    if (fillTop > wellTop) {
      const bottomY = snapEdge(y(Math.max(wellTop, line)), ratio);
      const topY = snapEdge(y(fillTop), ratio);
      spills.push(px0, topY, width, bottomY - topY);
    }
    rails.segment(THEME.rail, px0, px1, snapLine(y(wellTop), THEME.railWidth, ratio));

    const lineColor = pieces.flags[k] & 1 ? THEME.warning : styles.line;
    const lineCentre = snapLine(y(line), computeWidth, ratio);
    const dashFrom = dashStart(pieces.dash_from[k], pieces.x0[k], pieces.x1[k]);
    const pxDash = dashFrom >= pieces.x1[k] ? px1 : snapEdge(xClamp(x(dashFrom), plot), ratio);
    if (pieces.flags[k] & CRITICAL) critical.segment(THEME.critical, px0, px1, lineCentre);
    if (styles.outline) outlines.segment(THEME.highlight, px0, px1, lineCentre);
    if (pxDash > px0) solid.segment(lineColor, px0, pxDash, lineCentre);
    if (px1 > pxDash) dashed.segment(lineColor, pxDash, px1, lineCentre);
  }

  fillRects(ctx, shade);
  fillRects(ctx, wells);
  fillRects(ctx, fills);
  if (spills.length) {
    const spillBatch = new Batches();
    spillBatch.groups.set(THEME.spillFill, spills);
    fillRects(ctx, spillBatch);
    hatchRects(ctx, spills, ratio);
  }
  strokeSegments(ctx, rails, THEME.railWidth, []);
  strokeSegments(ctx, critical, computeWidth + 2 * THEME.criticalWidth, []);
  strokeSegments(ctx, outlines, computeWidth + 2 * THEME.outlineWidth, []);
  strokeSegments(ctx, solid, computeWidth, []);
  strokeDashed(ctx, dashed, computeWidth);
}

/**
 * The time added by dilation/throttling: dashes in the line's colour over a solid line in the
 * background colour, so the gaps read as gaps on any fill (a phase's dashes over its own fill, or
 * over another phase's of a similar hue, would otherwise vanish).
 */
function strokeDashed(ctx, dashed, lineWidth) {
  if (!dashed.groups.size) return;
  const gaps = new Batches();
  gaps.groups.set(THEME.background, [].concat(...dashed.groups.values()));
  strokeSegments(ctx, gaps, lineWidth, []);
  strokeSegments(ctx, dashed, lineWidth, THEME.dash);
}

/** Outline of one scene piece (hover feedback): its compute area and its pipe. */
export function drawHighlight(ctx, scene, i, { x, y, plot, ratio }) {
  if (!(i >= 0 && i < scene.n)) return;
  const left = xClamp(x(scene.x0[i]), plot);
  const right = xClamp(x(scene.x1[i]), plot);
  const top = y(Math.max(scene.well_top[i], scene.fill_top[i], scene.line_y[i]));
  const bottom = y(Math.min(scene.base_y[i], scene.line_y[i]));
  ctx.strokeStyle = THEME.highlight;
  ctx.lineWidth = 1;
  ctx.setLineDash([3, 2]);
  ctx.beginPath();
  ctx.rect(snapLine(left, 1, ratio), snapLine(top, 1, ratio), snapEdge(right - left, ratio), snapEdge(bottom - top, ratio));
  ctx.stroke();
  ctx.setLineDash([]);
}

function clipToPlot(ctx, plot) {
  ctx.beginPath();
  ctx.rect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
  ctx.clip();
}

/**
 * Draw the whole figure: background, fusion-group bands, grid, pieces, hover outline, group
 * labels, axes, legend, readout, title.
 * `layout` comes from layoutFigure; `pieces` from piecesToDraw for layout.domain (with `raster`:
 * drawn per pixel, and `pieces.n` becomes the number of pixel columns drawn).
 */
export function drawFigure(ctx, figure, view, layout, pieces) {
  const ratio = view.ratio ?? 1;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = THEME.background;
  ctx.fillRect(0, 0, layout.width, layout.height);
  const geometry = {
    x: layout.x, y: layout.y, plot: layout.plot, colors: figure.phaseColors, ratio,
    highlightPhase: view.highlightPhase ?? null,
  };

  drawGroupBands(ctx, figure.scene, geometry);
  drawGrid(ctx, layout, ratio);
  ctx.save();
  clipToPlot(ctx, layout.plot);
  if (pieces.raster) {
    const columns = drawPiecesRaster(ctx, figure.scene, pieces.raster, geometry);
    if (columns >= 0) pieces.n = columns; // drawn per pixel: count the pixel columns
    else {
      const vector = piecesToDraw(figure.scene, figure.index, layout.domain[0], layout.domain[1], layout.plot.right - layout.plot.left);
      drawPieces(ctx, vector, geometry);
      pieces.n = vector.n;
    }
  } else drawPieces(ctx, pieces, geometry);
  if (view.hovered >= 0) drawHighlight(ctx, figure.scene, view.hovered, geometry);
  drawGroupLabels(ctx, figure.scene, figure.fusionGroups, geometry);
  if (!(pieces.raster && pieces.raster.length > LABEL_LIMIT)) drawPhaseLabels(ctx, figure, { ...geometry, domain: layout.domain });
  ctx.restore();
  drawAxes(ctx, layout, ratio);
  drawLegend(ctx, layout);
  drawReadout(ctx, layout);
  drawTitle(ctx, layout);
}
