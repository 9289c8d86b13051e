import assert from "node:assert/strict";
import { test } from "node:test";
import {
  advance, boxesOverlap, buildHitGrid, capacityLabelBox, capacityMarkerX, elementLabel, fitCell, hitElement,
  histogramBars, histogramLayout, histogramPeak, histogramTicks, indicesFromPoint, pointFromIndices, rgbStyles,
} from "../local/geometry.js";

test("fitCell fills the width and stays within its bounds", () => {
  assert.equal(fitCell(50, 500), 10);
  assert.equal(fitCell(5, 500), 22, "clamped to the maximum");
  assert.equal(fitCell(1000, 500), 4, "clamped to the minimum");
  assert.equal(fitCell(0, 500), 4);
});

test("every element is found at its own cell, gaps and outside are -1", () => {
  const x = Int32Array.from([0, 1, 3, 0]);
  const y = Int32Array.from([0, 0, 0, 2]);
  const grid = buildHitGrid(x, y, 4, 3);
  for (let e = 0; e < x.length; e++) assert.equal(hitElement(grid, 4, 3, x[e] + 0.5, y[e] + 0.99), e);
  assert.equal(hitElement(grid, 4, 3, 2.5, 0.5), -1, "a gap between blocks");
  assert.equal(hitElement(grid, 4, 3, -0.1, 0.5), -1);
  assert.equal(hitElement(grid, 4, 3, 4.0, 0.5), -1);
  assert.equal(hitElement(grid, 4, 3, 0.5, 3.2), -1);
});

test("loop counters and iteration numbers are inverse, the last loop innermost", () => {
  const extents = [2, 3, 4];
  assert.deepEqual(indicesFromPoint(1, extents), [0, 0, 1]);
  assert.deepEqual(indicesFromPoint(4, extents), [0, 1, 0]);
  assert.deepEqual(indicesFromPoint(23, extents), [1, 2, 3]);
  for (let p = 0; p < 24; p++) assert.equal(pointFromIndices(indicesFromPoint(p, extents), extents), p);
  assert.equal(pointFromIndices([5, -1, 9], extents), pointFromIndices([1, 0, 3], extents), "counters are clamped");
});

test("playback advances by speed × time and wraps at the end", () => {
  assert.equal(advance(0, 1000, 5, 100), 5);
  assert.equal(advance(98, 1000, 5, 100), 3);
  assert.equal(advance(7, 5000, 0, 100), 7, "speed 0 stays");
  assert.equal(advance(7, 199, 5, 100), 7, "less than one step");
  assert.equal(advance(3, 1000, 5, 0), 0);
});

test("element labels come from the flat C-order index", () => {
  assert.equal(elementLabel("A", [2, 3], 5), "A[1,2]");
  assert.equal(elementLabel("w", [2, 3, 4, 5], 119), "w[1,2,3,4]");
  assert.equal(elementLabel("s", [], 0), "s");
  assert.equal(elementLabel("<b>x</b>", [3], 2), "<b>x</b>[2]", "names stay text");
});

test("rgb styles: one string per element, shared between equal colours", () => {
  const styles = rgbStyles(Uint8Array.from([255, 0, 0, 0, 255, 0, 255, 0, 0]), 3);
  assert.deepEqual(styles, ["rgb(255,0,0)", "rgb(0,255,0)", "rgb(255,0,0)"]);
});

test("histogram bars: hits below the capacity, misses from it, cold last", () => {
  const counts = Int32Array.from([4, 0, 2, 8]);
  const bars = histogramBars(counts, 6, 2, 100, 80);
  assert.deepEqual(bars.map((b) => b.kind), ["hit", "hit", "miss", "miss", "cold"]);
  assert.deepEqual(bars.map((b) => b.count), [4, 0, 2, 8, 6]);
  assert.equal(bars[3].h, 80, "the tallest bar fills the height");
  assert.equal(bars[0].h, 40);
  assert.equal(bars[4].h, 60);
  assert.ok(bars.every((b, k) => k === 0 || b.x > bars[k - 1].x), "left to right");
  assert.ok(bars.every((b) => b.x >= 0 && b.x + b.w <= 100 + 1e-9));
  assert.equal(capacityMarkerX(2, 4, 100), 40, "the marker is at bin 2's slot edge");
  assert.equal(capacityMarkerX(99, 4, 100), 80, "beyond the last distance: before the cold bar");
});

test("histogram peak of a long histogram does not overflow the stack", () => {
  const counts = new Int32Array(300000);
  counts[123456] = 7;
  assert.equal(histogramPeak(counts, 3), 7);
  assert.equal(histogramPeak(new Int32Array(0), 0), 1);
});

test("histogram ticks: nice whole distances, 'cold' apart, none touching", () => {
  const measure = (text) => 6 * text.length;
  const labels = (bins, width) => histogramTicks(bins, width, measure).map((t) => t.label);
  assert.deepEqual(labels(12, 386), ["0", "2", "4", "6", "8", "10", "cold"]);
  assert.deepEqual(labels(1, 300), ["0", "cold"], "one distance");
  assert.deepEqual(labels(0, 300), ["cold"], "only cold accesses");
  assert.deepEqual(labels(3, 300), ["0", "1", "2", "cold"], "never a fractional distance");
  const long = histogramTicks(5000, 386, measure);
  assert.ok(long.length >= 4, long.map((t) => t.label));
  assert.ok(long.slice(0, -1).every((t) => t.value % 1000 === 0), long.map((t) => t.label));
  assert.equal(long.at(-2).label.includes(","), true, "thousands are separated");
  for (const ticks of [histogramTicks(12, 386, measure), long, histogramTicks(40, 120, measure)]) {
    ticks.slice(1).forEach((t, k) => {
      const gap = t.x - measure(t.label) / 2 - (ticks[k].x + measure(ticks[k].label) / 2);
      assert.ok(gap >= 6, `${ticks[k].label} and ${t.label} are ${gap} px apart`);
    });
  }
});

test("boxes overlap only when they share area", () => {
  const a = { x: 0, y: 0, w: 10, h: 10 };
  assert.equal(boxesOverlap(a, { x: 5, y: 5, w: 10, h: 10 }), true);
  assert.equal(boxesOverlap(a, { x: 10, y: 0, w: 5, h: 5 }), false, "touching edges");
  assert.equal(boxesOverlap(a, { x: 0, y: 11, w: 5, h: 5 }), false);
});

test("the capacity label box goes right of the marker, or left of it at the right edge", () => {
  const layout = histogramLayout(300, 170);
  const right = capacityLabelBox(100, 60, layout, 300);
  assert.ok(right.x > 100 && right.y + right.h <= layout.top, JSON.stringify(right));
  const left = capacityLabelBox(280, 60, layout, 300);
  assert.ok(left.x + left.w < 280 && left.x >= 0, JSON.stringify(left));
  const squeezed = capacityLabelBox(30, 280, layout, 300);
  assert.ok(squeezed.x >= 0 && squeezed.x + squeezed.w <= 300, JSON.stringify(squeezed));
});
