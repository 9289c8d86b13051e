import assert from "node:assert/strict";
import { test } from "node:test";
import { DETAIL_LIMIT, piecesToDraw } from "../diagram/aggregate.js";
import { buildSceneIndex } from "../diagram/scene-index.js";
import { makeScene, sequentialScene } from "../testing/scene-fixtures.js";

/** n tiles alternating phases 0/1 over [0, n), with tile k of phase 1 spilling when k % 97 == 0. */
function manyTiles(n) {
  const pieces = [];
  for (let k = 0; k < n; k++) {
    const phase = k % 2;
    const line = phase ? 0.2 : 0.7 + 0.1 * ((k % 10) / 10);
    const spills = phase === 1 && k % 97 === 0;
    pieces.push({ x0: k, x1: k + 1, phase, tile: k, line, well: line + 0.25, fill: spills ? line + 0.4 : line + 0.1 });
  }
  return makeScene(pieces);
}

test("few visible pieces are copied as they are", () => {
  const scene = sequentialScene();
  const drawn = piecesToDraw(scene, buildSceneIndex(scene), 0, 15, 800);
  assert.equal(drawn.aggregated, false);
  assert.equal(drawn.n, 3);
  assert.deepEqual([...drawn.source], [0, 1, 2]);
  assert.deepEqual([...drawn.line_y].map((v) => +v.toFixed(3)), [0.7, 0.2, 0.6]);
});

test("many sub-pixel pieces merge per pixel column and phase", () => {
  const scene = manyTiles(100_000);
  const index = buildSceneIndex(scene);
  const drawn = piecesToDraw(scene, index, 0, 100_000, 1000);
  assert.equal(drawn.aggregated, true);
  assert.ok(drawn.n <= 1000 * 2, `at most columns × phases pieces, got ${drawn.n}`);
  assert.ok(drawn.n >= 1000, `every column has something, got ${drawn.n}`);
  assert.ok([...drawn.source].every((s) => s === -1));
  // Column 0 covers tiles 0..99: phase 0 (even tiles) peaks at 0.7 + 0.08, phase 1 sits at 0.2.
  const column0 = [...Array(drawn.n).keys()].filter((k) => drawn.x0[k] === 0);
  const lines = Object.fromEntries(column0.map((k) => [drawn.phase[k], drawn.line_y[k]]));
  assert.ok(Math.abs(lines[0] - 0.78) < 1e-6, JSON.stringify(lines));
  assert.ok(Math.abs(lines[1] - 0.2) < 1e-6);
  // Spills survive aggregation (tile 97 is phase 1 and spills, in column 0).
  const phase1 = column0.find((k) => drawn.phase[k] === 1);
  assert.ok(drawn.fill_top[phase1] > drawn.well_top[phase1], "the spill is kept");
  assert.equal(drawn.flags[phase1] & 2, 2);
  // Spilling tiles (odd multiples of 97) are rarer than columns: some columns must not spill.
  const anySpillFree = [...Array(drawn.n).keys()].some((k) => drawn.phase[k] === 1 && drawn.fill_top[k] <= drawn.well_top[k]);
  assert.ok(anySpillFree, "columns without a spilling tile do not spill");
});

test("within a column, lower stacks are drawn first", () => {
  const pieces = [];
  for (let k = 0; k < 5000; k++) {
    pieces.push({ x0: k, x1: k + 1, phase: 1, line: 0.2, well: 0.45, fill: 0.4 });
    pieces.push({ x0: k, x1: k + 0.5, phase: 0, base: 0.2, line: 0.9, well: 0.925, fill: 1.0 });
  }
  const scene = makeScene(pieces);
  const drawn = piecesToDraw(scene, buildSceneIndex(scene), 0, 5000, 500);
  assert.equal(drawn.aggregated, true);
  for (let k = 1; k < drawn.n; k++) {
    if (drawn.x0[k] === drawn.x0[k - 1]) assert.ok(drawn.base_y[k] >= drawn.base_y[k - 1]);
  }
});

test("zooming in brings the detail back", () => {
  const scene = manyTiles(100_000);
  const index = buildSceneIndex(scene);
  const drawn = piecesToDraw(scene, index, 500, 600, 1000);
  assert.equal(drawn.aggregated, false);
  assert.equal(drawn.n, 100);
  assert.equal(drawn.source[0], 500);
});

test("pieces wider than a pixel are never merged", () => {
  const pieces = [{ x0: 0, x1: 5000, phase: 2, line: 0.5, well: 0.75, fill: 0.6 }];
  for (let k = 0; k < DETAIL_LIMIT + 10; k++) pieces.push({ x0: 5000 + k * 0.01, x1: 5000 + (k + 1) * 0.01, phase: 0, line: 0.3, well: 0.55, fill: 0.4 });
  const scene = makeScene(pieces);
  const drawn = piecesToDraw(scene, buildSceneIndex(scene), 0, 5100, 510);
  assert.equal(drawn.aggregated, true);
  const wide = [...Array(drawn.n).keys()].filter((k) => drawn.source[k] === 0);
  assert.equal(wide.length, 1);
  assert.equal(drawn.x1[wide[0]], 5000);
});

test("above the raster limit the visible pieces are handed over whole, to be drawn per pixel", () => {
  // (Speed is measured by benchmarks/bench_browser.py, not asserted in a unit test.)
  const scene = manyTiles(100_000);
  const drawn = piecesToDraw(scene, buildSceneIndex(scene), 0, 100_000, 1200, DETAIL_LIMIT, { rasterLimit: 20_000 });
  assert.equal(drawn.aggregated, true);
  assert.equal(drawn.raster.length, 100_000);
  const zoomed = piecesToDraw(scene, buildSceneIndex(scene), 0, 1000, 1200, DETAIL_LIMIT, { rasterLimit: 20_000 });
  assert.equal(zoomed.raster, undefined, "few visible: drawn as vectors");
});
