// What to draw for the visible time domain: every piece when few are visible; otherwise the
// pieces narrower than a pixel are merged per pixel column and phase, so a 10^5-piece scene draws
// fast and zooming in brings the detail back. The rule is campaign_widget/figures/scene_pixels.py's
// merge_pixel_columns, which the kernel and the static figure use; the golden cases in
// tests/data/golden/aggregate.json hold this port to it.
import { dashStart } from "../shared/pixels.js";
import { visiblePieces } from "./scene-index.js";

/** Above this many visible pieces, sub-pixel pieces are aggregated. */
export const DETAIL_LIMIT = 3000;
/** Flag bit of a piece that stands for several pieces of one phase in one pixel column. */
export const MERGED = 4;

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

/**
 * Merged column-and-phase cells in flat arrays (slot k), found through a dense table when
 * columns × phases is small, else through a Map.
 */
class Bins {
  constructor(columns, phases) {
    this.phases = phases;
    this.dense = columns * phases <= 1 << 20 ? new Int32Array(columns * phases).fill(-1) : null;
    this.sparse = this.dense ? null : new Map();
    this.count = 0;
    this.capacity = 0;
    this.grow(1024);
  }
  grow(capacity) {
    const fields = { column: Int32Array, phase: Int32Array, base: Float64Array, line: Float64Array, well: Float64Array,
      fill: Float64Array, spill: Float64Array, flags: Uint8Array, time: Float64Array, dashedTime: Float64Array, first: Int32Array,
      members: Int32Array };
    for (const [key, Typed] of Object.entries(fields)) {
      const next = new Typed(capacity);
      if (this[key]) next.set(this[key]);
      this[key] = next;
    }
    this.capacity = capacity;
  }
  slot(column, phase, i) {
    const key = column * this.phases + phase;
    let k = this.dense ? this.dense[key] : this.sparse.get(key) ?? -1;
    if (k >= 0) return k;
    k = this.count++;
    if (k >= this.capacity) this.grow(this.capacity * 2);
    if (this.dense) this.dense[key] = k;
    else this.sparse.set(key, k);
    this.column[k] = column;
    this.phase[k] = phase;
    this.base[k] = Infinity;
    this.line[k] = -Infinity;
    this.well[k] = -Infinity;
    this.fill[k] = -Infinity;
    this.first[k] = i;
    this.members[k] = 0;
    return k;
  }
  add(k, scene, i) {
    const wellTop = scene.well_top[i];
    const fillTop = scene.fill_top[i];
    if (scene.base_y[i] < this.base[k]) this.base[k] = scene.base_y[i];
    if (scene.line_y[i] > this.line[k]) this.line[k] = scene.line_y[i];
    if (wellTop > this.well[k]) this.well[k] = wellTop;
    const inside = fillTop < wellTop ? fillTop : wellTop;
    if (inside > this.fill[k]) this.fill[k] = inside;
    if (fillTop - wellTop > this.spill[k]) this.spill[k] = fillTop - wellTop;
    this.flags[k] |= scene.flags[i];
    this.members[k] += 1;
    const x0 = scene.x0[i];
    const x1 = scene.x1[i];
    this.time[k] += x1 - x0;
    this.dashedTime[k] += x1 - dashStart(scene.dash_from[i], x0, x1);
  }
}

/**
 * The pieces to draw over the domain [t0, t1] on `columns` px of width:
 * { n, x0, x1, phase, base_y, line_y, well_top, fill_top, dash_from, flags, source, aggregated }.
 * source[k] is the scene index of a copied piece, -1 for a merged one.
 */
export function piecesToDraw(scene, index, t0, t1, columns, limit = DETAIL_LIMIT, { rasterLimit = Infinity } = {}) {
  const visible = visiblePieces(scene, index, t0, t1);
  // Very many: drawn per pixel straight from the scene (raster.js); `raster` holds their indices.
  if (visible.length > rasterLimit && t1 > t0 && columns > 0) return { n: visible.length, raster: visible, aggregated: true };
  if (visible.length <= limit || !(t1 > t0) || !(columns > 0)) {
    return { ...copyPieces(scene, visible), aggregated: false };
  }
  const columnCount = Math.max(1, Math.ceil(columns));
  const perColumn = columnCount / (t1 - t0);
  let phases = 1;
  for (let k = 0; k < visible.length; k++) phases = Math.max(phases, scene.phase[visible[k]] + 1);
  const bins = new Bins(columnCount, phases);
  const wide = [];
  for (let k = 0; k < visible.length; k++) {
    const i = visible[k];
    const x0 = scene.x0[i];
    const x1 = scene.x1[i];
    const phase = scene.phase[i];
    if ((x1 - x0) * perColumn >= 1 || phase < 0) {
      wide.push(i);
      continue;
    }
    const column = Math.min(columnCount - 1, Math.max(0, Math.floor(((x0 + x1) / 2 - t0) * perColumn)));
    bins.add(bins.slot(column, phase, i), scene, i);
  }
  let merging = false;
  for (let b = 0; b < bins.count; b++) {
    if (bins.members[b] > 1) merging = true;
    else wide.push(bins.first[b]); // a cell of one piece keeps that piece
  }
  // No column holds two pieces of a phase: the window as it is, in scene order.
  if (!merging) return { ...copyPieces(scene, visible), aggregated: false };
  const wideCopies = copyPieces(scene, wide);
  // Draw order: by left edge; within a column lower stacks first, then scene order.
  const order = [];
  for (let k = 0; k < wide.length; k++) order.push({ x: wideCopies.x0[k], base: wideCopies.base_y[k], rank: wide[k], wide: k });
  for (let b = 0; b < bins.count; b++) if (bins.members[b] > 1) order.push({ x: t0 + bins.column[b] / perColumn, base: bins.base[b], rank: bins.first[b], bin: b });
  order.sort((a, b) => a.x - b.x || a.base - b.base || a.rank - b.rank);
  const pieces = allocatePieces(order.length);
  for (let k = 0; k < order.length; k++) {
    const item = order[k];
    if (item.bin === undefined) {
      for (const key of Object.keys(FIELDS)) pieces[key][k] = wideCopies[key][item.wide];
      continue;
    }
    const b = item.bin;
    const x0 = t0 + bins.column[b] / perColumn;
    const x1 = t0 + (bins.column[b] + 1) / perColumn;
    const spill = bins.spill[b];
    pieces.x0[k] = x0;
    pieces.x1[k] = x1;
    pieces.phase[k] = bins.phase[b];
    pieces.base_y[k] = bins.base[b];
    pieces.line_y[k] = bins.line[b];
    pieces.well_top[k] = bins.well[b];
    pieces.fill_top[k] = spill > 0 ? bins.well[b] + spill : bins.fill[b];
    pieces.dash_from[k] = bins.dashedTime[b] > bins.time[b] / 2 ? x0 : x1;
    pieces.flags[k] = bins.flags[b] | (spill > 0 ? 2 : 0) | MERGED;
    pieces.source[k] = -1;
  }
  return { ...pieces, aggregated: true };
}
