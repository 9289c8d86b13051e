import assert from "node:assert/strict";
import { test } from "node:test";
import { packColor, rasterizePieces } from "../diagram/raster.js";
import { linearScale } from "../shared/scale.js";
import { THEME } from "../shared/theme.js";
import { bottomPiece, makeScene } from "../testing/scene-fixtures.js";

const COLORS = ["#0072b2", "#e69f00"];

function paint(scene, width = 100, height = 130) {
  const pixels = new Uint32Array(width * height);
  const visible = Int32Array.from({ length: scene.n }, (_, i) => i);
  const columns = rasterizePieces(pixels, width, height, scene, visible, {
    x: linearScale(0, scene.x_max, 0, width), y: linearScale(0, 1.3, height, 0), ratio: 1, left: 0, top: 0, colors: COLORS,
  });
  return { pixels, columns, at: (c, r) => pixels[r * width + c] };
}

test("packColor: hex and rgb(a) into ImageData's little-endian RGBA", () => {
  assert.equal(packColor("#ff0000"), 0xff0000ff);
  assert.equal(packColor("rgb(0, 0, 255)"), 0xffff0000);
  assert.equal(packColor("rgba(0, 255, 0, 0.5)") >>> 24, 128);
});

test("per pixel: the compute line in the phase colour at its height, the well above it, nothing outside", () => {
  // y: 130 px for 1.3 → 100 px per unit. Phase 0 on [0, 50): line 0.5 (row 80), well to 0.75 (row 55).
  const scene = makeScene([bottomPiece(0, 50, 0, 0.5, 0.4), bottomPiece(50, 100, 1, 0.2, 0.9)]);
  const { at, columns } = paint(scene);
  assert.equal(columns, 100);
  assert.equal(at(10, 80), packColor(COLORS[0]), "compute line of phase 0");
  assert.equal(at(70, 110), packColor(COLORS[1]), "compute line of phase 1");
  assert.equal(at(10, 60), packColor(THEME.well), "the unused part of the well");
  assert.equal(at(10, 20), 0, "above the pipe: untouched");
  assert.equal(at(10, 90) >>> 24, Math.round(THEME.shadeAlpha * 255), "translucent shade under the line");
});

test("per pixel: a spill is painted above the well, hatched", () => {
  const scene = makeScene([{ x0: 0, x1: 100, phase: 0, base: 0, line: 0.5, well: 0.6, fill: 0.9 }]);
  const { pixels, at } = paint(scene);
  const spill = new Set([packColor(THEME.spillFill), packColor(THEME.hatch)]);
  for (let c = 0; c < 100; c += 17) assert.ok(spill.has(at(c, 55)), `column ${c}, row 55 (y 0.75, between well 0.6 and fill 0.9)`);
  assert.equal(at(10, 30), 0, "above the fill: untouched");
  assert.ok([...pixels].some((p) => p === packColor(THEME.hatch)), "hatch lines present");
});

test("per pixel: the dashed tail's gaps are the background colour, not the pipe fill beneath", () => {
  // Phase 1's line at 0.2 (row 110) is dashed from x 40 on; its fill lies beneath the line.
  const scene = makeScene([bottomPiece(0, 100, 1, 0.2, 0.9, 0.25, { dash: 40 })]);
  const { at } = paint(scene);
  const row = 110;
  const tail = Array.from({ length: 60 }, (_, k) => at(40 + k, row));
  assert.ok(tail.includes(packColor(COLORS[1])), "dashes in the phase colour");
  assert.ok(tail.includes(packColor(THEME.background)), "gaps in the background colour");
  assert.ok(tail.every((p) => p === packColor(COLORS[1]) || p === packColor(THEME.background)), "nothing else on the line");
  assert.equal(at(20, row), packColor(COLORS[1]), "solid before the dash");
});
