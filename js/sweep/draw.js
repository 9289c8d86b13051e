// A product sweep's heatmap on a canvas: cells, tick labels, the colour bar, the best cell's ◆ and
// the selected cell's outline. Every colour and every label comes from the kernel's `grid`
// (campaign_widget/figures/sweep_grid.py, sweep_grid); this file only places them. Row 0 (the first y value)
// is the bottom row, as in the static heatmap.
import { decodeArray } from "../shared/codecs.js";
import { fillTitle, fillVertical, themeFont as font } from "../shared/plot-text.js";

const BAR_WIDTH = 14;
const TICK = 4;
const GAP = 6;
const TITLE_BAND = 18; // an axis title's row (or column, rotated)

/** The synced `grid` decoded: typed arrays (flat, rows × columns) and the JSON beside them. */
export function readGrid(raw) {
  const g = raw ?? {};
  const ny = (g.y_labels ?? []).length;
  const nx = (g.x_labels ?? []).length;
  const arr = (key, Typed) => decodeArray(g[key]) ?? new Typed(0);
  return {
    nx, ny,
    rgb: arr("rgb", Uint8Array), rgbDark: arr("rgb_dark", Uint8Array),
    indices: arr("indices", Int32Array), have: arr("have", Uint8Array), barRgb: arr("bar_rgb", Uint8Array),
    xLabels: g.x_labels ?? [], yLabels: g.y_labels ?? [], boolean: Boolean(g.boolean), ticks: g.ticks ?? [],
    swatches: g.swatches ?? {}, bestCell: Array.isArray(g.best_cell) ? g.best_cell : null,
    pendingColor: g.pending_color ?? "#dddddd", bestColor: g.best_color ?? "#d62728",
  };
}

const hex = (v) => v.toString(16).padStart(2, "0");
export const BAR_LABEL_SPACING = 16; // px between two colour-bar labels' centres: a 12 px line, 4 px apart

/**
 * Which colour-bar ticks (their positions along the bar, px) get a label: from the low end up, each
 * at least `spacing` from the last kept, so a short bar's labels do not touch
 * (campaign_widget.figures.sweep_grid.spaced_ticks is its twin).
 */
export function spacedTicks(positions, spacing = BAR_LABEL_SPACING) {
  const kept = [];
  positions.forEach((p, k) => {
    if (!kept.length || Math.abs(p - positions[kept[kept.length - 1]]) >= spacing) kept.push(k);
  });
  return kept;
}

/** The kernel's colour of cell (row, col) in the look `themeName`, as #rrggbb. */
export function cellColor(grid, row, col, themeName) {
  const rgb = themeName === "dark" && grid.rgbDark.length ? grid.rgbDark : grid.rgb;
  const k = 3 * (row * grid.nx + col);
  if (k + 2 >= rgb.length) return grid.pendingColor;
  return `#${hex(rgb[k])}${hex(rgb[k + 1])}${hex(rgb[k + 2])}`;
}

/** The configuration index of cell (row, col) and whether it is computed. */
export function cellConfiguration(grid, row, col) {
  const k = row * grid.nx + col;
  return { index: grid.indices[k], computed: grid.have[k] === 1 };
}

function textWidth(ctx, labels) {
  return labels.reduce((w, s) => Math.max(w, ctx.measureText(String(s)).width), 0);
}

/** Where everything goes in a `width` × `height` figure: the plot box, cell size, the colour bar. */
export function gridLayout(ctx, grid, width, height, { title = "", fontSize = 11 } = {}) {
  const yTickW = textWidth(ctx, grid.yLabels);
  const barLabelW = grid.boolean ? 0 : textWidth(ctx, grid.ticks.map((t) => t[1]));
  const left = 4 + TITLE_BAND + yTickW + GAP + TICK;
  const top = title ? 30 : 12;
  const right = width - (GAP * 2 + BAR_WIDTH + TICK + GAP + barLabelW + TITLE_BAND + 4);
  const nx = Math.max(1, grid.nx);
  const cellGuess = (right - left) / nx;
  const rotate = grid.xLabels.some((s) => ctx.measureText(String(s)).width > cellGuess - 4);
  const xTickH = rotate ? textWidth(ctx, grid.xLabels) * 0.71 + fontSize : fontSize + 4;
  const bottom = height - (TICK + xTickH + TITLE_BAND + 6);
  const plot = { left, right: Math.max(left + 10, right), top, bottom: Math.max(top + 10, bottom) };
  const cellW = (plot.right - plot.left) / nx;
  const cellH = (plot.bottom - plot.top) / Math.max(1, grid.ny);
  const bar = { left: plot.right + GAP * 2, right: plot.right + GAP * 2 + BAR_WIDTH, top: plot.top, bottom: plot.bottom };
  return { plot, cellW, cellH, bar, rotate };
}

/** The top-left corner of cell (row, col): row 0 at the bottom. */
export function cellBox(layout, row, col) {
  const { plot, cellW, cellH } = layout;
  return { x: plot.left + col * cellW, y: plot.bottom - (row + 1) * cellH, w: cellW, h: cellH };
}

/** The cell under (px, py), {row, col}, or null off the grid. */
export function cellAt(layout, grid, px, py) {
  const { plot, cellW, cellH } = layout;
  if (px < plot.left || px >= plot.right || py < plot.top || py >= plot.bottom) return null;
  const col = Math.min(grid.nx - 1, Math.floor((px - plot.left) / cellW));
  const row = Math.min(grid.ny - 1, Math.floor((plot.bottom - py) / cellH));
  return row >= 0 && col >= 0 ? { row, col } : null;
}

function diamond(ctx, cx, cy, r) {
  ctx.beginPath();
  ctx.moveTo(cx, cy - r); ctx.lineTo(cx + r, cy); ctx.lineTo(cx, cy + r); ctx.lineTo(cx - r, cy);
  ctx.closePath();
}

/**
 * Draw the heatmap into `ctx` (CSS px). `state` = {grid (readGrid), xTitle, yTitle, colorTitle,
 * title, selectedCell ({row, col} or null), hoveredCell}; `theme` = theme.json colours with `name`.
 * Returns the layout (gridLayout).
 */
export function drawHeatmap(ctx, width, height, state, theme) {
  const { grid } = state;
  ctx.save();
  ctx.font = font(theme);
  const layout = gridLayout(ctx, grid, width, height, { title: state.title, fontSize: theme.fontSize });
  const { plot, bar, cellW, cellH } = layout;
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, width, height);
  // cells, a hairline of background between them
  const inset = Math.min(0.5, cellW / 4, cellH / 4);
  for (let row = 0; row < grid.ny; row++) {
    for (let col = 0; col < grid.nx; col++) {
      const b = cellBox(layout, row, col);
      ctx.fillStyle = cellColor(grid, row, col, theme.name);
      ctx.beginPath();
      ctx.rect(b.x + inset, b.y + inset, b.w - 2 * inset, b.h - 2 * inset);
      ctx.fill();
    }
  }
  ctx.strokeStyle = theme.axis;
  ctx.lineWidth = 1;
  ctx.strokeRect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top);
  // tick labels: the kernel's, with their units
  ctx.fillStyle = theme.text;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  grid.yLabels.forEach((label, row) => {
    const b = cellBox(layout, row, 0);
    ctx.fillText(String(label), plot.left - TICK - 2, b.y + b.h / 2);
  });
  grid.xLabels.forEach((label, col) => {
    const b = cellBox(layout, 0, col);
    const cx = b.x + b.w / 2;
    if (layout.rotate) {
      ctx.save();
      ctx.translate(cx, plot.bottom + TICK + 2);
      ctx.rotate(-Math.PI / 4);
      ctx.textAlign = "right";
      ctx.fillText(String(label), 0, 0);
      ctx.restore();
    } else {
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      ctx.fillText(String(label), cx, plot.bottom + TICK + 2);
    }
  });
  // axis titles
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  ctx.fillText(state.xTitle ?? "", (plot.left + plot.right) / 2, height - 4);
  fillVertical(ctx, state.yTitle ?? "", 4 + TITLE_BAND / 2, (plot.top + plot.bottom) / 2);
  fillTitle(ctx, state.title, plot, theme);
  // the colour bar: the kernel's steps low to high, or two named swatches
  const barH = bar.bottom - bar.top;
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  if (grid.boolean) {
    const swatches = grid.swatches[theme.name] ?? grid.swatches.light ?? [];
    swatches.forEach(([label, colour], k) => {
      const h = barH / Math.max(1, swatches.length);
      const y = bar.bottom - (k + 1) * h;
      ctx.fillStyle = colour;
      ctx.beginPath(); ctx.rect(bar.left, y, BAR_WIDTH, h); ctx.fill();
      ctx.fillStyle = theme.text;
      ctx.fillText(label, bar.right + TICK + 2, y + h / 2);
    });
  } else {
    const steps = Math.floor(grid.barRgb.length / 3);
    for (let k = 0; k < steps; k++) {
      const y0 = bar.bottom - ((k + 1) / steps) * barH;
      ctx.fillStyle = `#${hex(grid.barRgb[3 * k])}${hex(grid.barRgb[3 * k + 1])}${hex(grid.barRgb[3 * k + 2])}`;
      ctx.fillRect(bar.left, y0, BAR_WIDTH, barH / steps + 0.5);
    }
    ctx.fillStyle = theme.text;
    for (const k of spacedTicks(grid.ticks.map(([s]) => s * barH))) {
      const [s, label] = grid.ticks[k];
      const y = bar.bottom - s * barH;
      ctx.strokeStyle = theme.axis;
      ctx.beginPath(); ctx.moveTo(bar.right, y); ctx.lineTo(bar.right + TICK, y); ctx.stroke();
      ctx.fillText(label, bar.right + TICK + 2, y);
    }
  }
  ctx.strokeStyle = theme.axis;
  ctx.strokeRect(bar.left, bar.top, BAR_WIDTH, barH);
  ctx.save();
  ctx.translate(width - 4 - TITLE_BAND / 2, (bar.top + bar.bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = "center";
  ctx.fillStyle = theme.text;
  ctx.fillText(state.colorTitle ?? "", 0, 0);
  ctx.restore();
  // the hovered cell (thin), the selected one (thick), the best one's ◆
  for (const [cell, lineWidth] of [[state.hoveredCell, 1.5], [state.selectedCell, 2.5]]) {
    if (!cell) continue;
    const b = cellBox(layout, cell.row, cell.col);
    ctx.strokeStyle = theme.highlight;
    ctx.lineWidth = lineWidth;
    ctx.beginPath(); ctx.rect(b.x + 1, b.y + 1, b.w - 2, b.h - 2); ctx.stroke();
  }
  if (grid.bestCell) {
    const b = cellBox(layout, grid.bestCell[0], grid.bestCell[1]);
    diamond(ctx, b.x + b.w / 2, b.y + b.h / 2, Math.max(3, Math.min(9, b.w / 3, b.h / 3)));
    ctx.fillStyle = grid.bestColor;
    ctx.fill();
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = "#ffffff";
    ctx.stroke();
  }
  ctx.restore();
  return layout;
}
