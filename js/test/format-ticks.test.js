import assert from "node:assert/strict";
import { test } from "node:test";
import { formatNumber, formatPercent, formatQuantity, formatSI, formatSpan, formatTicks, MISSING } from "../shared/format.js";
import { linearScale } from "../shared/scale.js";
import { niceStep, niceTicks, timeTicks, utilizationTicks } from "../shared/ticks.js";

test("formatSI picks the prefix and keeps 3 significant digits", () => {
  assert.equal(formatSI(25.6e12, "FLOP/s"), "25.6 TFLOP/s");
  assert.equal(formatSI(1.6e12, "B/s"), "1.6 TB/s");
  assert.equal(formatSI(999.96e9, "B"), "1 TB", "rounding up to 1000 moves to the next prefix");
  assert.equal(formatSI(0.0025, "s"), "2.5 ms");
  assert.equal(formatSI(-4.2e6, "B"), "-4.2 MB");
  assert.equal(formatSI(0, "B"), "0 B");
  assert.equal(formatSI(12, ""), "12");
});

test("non-finite numbers read as a dash everywhere", () => {
  for (const value of [NaN, Infinity, -Infinity, undefined, null]) {
    assert.equal(formatSI(value, "B"), MISSING);
    assert.equal(formatNumber(value), MISSING);
    assert.equal(formatPercent(value), MISSING);
    assert.equal(formatQuantity(value, "s"), MISSING);
  }
});

test("percentages, plain numbers and quantities", () => {
  assert.equal(formatPercent(0.7), "70%");
  assert.equal(formatPercent(0.071), "7.1%");
  assert.equal(formatPercent(1.5), "150%");
  assert.equal(formatPercent(0), "0%");
  assert.equal(formatNumber(10.75), "10.75");
  assert.equal(formatNumber(13.125, 6), "13.125");
  assert.equal(formatNumber(2.5e7), "25 M");
  assert.equal(formatQuantity(10, "s"), "10 s");
  assert.equal(formatQuantity(3e-6, "s"), "3 µs");
});

test("niceStep is 1, 2 or 5 × 10^k", () => {
  assert.equal(niceStep(15, 5), 2);
  assert.equal(niceStep(1, 5), 0.2);
  assert.equal(niceStep(10.75, 10), 1);
  assert.equal(niceStep(2.56e13, 5), 5e12);
  for (const span of [0.003, 7, 123, 9.9e9]) {
    const step = niceStep(span, 6);
    const mantissa = step / 10 ** Math.floor(Math.log10(step));
    assert.ok([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9), `${step} for span ${span}`);
  }
});

test("niceTicks covers the domain with clean multiples", () => {
  assert.deepEqual(niceTicks(0, 15, 7).values, [0, 2, 4, 6, 8, 10, 12, 14]);
  assert.deepEqual(niceTicks(0, 1, 5).values, [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks(0.1, 0.35, 5).values, [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]);
  const { values } = niceTicks(3.2, 3.3, 5);
  assert.ok(values.every((v) => v >= 3.2 && v <= 3.3 + 1e-12));
  assert.equal(niceTicks(NaN, 1).values.length, 0);
});

test("tick labels share their decimals", () => {
  assert.deepEqual(formatTicks([0, 0.5, 1, 1.5], 0.5), ["0", "0.5", "1.0", "1.5"]);
  assert.deepEqual(formatTicks([0, 5, 10], 5), ["0", "5", "10"]);
  assert.deepEqual(formatTicks([0, 5e12, 1e13], 5e12, "FLOP/s"), ["0", "5 TFLOP/s", "10 TFLOP/s"]);
  assert.deepEqual(formatTicks([0, 2e6, 4e6], 2e6), ["0", "2M", "4M"]);
});

test("time ticks follow the visible domain and the width", () => {
  const wide = timeTicks(0, 15, 900);
  assert.equal(wide[0].value, 0);
  assert.ok(wide.at(-1).value <= 15);
  assert.ok(wide.length >= 5);
  const narrow = timeTicks(0, 15, 200);
  assert.ok(narrow.length < wide.length);
  const zoomed = timeTicks(3.25, 3.5, 900);
  assert.ok(zoomed.every((t) => t.value >= 3.25 && t.value <= 3.5));
});

test("utilization ticks stop at 1.0; absolute ones are y × peak with SI labels", () => {
  const relative = utilizationTicks({ mode: "relative", pixelsPerUnit: 240 });
  assert.equal(relative.at(-1).y, 1);
  assert.equal(relative.at(-1).label, "1.0");
  assert.ok(relative.every((t) => t.y <= 1));
  const absolute = utilizationTicks({ mode: "absolute", peak: 25.6e12, unit: "FLOP/s", pixelsPerUnit: 240 });
  assert.ok(absolute.every((t) => t.y <= 1 + 1e-12));
  const twenty = absolute.find((t) => t.label === "20 TFLOP/s");
  assert.ok(twenty, JSON.stringify(absolute));
  assert.ok(Math.abs(twenty.y - 20 / 25.6) < 1e-12);
  const top = absolute.at(-1);
  assert.deepEqual(top, { y: 1, label: "25.6 TFLOP/s" }, "the peak is labelled at 1.0");
  assert.ok(!absolute.some((t) => t.label === "25 TFLOP/s"), "a tick crowding the peak label is dropped");
  const roundPeak = utilizationTicks({ mode: "absolute", peak: 20e12, unit: "FLOP/s", pixelsPerUnit: 240 });
  assert.equal(roundPeak.filter((t) => t.y === 1).length, 1, "a nice peak is labelled once");
});

test("linearScale maps and inverts", () => {
  const x = linearScale(0, 15, 50, 950);
  assert.equal(x(0), 50);
  assert.equal(x(15), 950);
  assert.equal(x.invert(500), 7.5);
  const y = linearScale(0, 1.3, 400, 10);
  assert.ok(Math.abs(y.invert(y(0.7)) - 0.7) < 1e-12);
  assert.ok(y(1) < y(0), "y grows upwards on screen");
});

test("time spans keep enough decimals to tell their ends apart", () => {
  assert.equal(formatSpan(62430, 62432.5), "62430–62432.5");
  assert.equal(formatSpan(0.75, 1.5), "0.75–1.5");
  assert.equal(formatSpan(3, 13), "3–13");
  assert.equal(formatSpan(3.25, 3.2500001), "3.25–3.2500001");
  assert.equal(formatSpan(NaN, 1), MISSING);
});

test("seconds below one take an SI prefix", () => {
  assert.equal(formatQuantity(0.0183519, "s", 6), "18.3519 ms");
  assert.equal(formatQuantity(13.125, "s", 6), "13.125 s");
  assert.equal(formatQuantity(0.5, "ticks"), "0.5 ticks");
});
