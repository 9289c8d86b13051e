import assert from "node:assert/strict";
import { test } from "node:test";
import { drawnPoints, drawRoofline, hitPoint, levelShape, plotScales, pointRadius, readGeometry } from "../roofline/draw.js";
import { themeColours } from "../shared/page-theme.js";
import { RecordingContext } from "../testing/fake-context.js";

class Context extends RecordingContext {
  arc(x, y, r) { this.path.push(["A", x, y, r]); }
  strokeRect() {}
}

const f64 = (values) => {
  const array = Float64Array.from(values);
  return { dtype: "float64", shape: [array.length], buffer: new DataView(array.buffer) };
};

// The kernel's geometry of two phases on P = 200, BW = 50 (roofline_geometry): ridge at 4.
function oneLevel() {
  return readGeometry({
    roof_x: f64([0.01, 4, 256]), roof_y: f64([0.5, 200, 200]), ridge_x: f64([4]),
    phase_x: f64([1 / 12, 32, NaN]), phase_y: f64([4.17, 200, NaN]), share: f64([0.2, 0.8, 0]),
    level_x: f64([]), level_y: f64([]), x_range: [0.01, 256], y_range: [0.25, 400], x_ticks: [0.1, 1, 10, 100],
    y_ticks: [1, 10, 100], peak_compute: 200, levels: ["memory"], hierarchical: false, ceilings: [], aggregate: [11, 160],
  });
}

test("the kernel's numbers land where the log scales put them", () => {
  const g = oneLevel();
  const s = plotScales(g, 500, 400);
  assert.equal(s.x(0.01), s.plot.left);
  assert.equal(s.x(256), s.plot.right);
  assert.ok(Math.abs(s.y(400) - s.plot.top) < 1e-9 && Math.abs(s.y(0.25) - s.plot.bottom) < 1e-9);
});

test("a phase with no work is not drawn; a longer phase is a bigger point", () => {
  const points = drawnPoints(oneLevel(), new Set());
  assert.deepEqual(points.map((p) => p.phase), [0, 1]);
  assert.ok(points[1].r > points[0].r);
  assert.ok(Math.abs(pointRadius(1) ** 2 * Math.PI - 900) < 1e-6);
});

test("hover finds the phase under the pointer, nothing off the points", () => {
  const g = oneLevel();
  const s = plotScales(g, 500, 400);
  const points = drawnPoints(g, new Set());
  assert.equal(hitPoint(points, s, s.x(32), s.y(200)), 1);
  assert.equal(hitPoint(points, s, s.x(32) + 2, s.y(200) - 2), 1);
  assert.equal(hitPoint(points, s, s.plot.left + 1, s.plot.top + 1), null);
});

test("drawing strokes the roof through the ridge and fills each phase in its colour", () => {
  const ctx = new Context();
  const theme = themeColours("light");
  const state = { geometry: oneLevel(), colors: ["#0072b2", "#e69f00", "#009e73"], units: { intensity: "FLOP/B", compute: "FLOP/s" },
    title: "roofline", shownLevels: new Set(), hovered: null };
  const { scales } = drawRoofline(ctx, 500, 400, state, theme);
  const roof = ctx.strokes(theme.text).find((c) => c.path.length === 3);
  assert.ok(roof, "no roof stroked");
  assert.deepEqual(roof.path[1].slice(1), [scales.x(4), scales.y(200)]);
  assert.equal(ctx.fills("#0072b2").length, 1);
  assert.equal(ctx.fills("#e69f00").length, 1);
  assert.equal(ctx.fills("#009e73").length, 0); // no work: not drawn
  assert.ok(ctx.texts().includes("ridge 4 FLOP/B"));
});

test("the hierarchy draws only the shown levels' points, one marker shape per level", () => {
  const g = readGeometry({
    roof_x: f64([0.1, 0.5, 100, 0.1, 2.5, 100]), roof_y: f64([20, 100, 100, 4, 100, 100]), ridge_x: f64([0.5, 2.5]),
    phase_x: f64([1]), phase_y: f64([10]), share: f64([1]), level_x: f64([0.3, NaN]), level_y: f64([10]),
    x_range: [0.1, 100], y_range: [1, 200], x_ticks: [], y_ticks: [], peak_compute: 100, levels: ["L1", "DRAM"],
    hierarchical: true, ceilings: [], aggregate: [1, 10],
  });
  assert.deepEqual(drawnPoints(g, new Set(["L1", "DRAM"])).map((p) => p.level), [0]); // DRAM unknown: no point
  assert.deepEqual(drawnPoints(g, new Set(["DRAM"])), []);
  assert.equal(levelShape(1, 2), "circle"); // the farthest level is a circle, as on one level
  assert.equal(levelShape(0, 2), "square");
});
