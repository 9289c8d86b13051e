// What to draw for the visible time domain: every piece when few are visible; otherwise the
// pieces narrower than a pixel are merged per pixel column and phase (max line, max fill, spill
// kept), so a 10^5-piece scene draws fast and zooming in brings the detail back.
import { dashStart } from "./pixels.js";
import { visiblePieces } from "./scene-index.js";

/** Above this many visible pieces, sub-pixel pieces are aggregated. */
export const DETAIL_LIMIT = 3000;

const FIELDS = {
  x0: Float64Array, x1: Float64Array, phase: Int32Array, base_y: Float32Array, line_y: Float32Array,
  well_top: Float32Array, fill_top: Float32Array, dash_from: Float64Array, flags: Uint8Array,
  source: Int32Array,
};

function allocatePieces(n) {
  const pieces = { n };
  for (const [key, Typed] of Object.entries(FIELDS)) pieces[key] = new Typed(n);
  return pieces;
}

function copyPieces(scene, indices) {
  const pieces = allocatePieces(indices.length);
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    pieces.x0[k] = scene.x0[i];
    pieces.x1[k] = scene.x1[i];
    pieces.phase[k] = scene.phase[i];
    pieces.base_y[k] = scene.base_y[i];
    pieces.line_y[k] = scene.line_y[i];
    pieces.well_top[k] = scene.well_top[i];
    pieces.fill_top[k] = scene.fill_top[i];
    pieces.dash_from[k] = scene.dash_from[i];
    pieces.flags[k] = scene.flags[i];
    pieces.source[k] = i;
  }
  return pieces;
}

/** One merged column-and-phase cell. */
function newBin(column, phase) {
  return {
    column, phase, base: Infinity, line: -Infinity, well: -Infinity, fill: -Infinity,
    spill: 0, flags: 0, time: 0, dashedTime: 0, firstIndex: Infinity,
  };
}

function addToBin(bin, scene, i) {
  const wellTop = scene.well_top[i];
  const fillTop = scene.fill_top[i];
  bin.base = Math.min(bin.base, scene.base_y[i]);
  bin.line = Math.max(bin.line, scene.line_y[i]);
  bin.well = Math.max(bin.well, wellTop);
  bin.fill = Math.max(bin.fill, Math.min(fillTop, wellTop));
  if (fillTop > wellTop) bin.spill = Math.max(bin.spill, fillTop - wellTop);
  bin.flags |= scene.flags[i];
  const x0 = scene.x0[i];
  const x1 = scene.x1[i];
  const dashFrom = dashStart(scene.dash_from[i], x0, x1);
  bin.time += x1 - x0;
  bin.dashedTime += x1 - dashFrom;
  bin.firstIndex = Math.min(bin.firstIndex, i);
}

/**
 * The pieces to draw over the domain [t0, t1] on `columns` px of width:
 * { n, x0, x1, phase, base_y, line_y, well_top, fill_top, dash_from, flags, source, aggregated }.
 * source[k] is the scene index of a copied piece, -1 for a merged one.
 */
export function piecesToDraw(scene, index, t0, t1, columns, limit = DETAIL_LIMIT) {
  const visible = visiblePieces(scene, index, t0, t1);
  if (visible.length <= limit || !(t1 > t0) || !(columns > 0)) {
    return { ...copyPieces(scene, visible), aggregated: false };
  }
  const columnCount = Math.max(1, Math.ceil(columns));
  const perColumn = columnCount / (t1 - t0);
  const wide = [];
  const bins = new Map();
  for (const i of visible) {
    const x0 = scene.x0[i];
    const x1 = scene.x1[i];
    if ((x1 - x0) * perColumn >= 1) {
      wide.push(i);
      continue;
    }
    const middle = (x0 + x1) / 2;
    const column = Math.min(columnCount - 1, Math.max(0, Math.floor((middle - t0) * perColumn)));
    const phase = scene.phase[i];
    const key = column * 65536 + (phase & 0xffff);
    let bin = bins.get(key);
    if (!bin) bins.set(key, (bin = newBin(column, phase)));
    addToBin(bin, scene, i);
  }
  const wideCopies = copyPieces(scene, wide);
  const merged = [...bins.values()];
  const pieces = allocatePieces(wide.length + merged.length);
  // Draw order: by left edge; within a column lower stacks first, as the scene orders them.
  const items = [];
  for (let k = 0; k < wide.length; k++) items.push({ x: wideCopies.x0[k], base: wideCopies.base_y[k], rank: wide[k], wide: k });
  for (const bin of merged) items.push({ x: t0 + bin.column / perColumn, base: bin.base, rank: bin.firstIndex, bin });
  items.sort((a, b) => a.x - b.x || a.base - b.base || a.rank - b.rank);
  items.forEach((item, k) => {
    if (item.bin) {
      const bin = item.bin;
      const x0 = t0 + bin.column / perColumn;
      const x1 = t0 + (bin.column + 1) / perColumn;
      pieces.x0[k] = x0;
      pieces.x1[k] = x1;
      pieces.phase[k] = bin.phase;
      pieces.base_y[k] = bin.base;
      pieces.line_y[k] = bin.line;
      pieces.well_top[k] = bin.well;
      pieces.fill_top[k] = bin.spill > 0 ? bin.well + bin.spill : bin.fill;
      pieces.dash_from[k] = bin.dashedTime > bin.time / 2 ? x0 : x1;
      pieces.flags[k] = bin.flags | (bin.spill > 0 ? 2 : 0);
      pieces.source[k] = -1;
    } else {
      const j = item.wide;
      for (const key of Object.keys(FIELDS)) pieces[key][k] = wideCopies[key][j];
    }
  });
  return { ...pieces, aggregated: true };
}
