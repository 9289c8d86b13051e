// Edges between folded rows each run in a channel of their own (issue 29, item 8): three parallel
// chains folded into two bands cross the fold with three edges, which ran down one vertical, along
// the gap and up one vertical, drawn on each other.
import assert from "node:assert/strict";
import { test } from "node:test";
import { foldGraph } from "../dataflow/fold.js";

function threeChains(columns) {
  const nNodes = 3 * columns;
  const x = new Float32Array(nNodes);
  const y = new Float32Array(nNodes);
  const src = [];
  const dst = [];
  for (let c = 0; c < 3; c++) {
    for (let k = 0; k < columns; k++) {
      x[c * columns + k] = 190 * k;
      y[c * columns + k] = 56 * c;
      if (k) src.push(c * columns + k - 1), dst.push(c * columns + k);
    }
  }
  const nEdges = src.length;
  return {
    nNodes, nEdges, x, y, w: new Float32Array(nNodes).fill(150), h: new Float32Array(nNodes).fill(36),
    src: Int32Array.from(src), dst: Int32Array.from(dst), routeOffsets: new Int32Array(nEdges + 1),
    routeX: new Float32Array(0), routeY: new Float32Array(0), bounds: [-75, -18, 190 * (columns - 1) + 75, 130],
  };
}

test("each edge crossing the fold has its own runs down, across and up", () => {
  const folded = foldGraph(threeChains(16), 900, 700);
  assert.ok(folded.fold.bands >= 2, `not folded: ${folded.fold.bands} band`);
  const crossing = [];
  for (let e = 0; e < folded.nEdges; e++) {
    const lo = folded.routeOffsets[e];
    const hi = folded.routeOffsets[e + 1];
    if (hi - lo >= 2) crossing.push({ right: folded.routeX[lo], left: folded.routeX[lo + 1], lane: folded.routeY[lo] });
  }
  assert.ok(crossing.length >= 3, `${crossing.length} edges cross the fold`);
  // the edges through one gap between bands: lanes a few px apart, the next gap a band's height away
  crossing.sort((a, b) => a.lane - b.lane);
  const gaps = [[crossing[0]]];
  for (const c of crossing.slice(1)) {
    if (c.lane - gaps[gaps.length - 1].at(-1).lane < 40) gaps[gaps.length - 1].push(c);
    else gaps.push([c]);
  }
  for (const through of gaps) {
    assert.equal(through.length, 3, `three edges through each gap: ${JSON.stringify(through)}`);
    for (const key of ["right", "left", "lane"]) {
      const values = through.map((c) => c[key]);
      assert.equal(new Set(values.map((v) => v.toFixed(1))).size, values.length, `edges through one gap share their ${key} run: ${values}`);
    }
  }
});
