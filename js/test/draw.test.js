import assert from "node:assert/strict";
import { test } from "node:test";
import { piecesToDraw } from "../diagram/aggregate.js";
import { lighten } from "../shared/color.js";
import { drawFigure, drawPieces } from "../diagram/draw.js";
import { legendEntries, sceneFeatures } from "../shared/legend.js";
import { layoutFigure } from "../diagram/layout.js";
import { readoutLines, readoutText } from "../diagram/readout.js";
import { linearScale } from "../shared/scale.js";
import { buildSceneIndex } from "../diagram/scene-index.js";
import { THEME } from "../shared/theme.js";
import { RecordingContext } from "../testing/fake-context.js";
import { bottomPiece, makeScene, sequentialScene, stackedScene } from "../testing/scene-fixtures.js";

const COLORS = ["#0072b2", "#e69f00", "#009e73"];
const plot = { left: 100, right: 900, top: 20, bottom: 360 };

function geometry(scene, domain = [0, scene.x_max]) {
  return {
    x: linearScale(domain[0], domain[1], plot.left, plot.right),
    y: linearScale(0, 1.3, plot.bottom, plot.top),
    plot, colors: COLORS, ratio: 1,
  };
}

function draw(scene, domain) {
  const ctx = new RecordingContext();
  const g = geometry(scene, domain);
  const index = buildSceneIndex(scene);
  const d = domain ?? [0, scene.x_max];
  drawPieces(ctx, piecesToDraw(scene, index, d[0], d[1], plot.right - plot.left), g);
  return { ctx, g };
}

const near = (a, b, tolerance = 1) => Math.abs(a - b) <= tolerance;

test("each phase's compute line: its colour, its height, its span, thick", () => {
  const scene = sequentialScene();
  const { ctx, g } = draw(scene);
  const expected = [[0, 0, 3, 0.7], [1, 3, 13, 0.2], [2, 13, 15, 0.6]];
  for (const [phase, x0, x1, line] of expected) {
    const segments = ctx.segments(COLORS[phase], { dashed: false });
    assert.equal(segments.length, 1, `phase ${phase}: one solid segment, got ${JSON.stringify(segments)}`);
    const [s] = segments;
    assert.ok(near(s.x0, g.x(x0)) && near(s.x1, g.x(x1)), `phase ${phase} spans ${s.x0}..${s.x1}`);
    assert.ok(near(s.y, g.y(line)), `phase ${phase} line at ${s.y}, expected ${g.y(line)}`);
    assert.equal(s.lineWidth, THEME.computeLineWidth);
    assert.ok(s.lineWidth >= 2, "the compute line is the thick one");
  }
  assert.equal(ctx.segments(THEME.warning).length, 0, "nothing is oversubscribed");
});

test("well, fill and guard rail of each piece", () => {
  const scene = sequentialScene();
  const { ctx, g } = draw(scene);
  const wells = ctx.rectsFilled(THEME.well);
  assert.equal(wells.length, 3);
  // B: well from its line 0.2 up to 0.45.
  const b = wells.find((r) => near(r[0], g.x(3)));
  assert.ok(near(b[1], g.y(0.45)) && near(b[1] + b[3], g.y(0.2)), JSON.stringify(b));
  // B's fill: from 0.2 to 0.2 + 0.25·0.9 = 0.425, in B's colour lightened.
  const fills = ctx.rectsFilled(lighten(COLORS[1], THEME.fillLighten));
  assert.equal(fills.length, 1);
  assert.ok(near(fills[0][1], g.y(0.425)) && near(fills[0][1] + fills[0][3], g.y(0.2)), JSON.stringify(fills[0]));
  // Rails at each well top, grey.
  const rails = ctx.segments(THEME.rail);
  assert.equal(rails.length, 3);
  assert.ok(rails.some((s) => near(s.y, g.y(0.45)) && near(s.x0, g.x(3)) && near(s.x1, g.x(13))));
});

test("no spill is drawn when every fill stays inside its well", () => {
  const { ctx } = draw(sequentialScene());
  assert.equal(ctx.fills(THEME.spillFill).length, 0);
  assert.equal(ctx.strokes(THEME.hatch).length, 0);
  assert.equal(ctx.calls.filter((c) => c.op === "clip").length, 0);
});

test("a fill above its guard rail spills in the hatched warning style, only there", () => {
  const scene = stackedScene();
  const { ctx, g } = draw(scene);
  const spills = ctx.rectsFilled(THEME.spillFill);
  assert.equal(spills.length, 1, JSON.stringify(spills));
  const [x, y, w, h] = spills[0];
  // A on B over [0, 1]: rail at 0.925, fill to 1.275.
  assert.ok(near(x, g.x(0)) && near(x + w, g.x(1)), `spill spans ${x}..${x + w}`);
  assert.ok(near(y, g.y(1.275)) && near(y + h, g.y(0.925)), `spill from ${y + h} up to ${y}`);
  const hatch = ctx.strokes(THEME.hatch);
  assert.equal(hatch.length, 1, "the spill is hatched");
  assert.ok(hatch[0].clipDepth > 0, "the hatch is clipped to the spill");
  const clip = ctx.calls.find((c) => c.op === "clip" && c.path.some((p) => p[0] === "R" && near(p[2], y)));
  assert.ok(clip, "clipped to the spill rectangle");
  // The fill inside the well stops at the rail.
  const aFills = ctx.rectsFilled(lighten(COLORS[0], THEME.fillLighten)).filter((r) => near(r[0], g.x(0)));
  assert.ok(aFills.every((r) => r[1] >= g.y(0.925) - 1), "the phase-coloured fill does not cross the rail");
});

test("the compute line is solid until dash_from, dashed after", () => {
  const scene = makeScene([bottomPiece(0, 4, 0, 0.5, 0.5, 0.25, { dash: 3 })]);
  const { ctx, g } = draw(scene);
  const solid = ctx.segments(COLORS[0], { dashed: false });
  const dashed = ctx.segments(COLORS[0], { dashed: true });
  assert.equal(solid.length, 1);
  assert.equal(dashed.length, 1);
  assert.ok(near(solid[0].x0, g.x(0)) && near(solid[0].x1, g.x(3)), JSON.stringify(solid[0]));
  assert.ok(near(dashed[0].x0, g.x(3)) && near(dashed[0].x1, g.x(4)), JSON.stringify(dashed[0]));
  assert.deepEqual(dashed[0].lineDash, THEME.dash);
  assert.ok(near(dashed[0].y, g.y(0.5)));
});

test("dash_from at x1 (or NaN) draws no dashes; at x0 it is all dashed", () => {
  const solidOnly = draw(makeScene([bottomPiece(0, 4, 0, 0.5, 0.5, 0.25, { dash: NaN })])).ctx;
  assert.equal(solidOnly.segments(COLORS[0], { dashed: true }).length, 0);
  assert.equal(solidOnly.segments(COLORS[0], { dashed: false }).length, 1);
  const dashedOnly = draw(makeScene([bottomPiece(0, 4, 0, 0.5, 0.5, 0.25, { dash: 0 })])).ctx;
  assert.equal(dashedOnly.segments(COLORS[0], { dashed: false }).length, 0);
  assert.equal(dashedOnly.segments(COLORS[0], { dashed: true }).length, 1);
});

test("a compute line over 1 (flag bit 0) is drawn in the warning colour", () => {
  const scene = makeScene([
    bottomPiece(0, 2, 1, 0.5, 0.5),
    { x0: 0, x1: 1, phase: 0, base: 0.5, line: 1.2, well: 1.225, fill: 1.2 + 0.25 * 0.2, flags: 1 },
  ]);
  const { ctx, g } = draw(scene);
  const red = ctx.segments(THEME.warning);
  assert.equal(red.length, 1);
  assert.ok(near(red[0].y, g.y(1.2)) && near(red[0].x1, g.x(1)));
  assert.equal(ctx.segments(COLORS[0]).length, 0, "the oversubscribed piece's line is not in the phase colour");
  assert.equal(ctx.segments(COLORS[1]).length, 1);
});

test("a highlighted phase keeps its colour and gets an outline; the others fade", () => {
  const scene = sequentialScene();
  const ctx = new RecordingContext();
  const g = { ...geometry(scene), highlightPhase: 1 };
  drawPieces(ctx, piecesToDraw(scene, buildSceneIndex(scene), 0, 15, 800), g);
  assert.equal(ctx.segments(COLORS[1], { dashed: false }).length, 1, "B at full strength");
  assert.equal(ctx.segments(COLORS[0]).length, 0, "A is not drawn in its full colour");
  assert.equal(ctx.segments(COLORS[2]).length, 0);
  const outline = ctx.segments(THEME.highlight);
  assert.equal(outline.length, 1);
  assert.ok(near(outline[0].y, g.y(0.2)) && outline[0].lineWidth > THEME.computeLineWidth);
  const outlineCall = ctx.calls.findIndex((c) => c.op === "stroke" && c.strokeStyle === THEME.highlight);
  const lineCall = ctx.calls.findIndex((c) => c.op === "stroke" && c.strokeStyle === COLORS[1]);
  assert.ok(outlineCall < lineCall, "the outline is under the line");
  const none = new RecordingContext();
  drawPieces(none, piecesToDraw(scene, buildSceneIndex(scene), 0, 15, 800), geometry(scene));
  assert.equal(none.segments(THEME.highlight).length, 0, "no outline without a highlighted phase");
});

// Its speed is measured by benchmarks/bench_browser.py, not asserted here (a shared, noisy machine).
test("a 10^5-piece scene draws aggregated, in a few batched calls", () => {
  const pieces = [];
  for (let k = 0; k < 100_000; k++) pieces.push(bottomPiece(k, k + 1, k % 3, 0.2 + (k % 5) / 10, 0.5));
  const scene = makeScene(pieces);
  const index = buildSceneIndex(scene);
  const ctx = new RecordingContext();
  const drawn = piecesToDraw(scene, index, 0, 100_000, 800);
  drawPieces(ctx, drawn, geometry(scene));
  assert.ok(drawn.aggregated);
  assert.ok(drawn.n <= 800 * 3, `at most columns × phases pieces, got ${drawn.n}`);
  assert.ok(ctx.calls.length < 100, `batched into few fill/stroke calls, got ${ctx.calls.length}`);
});

function figureFor(scene, extra = {}) {
  const names = ["A", "B", "C"];
  const units = { time: "s", compute: "FLOP/s", bandwidth: "B/s", ops: "FLOP", bytes: "B" };
  const input = { scene, makespan: scene.x_max, warnings: [], units, resourceNames: ["compute", "memory"] };
  return {
    scene, index: buildSceneIndex(scene), phaseNames: names, phaseColors: COLORS, units,
    resourceNames: ["compute", "memory"], yAxis: "relative", peakCompute: 25.6e12, title: "",
    readout: readoutText(input), readoutLines: readoutLines(input),
    legend: legendEntries(names, COLORS, sceneFeatures(scene)), ...extra,
  };
}

function drawWholeFigure(figure, view) {
  const ctx = new RecordingContext();
  const layout = layoutFigure(ctx, figure, view);
  const pieces = piecesToDraw(figure.scene, figure.index, layout.domain[0], layout.domain[1], layout.plot.right - layout.plot.left);
  drawFigure(ctx, figure, view, layout, pieces);
  return { ctx, layout };
}

test("the figure: grid only up to 1.0, axis labels, legend and readout as canvas text", () => {
  const figure = figureFor(sequentialScene(), { title: "Figure 2b" });
  const { ctx, layout } = drawWholeFigure(figure, { width: 900, plotHeight: 300, domain: [0, 15], ratio: 1, hovered: -1 });
  const yOne = layout.y(1);
  const grid = ctx.strokes(THEME.grid).flatMap((c) => c.path.map((p) => p[2]));
  assert.ok(grid.length > 0);
  assert.ok(grid.every((py) => py >= yOne - 1), "no grid line above utilization 1.0");
  const texts = ctx.texts();
  for (const expected of ["A", "B", "C", "time (s)", "compute utilization", "makespan 15 s", "Figure 2b", "1.0", "0"]) {
    assert.ok(texts.includes(expected), `"${expected}" not drawn; drew ${JSON.stringify(texts)}`);
  }
  assert.ok(!texts.some((t) => t.includes("<")), "no markup");
  assert.ok(layout.legend.length >= 4, "three phases and the unused-bandwidth key");
  assert.ok(layout.readout.length >= 1);
  assert.ok(layout.height > layout.plot.bottom + 40, "legend and readout sit below the plot");
});

test("absolute y axis: labels are y × peak in the compute unit", () => {
  const figure = figureFor(sequentialScene(), { yAxis: "absolute" });
  const { ctx } = drawWholeFigure(figure, { width: 900, plotHeight: 300, domain: [0, 15], ratio: 1, hovered: -1 });
  const texts = ctx.texts();
  assert.ok(texts.includes("compute (FLOP/s)"), JSON.stringify(texts));
  assert.ok(texts.includes("20 TFLOP/s"), JSON.stringify(texts));
  assert.ok(!texts.includes("compute utilization"));
});

test("fusion groups: alternating bands behind the pieces, boundaries, labels that fit", () => {
  const pieces = sequentialScene();
  const scene = makeScene([
    bottomPiece(0, 3, 0, 0.7, 0.25), bottomPiece(3, 13, 1, 0.2, 0.9), bottomPiece(13, 15, 2, 0.6, 0.4),
  ], { groups: [{ t0: 0, t1: 13, id: 0 }, { t0: 13, t1: 15, id: 1 }] });
  assert.equal(pieces.groups, 0);
  const labels = ["attention block", "a label far too long to fit in a two-second band"];
  const { ctx, layout } = drawWholeFigure(figureFor(scene, { fusionGroups: labels }), { width: 900, plotHeight: 300, domain: [0, 15], ratio: 1, hovered: -1 });
  const even = ctx.rectsFilled(THEME.groupBand);
  const odd = ctx.rectsFilled(THEME.groupBandAlternate);
  assert.equal(even.length, 1);
  assert.equal(odd.length, 1);
  assert.ok(near(even[0][0], layout.x(0)) && near(even[0][0] + even[0][2], layout.x(13)), JSON.stringify(even));
  assert.ok(near(even[0][1], layout.plot.top) && near(even[0][3], layout.plot.bottom - layout.plot.top), "spans the plot's height");
  const bandFill = ctx.calls.findIndex((c) => c.op === "fill" && c.fillStyle === THEME.groupBand);
  const firstPiece = ctx.calls.findIndex((c) => c.op === "fill" && c.fillStyle === THEME.well);
  assert.ok(bandFill >= 0 && bandFill < firstPiece, "bands are drawn behind the pieces");
  const boundaries = ctx.strokes(THEME.groupBoundary).flatMap((c) => c.path.filter((p) => p[0] === "M").map((p) => p[1]));
  assert.ok([0, 13, 15].every((t) => boundaries.some((px) => near(px, layout.x(t)))), JSON.stringify(boundaries));
  const texts = ctx.texts();
  assert.ok(texts.includes("attention block"));
  assert.ok(!texts.includes(labels[1]), "a label wider than its band is left out");
});

test("the y axis is named after the first resource", () => {
  const figure = figureFor(sequentialScene(), { resourceNames: ["network", "compute"] });
  const { ctx } = drawWholeFigure(figure, { width: 900, plotHeight: 300, domain: [0, 15], ratio: 1, hovered: -1 });
  assert.ok(ctx.texts().includes("network utilization"), JSON.stringify(ctx.texts()));
});

test("the readout lists oversubscription; the legend keys the spill style", () => {
  const scene = stackedScene();
  scene.intervals = 1;
  scene.over_t0 = Float64Array.of(0);
  scene.over_t1 = Float64Array.of(1);
  scene.over_demand = Float64Array.of(1.5);
  scene.over_resource = Uint8Array.of(1);
  const { ctx } = drawWholeFigure(figureFor(scene), { width: 900, plotHeight: 300, domain: [0, 3], ratio: 1, hovered: -1 });
  const texts = ctx.texts();
  assert.ok(texts.some((t) => t.startsWith("memory oversubscribed: up to 150% demand in 1 interval")), JSON.stringify(texts));
  assert.ok(texts.includes("memory oversubscribed"), "legend key for the spill style");
});

test("drawn at another scale: same calls, the transform carries the ratio", () => {
  const figure = figureFor(sequentialScene());
  const view = { width: 900, plotHeight: 300, domain: [0, 15], hovered: -1 };
  const one = drawWholeFigure(figure, { ...view, ratio: 1 });
  const three = drawWholeFigure(figure, { ...view, ratio: 3 });
  assert.deepEqual(three.ctx.calls.find((c) => c.op === "setTransform").args, [3, 0, 0, 3, 0, 0]);
  assert.equal(one.layout.height, three.layout.height);
  assert.deepEqual(one.ctx.texts(), three.ctx.texts());
});

test("a narrow figure wraps its legend onto more rows", () => {
  const names = Array.from({ length: 12 }, (_, i) => `phase number ${i}`);
  const figure = figureFor(sequentialScene(), { phaseNames: names, legend: legendEntries(names, COLORS, sceneFeatures(sequentialScene())) });
  const wide = layoutFigure(new RecordingContext(), figure, { width: 2000, plotHeight: 300, domain: [0, 15] });
  const narrow = layoutFigure(new RecordingContext(), figure, { width: 400, plotHeight: 300, domain: [0, 15] });
  const rows = (layout) => new Set(layout.legend.map((item) => item.y)).size;
  assert.ok(rows(narrow) > rows(wide));
  assert.ok(narrow.height > wide.height);
  assert.ok(narrow.legend.every((item) => item.x + item.width <= narrow.plot.right + 1 || item.x === narrow.plot.left));
});
