import assert from "node:assert/strict";
import { test } from "node:test";
import { drawHistogram, drawTensors, LOCAL_THEME, localLook, neutralSwap } from "../local/draw.js";
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
  const bars = drawHistogram(ctx, { counts: Int32Array.from([3, 1, 5]), cold: 2, title: "t" }, 2, 300, 150);
  assert.deepEqual(bars.map((b) => b.kind), ["hit", "hit", "miss", "cold"]);
  assert.equal(filled(ctx, LOCAL_THEME.hit).length, 2);
  assert.equal(filled(ctx, LOCAL_THEME.miss).length, 1);
  assert.equal(filled(ctx, LOCAL_THEME.cold).length, 1);
  assert.ok(ctx.texts().includes("capacity 2"));
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
