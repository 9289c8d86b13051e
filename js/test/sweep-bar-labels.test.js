// A short sweep colour bar's labels do not touch (issue 29, item 10): a sweep of two rows in a short
// figure draws a bar about 70 px tall, and six ticks there were 14 px apart, their 12 px text touching.
import assert from "node:assert/strict";
import { test } from "node:test";
import { themeColours } from "../shared/page-theme.js";
import { drawHeatmap, readGrid } from "../sweep/draw.js";
import { RecordingContext } from "../testing/fake-context.js";

const typed = (dtype, Typed, values, shape) => {
  const array = Typed.from(values);
  return { dtype, shape: shape ?? [array.length], buffer: new DataView(array.buffer) };
};

test("the colour bar's labels stand a line apart on a short bar", () => {
  const ticks = [[0, "10 ms"], [0.2, "12 ms"], [0.4, "14 ms"], [0.6, "16 ms"], [0.8, "18 ms"], [1, "20 ms"]];
  const grid = readGrid({
    rgb: typed("uint8", Uint8Array, Array(18).fill(100), [2, 3, 3]),
    rgb_dark: typed("uint8", Uint8Array, Array(18).fill(90), [2, 3, 3]),
    indices: typed("int32", Int32Array, [0, 1, 2, 3, 4, 5], [2, 3]),
    have: typed("uint8", Uint8Array, [1, 1, 1, 1, 1, 1], [2, 3]),
    bar_rgb: typed("uint8", Uint8Array, [0, 0, 0, 255, 255, 255], [2, 3]),
    x_labels: ["1", "2", "4"], y_labels: ["on", "off"], boolean: false,
    ticks, swatches: {}, best_cell: null, pending_color: "#dddddd", best_color: "#d62728",
  });
  const ctx = new RecordingContext();
  const layout = drawHeatmap(ctx, 420, 125, { grid, xTitle: "tiles", yTitle: "pipeline", colorTitle: "makespan" }, themeColours("light"));
  const barH = layout.bar.bottom - layout.bar.top;
  assert.ok(barH < 90, `the bar is ${barH} px: not the short bar this test is about`);
  const ys = ctx.calls.filter((c) => c.op === "fillText" && ticks.some(([, l]) => l === c.text)).map((c) => c.y).sort((a, b) => a - b);
  assert.ok(ys.length >= 2, "the bar has labels");
  for (let k = 1; k < ys.length; k++) assert.ok(ys[k] - ys[k - 1] >= 16, `labels ${ys[k] - ys[k - 1]} px apart on a ${barH} px bar: ${ys}`);
});
