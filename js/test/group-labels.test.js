// Fusion-group labels never lie on each other (issue 29, item 10): campaign_widget.figures.group_bands'
// doctest cases, in the twin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { placeGroupLabels } from "../diagram/draw-groups.js";

const bands = (entries) => new Map(entries.map(([id, left, right]) => [id, { left, right }]));

test("a label that does not fit its band is left out", () => {
  assert.deepEqual(placeGroupLabels(bands([[0, 0, 100], [1, 10, 90]]), new Map([[0, 60], [1, 60]]), 2), [[0, 50]]);
});

test("overlapping bands put their labels side by side, never on each other", () => {
  const placed = placeGroupLabels(bands([[0, 0, 200], [1, 0, 200]]), new Map([[0, 60], [1, 60]]), 2);
  assert.deepEqual(placed, [[0, 100], [1, 32]]);
  const [[, a], [, b]] = placed;
  assert.ok(Math.abs(a - b) >= 60 + 2);
});

test("a short colour bar labels only ticks a line apart", async () => {
  const { spacedTicks } = await import("../sweep/draw.js");
  assert.deepEqual(spacedTicks([0, 10, 20, 30, 40]), [0, 2, 4]); // the Python twin's doctest
  assert.deepEqual(spacedTicks([0, 70]), [0, 1]);
});
