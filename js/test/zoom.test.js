import assert from "node:assert/strict";
import { test } from "node:test";
import {
  asZoom, clampDomain, fullDomain, panBy, sameZoom, wheelZoomFactor, zoomAfterDomainChange, zoomAround,
  zoomFromWindow, zoomToWindow,
} from "../shared/zoom.js";

const full = [0, 15];

test("the full domain is [0, max(x_max, time_max)], [0, 1] when empty", () => {
  assert.deepEqual(fullDomain(15), [0, 15]);
  assert.deepEqual(fullDomain(10.75, 13), [0, 13]);
  assert.deepEqual(fullDomain(13, 10), [0, 13]);
  assert.deepEqual(fullDomain(0), [0, 1]);
  assert.deepEqual(fullDomain(NaN, NaN), [0, 1]);
});

test("zooming keeps the time under the cursor in place", () => {
  const zoom = zoomAround(null, full, 6, 0.5);
  assert.ok(Math.abs(zoom[1] - zoom[0] - 7.5) < 1e-12);
  // 6 was at 6/15 of the width; it still is.
  assert.ok(Math.abs((6 - zoom[0]) / (zoom[1] - zoom[0]) - 6 / 15) < 1e-12, JSON.stringify(zoom));
  const deeper = zoomAround(zoom, full, 3, 0.1);
  assert.ok(deeper[1] - deeper[0] < 1);
  assert.ok(deeper[0] <= 3 && deeper[1] >= 3);
});

test("zooming out never passes the full domain and comes back to null", () => {
  const zoom = zoomAround(null, full, 6, 0.5);
  assert.equal(zoomAround(zoom, full, 6, 10), null);
  assert.equal(zoomAround(null, full, 6, 2), null);
});

test("zoom is limited to a tiny but positive span", () => {
  let zoom = null;
  for (let k = 0; k < 100; k++) zoom = zoomAround(zoom, full, 7, 0.1);
  assert.ok(zoom[1] > zoom[0]);
  assert.ok(zoom[1] - zoom[0] >= 15 * 1e-7 * (1 - 1e-9));
});

test("panning moves the window and stops at the ends", () => {
  const zoom = [5, 7];
  assert.deepEqual(panBy(zoom, full, 1), [6, 8]);
  assert.deepEqual(panBy(zoom, full, -100), [0, 2]);
  assert.deepEqual(panBy(zoom, full, 100), [13, 15]);
  assert.equal(panBy(null, full, 3), null, "nothing to pan at full view");
});

test("clampDomain shifts into range and keeps the span", () => {
  assert.deepEqual(clampDomain([-1, 2], full), [0, 3]);
  assert.deepEqual(clampDomain([14, 17], full), [12, 15]);
  assert.deepEqual(clampDomain([-5, 30], full), [0, 15]);
  assert.equal(asZoom([0, 15], full), null);
});

test("after a scene change: keep the zoom unless the makespan changed more than 2×", () => {
  assert.deepEqual(zoomAfterDomainChange([2, 4], [0, 15], [0, 13]), [2, 4], "small change: kept");
  assert.deepEqual(zoomAfterDomainChange([12, 14], [0, 15], [0, 13]), [11, 13], "kept, clamped inside");
  assert.equal(zoomAfterDomainChange([2, 4], [0, 15], [0, 7]), null, "halved and more: reset");
  assert.equal(zoomAfterDomainChange([2, 4], [0, 15], [0, 31]), null, "doubled and more: reset");
  assert.equal(zoomAfterDomainChange([14, 14.5], [0, 15], [0, 10]), null, "past the new end: reset");
  assert.equal(zoomAfterDomainChange(null, [0, 15], [0, 13]), null);
});

test("time_window trait <-> zoom", () => {
  assert.deepEqual(zoomToWindow(null), []);
  assert.deepEqual(zoomToWindow([1, 2]), [1, 2]);
  assert.equal(zoomFromWindow([], full), null);
  assert.equal(zoomFromWindow(undefined, full), null);
  assert.equal(zoomFromWindow([3, 3], full), null, "an empty window is no zoom");
  assert.equal(zoomFromWindow([0, 15], full), null, "the whole domain is no zoom");
  assert.deepEqual(zoomFromWindow([2, 4], full), [2, 4]);
  assert.deepEqual(zoomFromWindow([14, 18], full), [11, 15], "clamped into the domain");
  assert.ok(sameZoom([2, 4], [2, 4 + 1e-12], full));
  assert.ok(!sameZoom([2, 4], [2, 4.1], full));
  assert.ok(sameZoom(null, null, full));
  assert.ok(!sameZoom(null, [2, 4], full));
});

test("wheel: down zooms out, up zooms in, line and page modes scale", () => {
  assert.ok(wheelZoomFactor(100) > 1);
  assert.ok(wheelZoomFactor(-100) < 1);
  assert.ok(Math.abs(wheelZoomFactor(3, 1) - wheelZoomFactor(48, 0)) < 1e-12);
  assert.ok(wheelZoomFactor(1e6) <= Math.exp(2) + 1e-12, "one event cannot zoom without bound");
});

test("zoom sharing writes the window at once with now, throttled otherwise, never when unchanged", async () => {
  const { createZoomSharing } = await import("../diagram/zoom-sharing.js");
  const writes = [];
  const state = { time_window: [] };
  const model = { get: (k) => state[k], set: (k, v) => { state[k] = v; writes.push(v); }, save_changes() {} };
  const timers = [];
  const fakeWindow = { performance: { now: () => 0 }, setTimeout: (f) => timers.push(f), clearTimeout() {} };
  let zoom = [2, 4];
  const sharing = createZoomSharing({ model, window: fakeWindow, zoom: () => zoom, full: () => [0, 10] });
  sharing.publish({ now: true });
  assert.deepEqual(writes, [[2, 4]]);
  sharing.publish({ now: true });
  assert.equal(writes.length, 1, "unchanged: not written again");
  zoom = [3, 5];
  sharing.publish();
  assert.equal(writes.length, 1, "throttled: waits for its timer");
  timers.shift()();
  assert.deepEqual(writes.at(-1), [3, 5]);
  sharing.dispose();
  zoom = [1, 2];
  sharing.publish({ now: true });
  assert.equal(writes.length, 2, "nothing after dispose");
});

test("the PNG file is named after the diagram's title", async () => {
  const { pngFileName } = await import("../shared/export.js");
  assert.equal(pngFileName("fused + pipelined: makespan 1.2 ms"), "fused-pipelined-makespan-1.2-ms.png");
  assert.equal(pngFileName(""), "campaign.png");
  assert.equal(pngFileName("../../etc/passwd"), "etc-passwd.png");
});
