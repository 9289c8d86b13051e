import assert from "node:assert/strict";
import { test } from "node:test";
import { createTraitWriter } from "../shared/trait-writer.js";

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

test("the first write goes at once; the rest of a burst in that frame sends its last values once", () => {
  const model = fakeModel();
  const frames = fakeFrames();
  const writer = createTraitWriter(model, frames);
  for (let v = 1; v <= 50; v++) writer.write("peak_bandwidth", v * 1e11);
  writer.write("tiles", 4);
  assert.equal(model.saves, 1, "the first write is sent without waiting for a frame");
  assert.deepEqual(model.log, [["peak_bandwidth", 1e11]]);
  assert.equal(frames.pending, 1, "one frame requested for the whole burst");
  assert.ok(writer.isPending("peak_bandwidth"));
  frames.run();
  assert.deepEqual(model.log.slice(1), [["peak_bandwidth", 5e12], ["tiles", 4]]);
  assert.equal(model.saves, 2);
  assert.ok(!writer.isPending("peak_bandwidth"));
  frames.run();
  assert.equal(model.saves, 2, "a quiet frame sends nothing");
  assert.equal(frames.pending, 0, "and asks for no more frames");
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
  // The first write went at once, then one update per frame.
  assert.equal(model.saves, 6);
  assert.deepEqual(model.log.map(([, v]) => v), [1, 2, 3, 4, 5, 6]);
  frames.run();
  assert.equal(model.saves, 6, "an idle frame sends nothing");
});

test("flush and dispose send what is queued at once", () => {
  const model = fakeModel();
  const frames = fakeFrames();
  const writer = createTraitWriter(model, frames);
  writer.write("y_axis", "absolute");
  writer.flush();
  assert.equal(model.state.y_axis, "absolute");
  writer.write("depth", 3);
  assert.ok(writer.isPending("depth"), "within the frame: queued");
  writer.dispose();
  assert.equal(model.state.depth, 3);
  assert.equal(model.saves, 2);
  assert.equal(frames.pending, 0, "dispose cancels the frame");
});
