// The critical path drawn from the scene's flag bit 3 (js/diagram/CONTRACT.md, "scene"): a bold edge
// in THEME.critical around the compute line of exactly the flagged pieces, vector and per pixel, in
// both themes, and a legend key.
import assert from "node:assert/strict";
import { test } from "node:test";
import { piecesToDraw } from "../diagram/aggregate.js";
import { drawPieces } from "../diagram/draw.js";
import { packColor, rasterizePieces } from "../diagram/raster.js";
import { buildSceneIndex } from "../diagram/scene-index.js";
import { CRITICAL, legendEntries, sceneFeatures } from "../shared/legend.js";
import { linearScale } from "../shared/scale.js";
import { THEME, useTheme } from "../shared/theme.js";
import { tooltipContent } from "../shared/tooltip.js";
import { RecordingContext } from "../testing/fake-context.js";
import { bottomPiece, makeScene } from "../testing/scene-fixtures.js";

const COLORS = ["#0072b2", "#e69f00", "#009e73"];
const plot = { left: 0, right: 1000, top: 0, bottom: 130 };

// A on [0, 3), B on [3, 13), C on [13, 15): A and C on the path, B off it.
function pathScene() {
  return makeScene([
    bottomPiece(0, 3, 0, 0.7, 0.25, 0.25, { flags: CRITICAL }),
    bottomPiece(3, 13, 1, 0.2, 0.9),
    bottomPiece(13, 15, 2, 0.6, 0.4, 0.25, { flags: CRITICAL }),
  ]);
}

function vector(scene) {
  const ctx = new RecordingContext();
  const g = { x: linearScale(0, scene.x_max, plot.left, plot.right), y: linearScale(0, 1.3, plot.bottom, plot.top), plot, colors: COLORS, ratio: 1 };
  drawPieces(ctx, piecesToDraw(scene, buildSceneIndex(scene), 0, scene.x_max, plot.right - plot.left), g);
  return { ctx, g };
}

for (const theme of ["light", "dark"]) {
  test(`${theme}: a bold edge in the theme's critical colour around the flagged pieces' compute lines only`, () => {
    useTheme(theme);
    try {
      const scene = pathScene();
      const { ctx, g } = vector(scene);
      const edges = ctx.segments(THEME.critical);
      assert.equal(edges.length, 2, JSON.stringify(edges));
      for (const [x0, x1, line] of [[0, 3, 0.7], [13, 15, 0.6]]) {
        const e = edges.find((s) => Math.abs(s.x0 - g.x(x0)) <= 1);
        assert.ok(e && Math.abs(e.x1 - g.x(x1)) <= 1, `an edge over [${x0}, ${x1})`);
        assert.ok(Math.abs(e.y - g.y(line)) <= 1, `at the compute line ${line}`);
        assert.equal(e.lineWidth, THEME.computeLineWidth + 2 * THEME.criticalWidth, "wider than the line it edges");
      }
      assert.ok(!edges.some((s) => s.x0 < g.x(13) && s.x1 > g.x(3) + 1), "B (off the path) has no edge");
      assert.notEqual(THEME.critical, THEME.background, "the edge reads on the background");
    } finally {
      useTheme("light");
    }
  });
}

test("per pixel: the edge's rows above and below the compute line are the critical colour, only where flagged", () => {
  const width = 150;
  const height = 130;
  const scene = pathScene();
  const pixels = new Uint32Array(width * height);
  const visible = Int32Array.from({ length: scene.n }, (_, i) => i);
  rasterizePieces(pixels, width, height, scene, visible, {
    x: linearScale(0, scene.x_max, 0, width), y: linearScale(0, 1.3, height, 0), ratio: 1, left: 0, top: 0, colors: COLORS,
  });
  const at = (c, r) => pixels[r * width + c];
  const lineWidth = Math.round(THEME.computeLineWidth);
  // 100 px per unit of y: A's line at 0.7 → row 60, C's at 0.6 → row 70, B's at 0.2 → row 110; its edge is the row just above the line's own rows
  const above = (row) => row - (lineWidth >> 1) - 1;
  assert.equal(at(10, 60), packColor(COLORS[0]), "A's compute line itself stays its colour");
  assert.equal(at(10, above(60)), packColor(THEME.critical), "A (on the path): edged");
  assert.equal(at(140, above(70)), packColor(THEME.critical), "C (on the path): edged");
  assert.notEqual(at(60, above(110)), packColor(THEME.critical), "B (off the path): not edged");
});

test("the legend has a 'critical path' key exactly when a piece is on the path", () => {
  assert.equal(sceneFeatures(pathScene()).critical, true);
  const entries = legendEntries(["A", "B", "C"], COLORS, sceneFeatures(pathScene()));
  assert.deepEqual(entries.filter((e) => e.kind === "critical"), [{ kind: "critical", label: "critical path" }]);
  const plain = makeScene([bottomPiece(0, 3, 0, 0.7, 0.25)]);
  assert.equal(sceneFeatures(plain).critical, false);
  assert.ok(!legendEntries(["A"], COLORS, sceneFeatures(plain)).some((e) => e.kind === "critical"));
});

test("the tooltip of a piece on the path says so, and of one off it says nothing about it", () => {
  const scene = pathScene();
  const table = { duration: Float64Array.of(3, 10, 2), compute_util: Float64Array.of(0.7, 0.2, 0.6), memory_util: Float64Array.of(0.25, 0.9, 0.4) };
  const figure = { scene, phaseTable: table, units: { time: "s" }, resourceNames: ["compute", "memory"], phaseNames: ["A", "B", "C"], tiled: false };
  const row = (i) => Object.fromEntries(tooltipContent(figure, i).rows);
  assert.match(row(0)["critical path"], /on it/);
  assert.equal(row(1)["critical path"], undefined);
});
