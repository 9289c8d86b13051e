import assert from "node:assert/strict";
import { test } from "node:test";
import { legendEntries, sceneFeatures } from "../shared/legend.js";
import { readoutLines, readoutText } from "../diagram/readout.js";
import { MERGED, tooltipContent } from "../shared/tooltip.js";
import { bottomPiece, makeScene, sequentialScene, stackedScene } from "../testing/scene-fixtures.js";

const units = { time: "s", compute: "FLOP/s", bandwidth: "B/s", ops: "FLOP", bytes: "B" };

function withIntervals(scene, intervals) {
  scene.intervals = intervals.length;
  scene.over_t0 = Float64Array.from(intervals, (o) => o[0]);
  scene.over_t1 = Float64Array.from(intervals, (o) => o[1]);
  scene.over_resource = Uint8Array.from(intervals, (o) => o[2]);
  scene.over_demand = Float64Array.from(intervals, (o) => o[3]);
  return scene;
}

test("readout text: makespan with unit, one line per interval, warnings as given", () => {
  const scene = withIntervals(sequentialScene(), [[0.75, 1.5, 1, 1.5], [3.25, 4, 1, 1.5], [5, 6, 0, 1.2]]);
  const text = readoutText({ scene, makespan: 10.75, warnings: ["phase 'X': memory utilization 1.2 > 1"], units, resourceNames: ["compute", "memory"] });
  assert.equal(text.makespan, "10.75 s");
  assert.deepEqual(text.intervals, ["memory 150% demand, 0.75–1.5 s", "memory 150% demand, 3.25–4 s", "compute 120% demand, 5–6 s"]);
  assert.deepEqual(text.warnings, ["phase 'X': memory utilization 1.2 > 1"]);
  assert.equal(readoutText({ scene, makespan: 13.125, units }).makespan, "13.125 s", "full precision");
  assert.equal(readoutText({ scene, makespan: undefined, units }).makespan, "15 s", "falls back on x_max");
});

test("canvas readout: makespan, then one summary per oversubscribed resource", () => {
  const scene = withIntervals(sequentialScene(), [[0.75, 1.5, 1, 1.5], [3.25, 4, 1, 1.6], [5, 6, 0, 1.2]]);
  const lines = readoutLines({ scene, makespan: 10.75, units, resourceNames: ["compute", "memory"] });
  assert.deepEqual(lines.map((l) => l.text), [
    "makespan 10.75 s",
    "compute oversubscribed: up to 120% demand in 1 interval, 5–6 s",
    "memory oversubscribed: up to 160% demand in 2 intervals, 0.75–4 s",
  ]);
  assert.equal(readoutLines({ scene: sequentialScene(), makespan: 15, units }).length, 1);
});

test("legend: phases in order, style keys only for styles the scene uses", () => {
  const plain = legendEntries(["A", "B"], ["#0072b2", "not a colour"], sceneFeatures(sequentialScene()));
  assert.deepEqual(plain.map((e) => e.kind), ["phase", "phase", "well"]);
  assert.equal(plain[1].color, "#808080", "a malformed colour becomes grey");
  const busy = sceneFeatures(makeScene([
    bottomPiece(0, 2, 0, 0.5, 0.5, 0.25, { dash: 1 }),
    { x0: 0, x1: 1, phase: 1, base: 0.5, line: 1.1, well: 1.1, fill: 1.3 },
  ]));
  assert.deepEqual(busy, { spill: true, computeOver: true, dashed: true, critical: false });
  assert.deepEqual(sceneFeatures(stackedScene()), { spill: true, computeOver: false, dashed: false, critical: false });
});

test("tooltip: name, duration, utilizations, volumes, OI, bound, efficiency", () => {
  const f64 = (...v) => Float64Array.from(v);
  const figure = {
    scene: sequentialScene(),
    phaseNames: ["A", "B", "C"],
    units,
    resourceNames: ["compute", "memory"],
    phaseTable: {
      duration: f64(3, 10, 2), compute_util: f64(0.7, 0.2, 0.6), memory_util: f64(0.25, 0.9, 0.4),
      ops: f64(5.376e13, 5.12e13, 3.072e13), bytes: f64(1.2e12, 1.44e13, 1.28e12),
      intensity: f64(44.8, 3.56, 24), t_sol: f64(2.1, 9, 1.2), efficiency: f64(0.7, 0.9, NaN),
      bound: Uint8Array.of(0, 1, 2),
    },
  };
  const b = tooltipContent(figure, 1);
  assert.equal(b.title, "B");
  const rows = Object.fromEntries(b.rows);
  assert.equal(rows.duration, "10 s");
  assert.equal(rows["compute utilization"], "20%");
  assert.equal(rows["memory utilization"], "90%");
  assert.equal(rows["compute volume"], "51.2 TFLOP");
  assert.equal(rows["memory volume"], "14.4 TB");
  assert.equal(rows["operational intensity"], "3.56 FLOP/B");
  assert.equal(rows.bound, "memory");
  assert.equal(rows.efficiency, "90%");
  const c = Object.fromEntries(tooltipContent(figure, 2).rows);
  assert.equal(c.bound, "balanced");
  assert.equal(c.efficiency, "—", "non-finite reads as a dash");
  // the tile's interval and rates come from the scene; the phase's totals from its table
  const missingTable = Object.fromEntries(tooltipContent({ ...figure, phaseTable: {} }, 0).rows);
  assert.equal(missingTable.duration, "3 s");
  assert.equal(missingTable["compute volume"], "—");
  assert.equal(tooltipContent({ ...figure, tiled: true }, 0).title, "A · tile 1");
  const merged = { ...figure.scene, flags: Uint8Array.from(figure.scene.flags, (f, i) => (i === 0 ? f | MERGED : f)) };
  assert.equal(tooltipContent({ ...figure, scene: merged, tiled: true }, 0).title, "A · several tiles (zoom in for each)");
});
