import assert from "node:assert/strict";
import { test } from "node:test";
import { themeColours } from "../shared/page-theme.js";
import { cellAt, cellBox, cellColor, cellConfiguration, drawHeatmap, readGrid } from "../sweep/draw.js";
import { RecordingContext } from "../testing/fake-context.js";

class Context extends RecordingContext {
  strokeRect(x, y, w, h) { this.calls.push({ op: "strokeRect", args: [x, y, w, h], strokeStyle: this.state.strokeStyle }); }
}

const typed = (dtype, Typed, values, shape) => {
  const array = Typed.from(values);
  return { dtype, shape: shape ?? [array.length], buffer: new DataView(array.buffer) };
};

// The kernel's grid of 2 rows (y) × 3 columns (x): configuration k·3 + j, the last one not computed,
// the best at row 1, column 0 (sweep_grid.py's numbers, by hand).
function twoByThree(extra = {}) {
  const light = [[10, 20, 30], [40, 50, 60], [70, 80, 90], [100, 110, 120], [130, 140, 150], [221, 221, 221]];
  const dark = light.map(([r, g, b]) => [r + 1, g + 1, b + 1]);
  return readGrid({
    rgb: typed("uint8", Uint8Array, light.flat(), [2, 3, 3]),
    rgb_dark: typed("uint8", Uint8Array, dark.flat(), [2, 3, 3]),
    indices: typed("int32", Int32Array, [0, 1, 2, 3, 4, 5], [2, 3]),
    have: typed("uint8", Uint8Array, [1, 1, 1, 1, 1, 0], [2, 3]),
    bar_rgb: typed("uint8", Uint8Array, [0, 0, 0, 128, 128, 128, 255, 255, 255], [3, 3]),
    x_labels: ["1", "2", "4"], y_labels: ["100 GB/s", "1.6 TB/s"], boolean: false,
    ticks: [[0, "10 ms"], [0.5, "20 ms"], [1, "30 ms"]], swatches: {}, best_cell: [1, 0],
    pending_color: "#dddddd", best_color: "#d62728", ...extra,
  });
}

const hexOf = ([r, g, b]) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`;

test("each cell is filled in the kernel's colour of its look, row 0 at the bottom", () => {
  const grid = twoByThree();
  const ctx = new Context();
  const layout = drawHeatmap(ctx, 500, 300, { grid, xTitle: "tiles", yTitle: "peak_bandwidth", colorTitle: "makespan" }, themeColours("light"));
  assert.equal(cellColor(grid, 0, 1, "light"), hexOf([40, 50, 60]));
  assert.equal(cellColor(grid, 0, 1, "dark"), hexOf([41, 51, 61]));
  for (let row = 0; row < 2; row++) {
    for (let col = 0; col < 3; col++) {
      const b = cellBox(layout, row, col);
      const [rect] = ctx.rectsFilled(cellColor(grid, row, col, "light")).filter(([x, y]) => Math.abs(x - b.x) < 1 && Math.abs(y - b.y) < 1);
      assert.ok(rect, `cell ${row},${col} not filled in its colour`);
    }
  }
  assert.ok(cellBox(layout, 0, 0).y > cellBox(layout, 1, 0).y, "row 0 is the bottom row");
  const dark = new Context();
  drawHeatmap(dark, 500, 300, { grid }, themeColours("dark"));
  assert.equal(dark.rectsFilled(hexOf([41, 51, 61])).length, 1);
  assert.equal(dark.rectsFilled(hexOf([40, 50, 60])).length, 0);
});

test("the kernel's labels are drawn: ticks with units, axis titles, the colour bar's ticks", () => {
  const ctx = new Context();
  drawHeatmap(ctx, 500, 300, { grid: twoByThree(), xTitle: "tiles", yTitle: "peak_bandwidth", colorTitle: "makespan" }, themeColours("light"));
  const texts = ctx.texts();
  for (const label of ["1", "2", "4", "100 GB/s", "1.6 TB/s", "10 ms", "20 ms", "30 ms", "tiles", "peak_bandwidth", "makespan"]) {
    assert.ok(texts.includes(label), `${label} not drawn`);
  }
});

test("a boolean column's bar is its two named swatches in the theme's colours", () => {
  const swatches = { light: [["no", "#d62728"], ["yes", "#2ca02c"]], dark: [["no", "#ff6b6b"], ["yes", "#2ca02c"]] };
  const grid = twoByThree({ boolean: true, ticks: [[0, "no"], [1, "yes"]], swatches });
  const ctx = new Context();
  drawHeatmap(ctx, 500, 300, { grid }, themeColours("dark"));
  assert.equal(ctx.rectsFilled("#ff6b6b").length, 1);
  assert.equal(ctx.rectsFilled("#d62728").length, 0);
  assert.ok(ctx.texts().includes("no") && ctx.texts().includes("yes"));
});

test("the best cell gets the diamond, the selected one the highlight outline", () => {
  const grid = twoByThree();
  const ctx = new Context();
  const theme = themeColours("light");
  const layout = drawHeatmap(ctx, 500, 300, { grid, selectedCell: { row: 0, col: 2 } }, theme);
  const [best] = ctx.fills("#d62728");
  const b = cellBox(layout, 1, 0);
  const xs = best.path.map((p) => p[1]);
  assert.ok(Math.abs((Math.min(...xs) + Math.max(...xs)) / 2 - (b.x + b.w / 2)) < 1e-9, "diamond centred on the best cell");
  const [outline] = ctx.strokes(theme.highlight).filter((c) => c.lineWidth === 2.5);
  const s = cellBox(layout, 0, 2);
  assert.deepEqual(outline.path[0].slice(1, 3), [s.x + 1, s.y + 1]);
});

test("the pointer finds its cell, its configuration and whether it is computed; nothing off the grid", () => {
  const grid = twoByThree();
  const ctx = new Context();
  const layout = drawHeatmap(ctx, 500, 300, { grid }, themeColours("light"));
  const b = cellBox(layout, 1, 2);
  assert.deepEqual(cellAt(layout, grid, b.x + b.w / 2, b.y + b.h / 2), { row: 1, col: 2 });
  assert.deepEqual(cellConfiguration(grid, 1, 2), { index: 5, computed: false });
  assert.deepEqual(cellConfiguration(grid, 0, 1), { index: 1, computed: true });
  assert.equal(cellAt(layout, grid, layout.plot.left - 2, b.y + 1), null);
  assert.equal(cellAt(layout, grid, b.x + 1, layout.plot.bottom + 2), null);
});

test("the cells the kernel says do not fit are hatched in the warning colour, and only those", () => {
  const unfit = typed("uint8", Uint8Array, [0, 0, 1, 0, 1, 0], [2, 3]);
  const grid = twoByThree({ unfit, unfit_label: "hatched: does not fit in 80 GB of memory" });
  const theme = themeColours("light");
  const ctx = new Context();
  const layout = drawHeatmap(ctx, 500, 300, { grid }, theme);
  assert.equal(grid.unfitLabel, "hatched: does not fit in 80 GB of memory");
  const hatches = ctx.strokes(theme.warning).filter((c) => c.clipDepth > 0);
  assert.equal(hatches.length, 2, "one hatch per cell that does not fit");
  const boxes = [cellBox(layout, 0, 2), cellBox(layout, 1, 1)];
  for (const [k, c] of hatches.entries()) {
    const b = boxes[k];
    const lines = c.path.filter((p) => p[0] === "L");
    assert.ok(lines.length >= 2, "several diagonals");
    // every diagonal crosses its own cell: clipped to it, it starts left of its right edge
    for (const [, x, y] of lines) assert.ok(x >= b.x && x - b.h < b.x + b.w && Math.abs(y - b.y) < 1e-9);
  }
  const none = new Context();
  drawHeatmap(none, 500, 300, { grid: twoByThree() }, theme);
  assert.equal(none.strokes(theme.warning).filter((c) => c.clipDepth > 0).length, 0, "no unfit: no hatch");
});
