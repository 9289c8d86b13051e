import assert from "node:assert/strict";
import { test } from "node:test";
import { createTraitWriter } from "../trait-writer.js";

function fakeModel() {
  return {
    state: {}, log: [], saves: 0,
    set(key, value) { this.state[key] = value; this.log.push([key, value]); },
    save_changes() { this.saves++; },
  };
}

function fakeFrames() {
  const queue = new Map();
  let next = 1;
  return {
    requestFrame(f) { queue.set(next, f); return next++; },
    cancelFrame(id) { queue.delete(id); },
    run() { const callbacks = [...queue.values()]; queue.clear(); callbacks.forEach((f) => f()); },
    get pending() { return queue.size; },
  };
}

test("a burst of writes in one frame sends the last value once", () => {
  const model = fakeModel();
  const frames = fakeFrames();
  const writer = createTraitWriter(model, frames);
  for (let v = 1; v <= 50; v++) writer.write("peak_bandwidth", v * 1e11);
  writer.write("tiles", 4);
  assert.equal(model.saves, 0, "nothing sent before the frame");
  assert.equal(frames.pending, 1, "one frame requested for the whole burst");
  assert.ok(writer.isPending("peak_bandwidth"));
  frames.run();
  assert.deepEqual(model.log, [["peak_bandwidth", 5e12], ["tiles", 4]]);
  assert.equal(model.saves, 1);
  assert.ok(!writer.isPending("peak_bandwidth"));
});

test("each frame sends at most one update", () => {
  const model = fakeModel();
  const frames = fakeFrames();
  const writer = createTraitWriter(model, frames);
  for (let frame = 0; frame < 5; frame++) {
    writer.write("tiles", frame + 1);
    writer.write("tiles", frame + 2);
    frames.run();
  }
  assert.equal(model.saves, 5);
  assert.deepEqual(model.log.map(([, v]) => v), [2, 3, 4, 5, 6]);
  frames.run();
  assert.equal(model.saves, 5, "an idle frame sends nothing");
});

test("flush and dispose send what is queued at once", () => {
  const model = fakeModel();
  const frames = fakeFrames();
  const writer = createTraitWriter(model, frames);
  writer.write("y_axis", "absolute");
  writer.flush();
  assert.equal(model.state.y_axis, "absolute");
  assert.equal(frames.pending, 0, "the frame was cancelled");
  writer.write("depth", 3);
  writer.dispose();
  assert.equal(model.state.depth, 3);
  assert.equal(model.saves, 2);
});
