// The diagram's geometry: the compute axis follows compute lines (never the pipes above them), the
// spine frames everything drawn, group labels keep their room, the dashed tail reads on any fill,
// and the tooltip describes the tile under the mouse.
import assert from "node:assert/strict";
import { test } from "node:test";
import { piecesToDraw } from "../diagram/aggregate.js";
import { drawFigure, drawPieces } from "../diagram/draw.js";
import { GROUP_LABEL_ROOM, layoutFigure } from "../diagram/layout.js";
import { legendEntries, sceneFeatures } from "../shared/legend.js";
import { readoutLines, readoutText } from "../diagram/readout.js";
import { linearScale } from "../shared/scale.js";
import { buildSceneIndex } from "../diagram/scene-index.js";
import { THEME } from "../shared/theme.js";
import { RecordingContext } from "../testing/fake-context.js";
import { bottomPiece, makeScene } from "../testing/scene-fixtures.js";
import { tooltipContent } from "../shared/tooltip.js";

const COLORS = ["#0072b2", "#e69f00", "#009e73"];
const UNITS = { time: "s", compute: "FLOP/s", bandwidth: "B/s", ops: "FLOP", bytes: "B" };
const VIEW = { width: 900, plotHeight: 320, ratio: 1, hovered: -1 };

/** A compute-bound phase at full utilization: its line at 1.0, its pipe up to 1.25. */
function fullLine() {
  return makeScene([bottomPiece(0, 10, 0, 1.0, 0.05)]);
}

function figureFor(scene, extra = {}) {
  const names = ["A", "B", "C"];
  const input = { scene, makespan: scene.x_max, warnings: [], units: UNITS, resourceNames: ["compute", "memory"] };
  return {
    scene, index: buildSceneIndex(scene), phaseNames: names, phaseColors: COLORS, units: UNITS,
    resourceNames: ["compute", "memory"], yAxis: "relative", peakCompute: 60e12, title: "",
    readout: readoutText(input), readoutLines: readoutLines(input),
    legend: legendEntries(names, COLORS, sceneFeatures(scene)),
    computeTop: Math.max(1, scene.y_max), // what js/diagram/figure.js passes; the layout must not follow it to the pipes
    ...extra,
  };
}

function drawn(figure, view = {}) {
  const ctx = new RecordingContext();
  const v = { ...VIEW, domain: [0, figure.scene.x_max], ...view };
  const layout = layoutFigure(ctx, figure, v);
  const pieces = piecesToDraw(figure.scene, figure.index, layout.domain[0], layout.domain[1], layout.plot.right - layout.plot.left);
  drawFigure(ctx, figure, v, layout, pieces);
  return { ctx, layout };
}

test("absolute axis on a 60 TFLOP/s machine ends at 60 TFLOP/s, whatever the pipes above the line", () => {
  const { ctx, layout } = drawn(figureFor(fullLine(), { yAxis: "absolute" }));
  const top = Math.max(...layout.yTicks.map((t) => t.y));
  assert.ok(top <= 1 + 1e-9, `ticks reach ${top * 60} TFLOP/s: ${JSON.stringify(layout.yTicks)}`);
  const texts = ctx.texts();
  assert.ok(texts.includes("60 TFLOP/s"), JSON.stringify(texts));
  assert.ok(!texts.includes("70 TFLOP/s"), JSON.stringify(texts));
});

test("relative axis: no utilization ticks above 1.0 for a pipe; an oversubscribed line still gets them", () => {
  assert.ok(Math.max(...drawn(figureFor(fullLine())).layout.yTicks.map((t) => t.y)) <= 1 + 1e-9);
  const over = makeScene([bottomPiece(0, 10, 0, 0.8, 0.5), { x0: 0, x1: 10, phase: 1, base: 0.8, line: 1.5, well: 1.5, fill: 1.6 }]);
  const ticks = drawn(figureFor(over)).layout.yTicks.map((t) => t.y);
  assert.ok(Math.max(...ticks) >= 1.4 && Math.max(...ticks) <= 1.5 + 1e-9, JSON.stringify(ticks));
});

test("the spine frames the plot's height: the pipe above the top tick is inside it", () => {
  const figure = figureFor(fullLine());
  const { ctx, layout } = drawn(figure);
  const spine = ctx.strokes(THEME.axis).flatMap((c) => c.path).find((p) => p[0] === "M" && Math.abs(p[1] - layout.plot.left) < 1);
  assert.ok(spine, "a spine at the plot's left");
  const pipeTop = layout.y(figure.scene.y_max);
  assert.ok(spine[2] <= pipeTop, `the spine starts at y = ${spine[2]} px, below the pipe's top at ${pipeTop} px`);
  assert.ok(Math.abs(spine[2] - layout.plot.top) < 1, "it runs to the top of the plot");
});

test("a fusion group's label has the top of the plot to itself: the pipes stay below it", () => {
  const scene = makeScene([bottomPiece(0, 10, 0, 1.0, 0.05)], { groups: [{ t0: 0, t1: 10, id: 0 }] });
  const { ctx, layout } = drawn(figureFor(scene, { fusionGroups: ["attention"] }));
  const label = ctx.calls.find((c) => c.op === "fillText" && c.text === "attention");
  assert.ok(label, "the label is drawn");
  const fontSize = THEME.fontSize - 1;
  const labelBottom = label.y + fontSize; // textBaseline "top"
  const rail = layout.y(scene.well_top[0]);
  assert.ok(rail - THEME.railWidth / 2 > labelBottom, `the guard rail at ${rail} px strikes through the label (${label.y}–${labelBottom} px)`);
  assert.ok(layout.y(scene.y_max) - layout.plot.top >= GROUP_LABEL_ROOM - 1e-9);
  // without groups, no room is taken
  assert.ok(drawn(figureFor(fullLine())).layout.yTop < layout.yTop);
});

test("the dashed tail has gaps in the background colour under its dashes (readable on its own fill)", () => {
  // B's tile stretched by 0.6 s: dashed from 2.0 to 2.6, over its own fill
  const scene = makeScene([bottomPiece(0, 2.6, 1, 0.4, 0.9, 0.25, { dash: 2.0 })]);
  const ctx = new RecordingContext();
  const plot = { left: 100, right: 900, top: 20, bottom: 360 };
  const g = { x: linearScale(0, 2.6, plot.left, plot.right), y: linearScale(0, 1.3, plot.bottom, plot.top), plot, colors: COLORS, ratio: 1 };
  drawPieces(ctx, piecesToDraw(scene, buildSceneIndex(scene), 0, 2.6, 800), g);
  const dashes = ctx.segments(COLORS[1], { dashed: true });
  assert.equal(dashes.length, 1);
  const under = ctx.segments(THEME.background, { dashed: false });
  assert.ok(under.some((s) => Math.abs(s.x0 - dashes[0].x0) < 0.5 && Math.abs(s.x1 - dashes[0].x1) < 0.5 && s.y === dashes[0].y && s.lineWidth >= dashes[0].lineWidth),
    `no background line under the dashes: ${JSON.stringify(under)}`);
  const order = (style, dashed) => ctx.calls.findIndex((c) => c.op === "stroke" && c.strokeStyle === style && (c.lineDash.length > 0) === dashed);
  assert.ok(order(THEME.background, false) < order(COLORS[1], true), "the gaps' line is drawn first");
  assert.equal(ctx.segments(THEME.background).length, 1, "only under the dashed part");
});

test("the tooltip describes the tile: its own interval and length, the time added, its rates there", () => {
  // Phase B (10 s, 20% compute, 90% memory) in 4 tiles; tile 2 runs 2.5–5.1 s, cut in two where a
  // tile of A stops running under it, dashed (stretched) for its last 0.6 s.
  const scene = makeScene([
    { x0: 2.5, x1: 3.5, phase: 1, tile: 1, base: 0.7, line: 0.9, well: 0.9 + 0.25 * 0.4, fill: 0.9 + 0.25 * 0.5, dash: 3.5 },
    bottomPiece(3.5, 5.1, 1, 0.2 * 2.5 / 2.6, 0.9 * 2.5 / 2.6, 0.25, { tile: 1, dash: 4.5 }),
  ]);
  const table = {
    duration: Float64Array.of(3, 10), compute_util: Float64Array.of(0.7, 0.2), memory_util: Float64Array.of(0.6, 0.9),
    ops: Float64Array.of(1, 2), bytes: Float64Array.of(1, 2), intensity: Float64Array.of(1, 1),
    t_sol: Float64Array.of(3, 10), efficiency: Float64Array.of(1, 1), bound: Uint8Array.of(0, 1),
  };
  const figure = { scene, phaseTable: table, units: UNITS, resourceNames: ["compute", "memory"], phaseNames: ["A", "B"], tiled: true };
  for (const i of [0, 1]) {
    const { title, rows } = tooltipContent(figure, i);
    const row = Object.fromEntries(rows);
    assert.equal(title, "B · tile 2");
    assert.equal(row.time, "2.5–5.1 s", JSON.stringify(rows));
    assert.equal(row.duration, "2.6 s", "the tile's own length, not the phase's 10 s");
    assert.equal(row["added by dilation/throttling"], "0.6 s (30% longer)");
    assert.equal(row["phase duration"], "10 s");
  }
  const first = Object.fromEntries(tooltipContent(figure, 0).rows);
  assert.equal(first["compute utilization"], "20% (2.5–3.5 s)");
  assert.equal(first["memory utilization"], "50% (2.5–3.5 s)");
  const second = Object.fromEntries(tooltipContent(figure, 1).rows);
  assert.equal(second["compute utilization"], "19.2% (3.5–5.1 s)");
  assert.equal(second["memory utilization"], "86.5% (3.5–5.1 s)");
});

test("an untiled phase that ran as requested: one interval, its duration, nothing added", () => {
  const scene = makeScene([bottomPiece(0, 3, 0, 0.7, 0.25), bottomPiece(3, 13, 1, 0.2, 0.9)]);
  const table = { duration: Float64Array.of(3, 10), compute_util: Float64Array.of(0.7, 0.2), memory_util: Float64Array.of(0.25, 0.9) };
  const figure = { scene, phaseTable: table, units: UNITS, resourceNames: ["compute", "memory"], phaseNames: ["A", "B"], tiled: false };
  const { title, rows } = tooltipContent(figure, 1);
  const row = Object.fromEntries(rows);
  assert.equal(title, "B");
  assert.equal(row.time, "3–13 s");
  assert.equal(row.duration, "10 s");
  assert.equal(row["compute utilization"], "20%");
  assert.equal(row["memory utilization"], "90%");
  assert.ok(!("added by dilation/throttling" in row) && !("phase duration" in row), JSON.stringify(rows));
});

test("a latency-bound phase's tooltip names its bound: the memory level's latency (model/phase_arrays.py code 3)", () => {
  const scene = makeScene([bottomPiece(0, 3, 0, 0.7, 0.25), bottomPiece(3, 13, 1, 0.0, 0.01)]);
  const table = { duration: Float64Array.of(3, 10), bound: Uint8Array.of(0, 3) };
  const figure = { scene, phaseTable: table, units: UNITS, resourceNames: ["compute", "DRAM"], phaseNames: ["A", "B"], tiled: false };
  assert.equal(Object.fromEntries(tooltipContent(figure, 0).rows).bound, "compute");
  assert.equal(Object.fromEntries(tooltipContent(figure, 1).rows).bound, "DRAM latency");
});
