// The golden cases shared with pytest (tests/data/golden/*.json, tests/test_golden.py): both
// renderers must format, tick and aggregate the same way.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { piecesToDraw } from "../diagram/aggregate.js";
import { formatPercent, formatQuantity, formatSI, formatSpan, formatTicks, timeUnitFor } from "../shared/format.js";
import { legendEntries, legendSelection, moreLabel, shortenMiddle } from "../shared/legend.js";
import { buildSceneIndex } from "../diagram/scene-index.js";
import { timeTicks, utilizationTicks } from "../shared/ticks.js";

const golden = (name) => JSON.parse(readFileSync(new URL(`../../tests/data/golden/${name}.json`, import.meta.url), "utf8"));
const num = (v) => (v === null ? NaN : v);

test("golden: number formatting", () => {
  const g = golden("format");
  for (const [[v, unit, digits], want] of g.si) assert.equal(formatSI(num(v), unit, digits), want, `formatSI(${v}, ${unit})`);
  for (const [[v, unit, digits], want] of g.quantity) assert.equal(formatQuantity(num(v), unit, digits), want, `formatQuantity(${v}, ${unit})`);
  for (const [v, want] of g.percent) assert.equal(formatPercent(v), want);
  for (const [[a, b], want] of g.span) assert.equal(formatSpan(a, b), want);
  for (const [[values, step, unit], want] of g.ticks) assert.deepEqual(formatTicks(values, step, unit), want);
});

test("golden: axis ticks", () => {
  const g = golden("ticks");
  for (const [[t0, t1, px, factor], want] of g.time) {
    const got = timeTicks(t0, t1, px, factor ?? 1).map((t) => [Number(t.value.toPrecision(12)), t.label]);
    assert.deepEqual(got, want, `time ${t0}..${t1}`);
  }
  for (const [[unit, end], [factor, display]] of g.time_unit) {
    const got = timeUnitFor(unit, end);
    assert.equal(got.unit, display);
    assert.ok(Math.abs(got.factor - factor) <= 1e-9 * factor, `${got.factor} vs ${factor}`);
  }
  for (const [args, want] of g.utilization) {
    const got = utilizationTicks(args).map((t) => [Number(t.y.toPrecision(12)), t.label]);
    assert.deepEqual(got, want, JSON.stringify(args));
  }
});

test("golden: per-pixel merging, the rule of scene_pixels.merge_pixel_columns", () => {
  for (const { name, scene: s, t0, t1, columns, limit, expected } of golden("aggregate").cases) {
    const scene = {
      n: s.x0.length, x0: Float64Array.from(s.x0), x1: Float64Array.from(s.x1), phase: Int32Array.from(s.phase),
      base_y: Float64Array.from(s.base_y), line_y: Float64Array.from(s.line_y), well_top: Float64Array.from(s.well_top),
      fill_top: Float64Array.from(s.fill_top), dash_from: Float64Array.from(s.dash_from.map(num)), flags: Uint8Array.from(s.flags),
    };
    const drawn = piecesToDraw(scene, buildSceneIndex(scene), t0, t1, columns, limit);
    const keys = Object.keys(expected[0]);
    const got = [...Array(drawn.n).keys()].map((k) => Object.fromEntries(keys.map((key) => [key, Number(Number(drawn[key][k]).toPrecision(7))])));
    const want = expected.map((record) => Object.fromEntries(Object.entries(record).map(([key, v]) => [key, num(v)])));
    assert.deepEqual(got, want, name); // in draw order
  }
});

test("golden: the legend rule (caps and middle shortening)", () => {
  const g = golden("legend");
  for (const [[text, maxChars], want] of g.shorten_middle) assert.equal(shortenMiddle(text, maxChars), want, `shortenMiddle(${text}, ${maxChars})`);
  for (const [[weights, maxEntries], want] of g.selection) assert.deepEqual(legendSelection(weights, maxEntries), want, `selection ${weights}`);
  for (const [hidden, want] of g.more) assert.equal(moreLabel(hidden), want);
  const names = Array.from({ length: 189 }, (_, i) => `void kernel_${i}<float, ${"x".repeat(60)}>::run_${i}`);
  const legend = legendEntries(names, [], {}, names.map((_, i) => i));
  const phases = legend.filter((e) => e.kind === "phase");
  assert.equal(phases.length, g.max_entries - 1);
  assert.ok(phases.every((e) => e.label.length <= g.max_chars && e.fullLabel.length > g.max_chars));
  assert.equal(legend.find((e) => e.kind === "more").label, moreLabel(189 - (g.max_entries - 1)));
});

