import assert from "node:assert/strict";
import { test } from "node:test";
import { hitTest } from "../diagram/hit.js";
import { buildSceneIndex, visiblePieces } from "../diagram/scene-index.js";
import { makeScene, sequentialScene, stackedScene } from "../testing/scene-fixtures.js";

test("visible pieces: those overlapping the domain, in scene order", () => {
  const scene = sequentialScene();
  const index = buildSceneIndex(scene);
  assert.ok(index.sorted);
  assert.deepEqual([...visiblePieces(scene, index, 0, 15)], [0, 1, 2]);
  assert.deepEqual([...visiblePieces(scene, index, 4, 12)], [1]);
  assert.deepEqual([...visiblePieces(scene, index, 2.5, 3.5)], [0, 1]);
  assert.deepEqual([...visiblePieces(scene, index, 3, 13)], [1], "touching ends are not overlaps");
  assert.deepEqual([...visiblePieces(scene, index, 20, 30)], []);
});

test("a long early piece is still found late (maxEnd, not just x0)", () => {
  const scene = makeScene([
    { x0: 0, x1: 100, phase: 0, line: 0.2, well: 0.45, fill: 0.3 },
    { x0: 1, x1: 2, phase: 1, base: 0.2, line: 0.5, well: 0.7, fill: 0.6 },
    { x0: 2, x1: 3, phase: 1, base: 0.2, line: 0.5, well: 0.7, fill: 0.6 },
  ]);
  const index = buildSceneIndex(scene);
  assert.deepEqual([...visiblePieces(scene, index, 50, 60)], [0]);
  assert.equal(hitTest(scene, index, 50, 0.3), 0);
});

test("unsorted scenes are indexed through a sorted permutation", () => {
  const scene = makeScene([
    { x0: 13, x1: 15, phase: 2, line: 0.6, well: 0.85, fill: 0.7 },
    { x0: 0, x1: 3, phase: 0, line: 0.7, well: 0.95, fill: 0.76 },
    { x0: 3, x1: 13, phase: 1, line: 0.2, well: 0.45, fill: 0.42 },
  ]);
  const index = buildSceneIndex(scene);
  assert.equal(index.sorted, false);
  assert.deepEqual([...index.order], [1, 2, 0]);
  assert.deepEqual([...visiblePieces(scene, index, 2, 14)], [0, 1, 2], "draw order stays the scene's order");
  assert.equal(hitTest(scene, index, 14, 0.7), 0);
  assert.equal(hitTest(scene, index, 1, 0.8), 1);
  assert.equal(hitTest(scene, index, 8, 0.3), 2);
});

test("hit: the pipe band and the compute band of each sequential phase", () => {
  const scene = sequentialScene();
  const index = buildSceneIndex(scene);
  assert.equal(hitTest(scene, index, 8, 0.3), 1, "inside B's pipe");
  assert.equal(hitTest(scene, index, 8, 0.1), 1, "under B's compute line");
  assert.equal(hitTest(scene, index, 1.5, 0.8), 0, "inside A's pipe");
  assert.equal(hitTest(scene, index, 14, 0.05), 2);
  assert.equal(hitTest(scene, index, 8, 0.9), -1, "above B's guard rail");
  assert.equal(hitTest(scene, index, 8, 0.47, 0.05), 1, "a near miss within the tolerance hits");
  assert.equal(hitTest(scene, index, 16, 0.3), -1, "past the end");
  assert.equal(hitTest(scene, index, NaN, 0.3), -1);
});

test("hit: at a shared boundary the piece starting there answers", () => {
  const scene = sequentialScene();
  const index = buildSceneIndex(scene);
  assert.equal(hitTest(scene, index, 3, 0.1), 1);
});

test("hit: stacked pieces — the lower pipe wins over the upper compute area; the upper pipe above", () => {
  const scene = stackedScene();
  const index = buildSceneIndex(scene);
  // B (index 0) at the bottom: compute [0, 0.2], pipe [0.2, 0.45]; A (index 1) on top: compute
  // [0.2, 0.9], pipe [0.9, 1.275] (spilling past its rail at 0.925).
  assert.equal(hitTest(scene, index, 0.5, 0.1), 0, "B's compute area");
  assert.equal(hitTest(scene, index, 0.5, 0.3), 0, "B's pipe, drawn over A's compute area");
  assert.equal(hitTest(scene, index, 0.5, 0.7), 1, "A's compute area above B's pipe");
  assert.equal(hitTest(scene, index, 0.5, 1.2), 1, "A's spill counts as its pipe");
  assert.equal(hitTest(scene, index, 1.5, 0.7), -1, "after A ends only B is there, and 0.7 is above it");
  assert.equal(hitTest(scene, index, 2.5, 0.8), 2);
});

test("a sorted scene is indexed in place; an index no longer used lends its maxEnd", () => {
  const build = buildSceneIndex;
  const visible = visiblePieces;
  const scene = { n: 3, x0: Float64Array.from([0, 1, 2]), x1: Float64Array.from([1, 4, 3]) };
  const first = build(scene);
  assert.equal(first.start, scene.x0);
  assert.deepEqual([...first.order], [0, 1, 2]);
  assert.deepEqual([...first.maxEnd], [1, 4, 4]);
  const next = { n: 3, x0: Float64Array.from([0, 0.5, 1]), x1: Float64Array.from([0.5, 1, 2]) };
  const second = build(next, { reuse: first });
  assert.equal(second.maxEnd, first.maxEnd);
  assert.deepEqual([...second.maxEnd], [0.5, 1, 2]);
  assert.deepEqual([...visible(next, second, 0.6, 0.9)], [1]);
  const unsorted = { n: 3, x0: Float64Array.from([2, 0, 1]), x1: Float64Array.from([3, 1, 2]) };
  const third = build(unsorted, { reuse: second });
  assert.deepEqual([...third.order], [1, 2, 0]);
  assert.deepEqual([...visible(unsorted, third, 1.5, 2.5)], [0, 2]);
});
