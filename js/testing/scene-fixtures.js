// Hand-made decoded scenes for the tests (the shape decodeScene returns).

/**
 * pieces: [{ x0, x1, phase, tile, base, line, well, fill, dash, flags }], intervals: [{ t0, t1,
 * demand, resource }], groups: [{ t0, t1, id }]
 */
export function makeScene(pieces, { pipeWidth = 0.25, intervals = [], groups = [] } = {}) {
  const n = pieces.length;
  const scene = {
    n,
    pipe_width: pipeWidth,
    x_max: n ? Math.max(...pieces.map((p) => p.x1)) : 0,
    y_max: Math.max(1 + pipeWidth, ...pieces.map((p) => Math.max(p.well, p.fill, p.line))),
    x0: Float64Array.from(pieces, (p) => p.x0),
    x1: Float64Array.from(pieces, (p) => p.x1),
    phase: Int32Array.from(pieces, (p) => p.phase ?? 0),
    tile: Int32Array.from(pieces, (p) => p.tile ?? 0),
    base_y: Float32Array.from(pieces, (p) => p.base ?? 0),
    line_y: Float32Array.from(pieces, (p) => p.line),
    well_top: Float32Array.from(pieces, (p) => p.well),
    fill_top: Float32Array.from(pieces, (p) => p.fill),
    dash_from: Float64Array.from(pieces, (p) => p.dash ?? p.x1),
    flags: Uint8Array.from(pieces, (p) => p.flags ?? ((p.line > 1 ? 1 : 0) | (p.fill > p.well ? 2 : 0))),
    intervals: intervals.length,
    over_t0: Float64Array.from(intervals, (o) => o.t0),
    over_t1: Float64Array.from(intervals, (o) => o.t1),
    over_demand: Float64Array.from(intervals, (o) => o.demand),
    over_resource: Uint8Array.from(intervals, (o) => o.resource),
    groups: groups.length,
    group_t0: Float64Array.from(groups, (g) => g.t0),
    group_t1: Float64Array.from(groups, (g) => g.t1),
    group_id: Int32Array.from(groups, (g) => g.id),
  };
  return scene;
}

/** A phase alone on the bottom: compute line at cu, well of full pipe width, fill w·mu. */
export function bottomPiece(x0, x1, phase, cu, mu, w = 0.25, extra = {}) {
  return { x0, x1, phase, base: 0, line: cu, well: cu + w, fill: cu + w * mu, ...extra };
}

/** The paper's Figure 2b: A 0–3 (0.7, 0.25), B 3–13 (0.2, 0.9), C 13–15 (0.6, 0.4). */
export function sequentialScene() {
  return makeScene([
    bottomPiece(0, 3, 0, 0.7, 0.25),
    bottomPiece(3, 13, 1, 0.2, 0.9),
    bottomPiece(13, 15, 2, 0.6, 0.4),
  ]);
}

/** B at the bottom (0.2, mem 0.9) with A (0.7, mem 0.6) stacked on it: memory spills. */
export function stackedScene() {
  const w = 0.25;
  return makeScene([
    bottomPiece(0, 2, 1, 0.2, 0.9),
    { x0: 0, x1: 1, phase: 0, base: 0.2, line: 0.9, well: 0.9 + w * 0.1, fill: 0.9 + w * 1.5 },
    bottomPiece(2, 3, 0, 0.7, 0.6),
  ]);
}
