import assert from "node:assert/strict";
import { test } from "node:test";
import { drawHistogram, drawTensors, LOCAL_THEME, localLook, neutralSwap } from "../local/draw.js";
import { boxesOverlap } from "../local/geometry.js";
import { RecordingContext } from "../testing/fake-context.js";

class Context extends RecordingContext {
  strokeRect(x, y, w, h) { this.calls.push({ op: "strokeRect", args: [x, y, w, h], strokeStyle: this.state.strokeStyle }); }
}

const tensors = { names: ["A", "<i>B</i>"], shapes: [[2, 2], [3]], origins: [[0, 2], [5, 2]], sizes: [[2, 2], [3, 1]] };
const x = Int32Array.from([0, 1, 0, 1, 5, 6, 7]);
const y = Int32Array.from([2, 2, 3, 3, 2, 2, 2]);

function filled(ctx, style) {
  return ctx.calls.filter((c) => c.op === "fillRect" && c.fillStyle === style).map((c) => c.args);
}

test("the current iteration's elements are filled read/written at their cells", () => {
  const ctx = new Context();
  const view = { cell: 10, originX: 4, originY: 6, labelSize: 12 };
  const out = drawTensors(ctx, view, {
    tensors, x, y, n: 7, fill: null, highlight: new Map([[1, "read"], [5, "write"]]), lineMask: null, selection: new Set(),
  });
  assert.equal(out.highlighted, 2);
  const reads = filled(ctx, LOCAL_THEME.read);
  const writes = filled(ctx, LOCAL_THEME.write);
  assert.equal(reads.length, 1);
  assert.equal(writes.length, 1);
  const [rx, ry] = reads[0];
  assert.ok(rx > 4 + 10 && rx < 4 + 20 && ry > 6 + 20 && ry < 6 + 30, `read of element 1 at ${reads[0]}`);
  const [wx, wy] = writes[0];
  assert.ok(wx > 4 + 60 && wx < 4 + 70 && wy > 6 + 20 && wy < 6 + 30, `write of element 5 at ${writes[0]}`);
  assert.equal(filled(ctx, LOCAL_THEME.idle).length, 7, "every element drawn once as idle");
});

test("the cache-line overlay marks exactly the masked elements; labels are text", () => {
  const ctx = new Context();
  const out = drawTensors(ctx, { cell: 10, originX: 0, originY: 0, labelSize: 12 }, {
    tensors, x, y, n: 7, fill: new Array(7).fill("rgb(1,2,3)"), highlight: null,
    lineMask: Uint8Array.from([1, 1, 0, 0, 0, 0, 0]), selection: new Set([0]),
  });
  assert.equal(out.lineCells, 2);
  const lines = ctx.calls.filter((c) => c.op === "strokeRect" && c.strokeStyle === LOCAL_THEME.line);
  assert.equal(lines.length, 2);
  assert.equal(ctx.calls.filter((c) => c.op === "strokeRect" && c.strokeStyle === LOCAL_THEME.selection).length, 1);
  assert.deepEqual(ctx.texts(), ["A [2×2]", "<i>B</i> [3]"]);
  assert.equal(filled(ctx, "rgb(1,2,3)").length, 7);
});

test("histogram: misses red from the capacity on, hits green, cold purple", () => {
  const ctx = new Context();
  const { bars } = drawHistogram(ctx, { counts: Int32Array.from([3, 1, 5]), cold: 2, title: "t" }, 2, 300, 150);
  assert.deepEqual(bars.map((b) => b.kind), ["hit", "hit", "miss", "cold"]);
  assert.equal(filled(ctx, LOCAL_THEME.hit).length, 2);
  assert.equal(filled(ctx, LOCAL_THEME.miss).length, 1);
  assert.equal(filled(ctx, LOCAL_THEME.cold).length, 1);
  assert.ok(ctx.texts().includes("capacity 2 lines"), ctx.texts());
});

// distances 0…11 and cold, as the 6×6×6 matrix product of the browser test gives
const twelve = { counts: Int32Array.from([40, 9, 12, 30, 28, 25, 26, 8, 7, 6, 5, 40]), cold: 15, title: "all" };

test("histogram x axis: nice whole distances at their bars, 'cold' under its own bar", () => {
  const ctx = new Context();
  const { ticks, bars } = drawHistogram(ctx, twelve, 8, 440, 170);
  const numbers = ticks.filter((t) => t.kind === "distance");
  assert.ok(numbers.length >= 3, `only ${numbers.map((t) => t.label)} on the axis`);
  assert.equal(numbers[0].label, "0");
  const steps = new Set(numbers.slice(1).map((t, k) => t.value - numbers[k].value));
  assert.equal(steps.size, 1, "one step between ticks");
  assert.ok([1, 2, 5, 10].includes([...steps][0]), `a nice step, got ${[...steps]}`);
  for (const t of numbers) {
    const bar = bars[t.value];
    assert.ok(Math.abs(bar.x + bar.w / 2 - t.x) < 1e-6, `tick ${t.label} at its bar's centre`);
  }
  const cold = ticks.at(-1);
  assert.equal(cold.label, "cold");
  assert.ok(Math.abs(bars.at(-1).x + bars.at(-1).w / 2 - cold.x) < 1e-6);
  const texts = ctx.texts();
  for (const t of ticks) assert.ok(texts.includes(t.label), `${t.label} drawn`);
  assert.ok(!texts.some((t) => t.includes("|")), "no '11 | cold' label");
  // the labels (6 px per character in the recording context) do not touch
  const boxes = ticks.map((t) => [t.x - 3 * t.label.length, t.x + 3 * t.label.length]);
  boxes.slice(1).forEach(([lo], k) => assert.ok(lo > boxes[k][1], `${ticks[k].label} and ${ticks[k + 1].label} overlap`));
});

test("the capacity label sits where no bar is, inside the canvas, for every capacity", () => {
  for (const width of [260, 440]) {
    for (let capacity = 1; capacity <= 14; capacity++) {
      const ctx = new Context();
      const { bars, labelBox, plot } = drawHistogram(ctx, twelve, capacity, width, 170);
      for (const bar of bars) {
        const box = { x: bar.x, y: bar.y, w: bar.w, h: Math.max(1, bar.h) };
        assert.ok(!boxesOverlap(labelBox, box), `capacity ${capacity}, ${width} px: label ${JSON.stringify(labelBox)} over bar ${bar.bin}`);
      }
      assert.ok(!boxesOverlap(labelBox, plot), "the label is outside the plot area");
      assert.ok(labelBox.x >= 0 && labelBox.x + labelBox.w <= width && labelBox.y >= 0, `inside the canvas: ${JSON.stringify(labelBox)}`);
      const text = ctx.calls.find((c) => c.op === "fillText" && c.text.startsWith("capacity "));
      assert.ok(text.x >= labelBox.x && text.x + 6 * text.text.length <= labelBox.x + labelBox.w + 1e-6, "the text in its box");
      const background = filled(ctx, LOCAL_THEME.background).at(-1);
      assert.deepEqual(background, [labelBox.x, labelBox.y, labelBox.w, labelBox.h], "the box is filled before the text");
    }
  }
});

test("the capacity label says bytes with the lines when the unit is bytes", () => {
  const ctx = new Context();
  drawHistogram(ctx, twelve, 16, 440, 170, LOCAL_THEME, { lineBytes: 64, unit: "bytes" });
  assert.ok(ctx.texts().includes("capacity 1 KiB (16 lines)"), ctx.texts());
});

test("on a dark page Python's 'nothing here' white and 'cold only' grey are drawn in the dark look's colours", () => {
  const neutral = { untouched: "#ffffff", cold_only: "#3a3a3a" };
  assert.equal(neutralSwap(neutral, localLook({ name: "light" })).size, 0, "the light theme draws Python's colours");
  const dark = localLook({ name: "dark", background: "#111111" });
  const swap = neutralSwap(neutral, dark);
  const ctx = new Context();
  const fill = ["rgb(255,255,255)", "rgb(58,58,58)", "rgb(0,255,0)", "rgb(255,255,255)", "rgb(0,255,0)", "rgb(0,255,0)", "rgb(0,255,0)"];
  drawTensors(ctx, { cell: 10, originX: 4, originY: 6, labelSize: 12, look: dark }, {
    tensors, x, y, n: 7, fill, swap, highlight: null, lineMask: null, selection: new Set(),
  });
  assert.equal(filled(ctx, "rgb(255,255,255)").length, 0, "no white cell on the dark page");
  assert.equal(filled(ctx, dark.untouched).length >= 2, true);
  assert.equal(filled(ctx, dark.coldOnly).length, 1);
  assert.equal(filled(ctx, "rgb(0,255,0)").length, 4, "data colours are drawn as sent");
});
