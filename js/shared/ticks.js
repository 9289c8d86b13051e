// "Nice" tick positions (1, 2, 5 × 10^k steps) for the time axis and the utilization axis.
import { formatSI, formatTicks } from "./format.js";

/** Ticks closer than this (px) to the labelled peak at 1.0 are dropped in absolute mode. */
const PEAK_LABEL_CLEARANCE_PX = 14;

const SQRT50 = Math.sqrt(50);
const SQRT10 = Math.sqrt(10);
const SQRT2 = Math.SQRT2;

/** A step of 1, 2 or 5 × 10^k giving roughly `count` intervals over `span`. */
export function niceStep(span, count) {
  if (!(span > 0) || !Number.isFinite(span)) return 0;
  const raw = span / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const ratio = raw / magnitude;
  const factor = ratio >= SQRT50 ? 10 : ratio >= SQRT10 ? 5 : ratio >= SQRT2 ? 2 : 1;
  return factor * magnitude;
}

/** Multiples of a nice step inside [lo, hi]. Returns { values, step }. */
export function niceTicks(lo, hi, count = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { values: [], step: 0 };
  if (hi < lo) [lo, hi] = [hi, lo];
  const step = niceStep(hi - lo, count);
  if (step === 0) return { values: [lo], step: 0 };
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  const values = [];
  for (let k = first; k <= last && values.length < 1000; k++) {
    values.push(Number((k * step).toPrecision(12)));
  }
  return { values, step };
}

/** How many ticks fit along `pixels` with one per `spacing` px (at least 2). */
export function tickCountFor(pixels, spacing) {
  return Math.max(2, Math.floor(pixels / spacing));
}

/**
 * Time-axis ticks: [{ value, label }] over the visible domain; labels in the display unit
 * (label value = time × `factor`, see format.timeUnitFor), ticks at nice values of it.
 */
export function timeTicks(t0, t1, pixels, factor = 1) {
  const { values, step } = niceTicks(t0 * factor, t1 * factor, tickCountFor(pixels, 90));
  const labels = formatTicks(values, step);
  return values.map((value, i) => ({ value: value / factor, label: labels[i] }));
}

/**
 * Utilization-axis ticks from 0 up to 1.0, or up to `top` when content (an oversubscribed compute
 * line) goes higher: the axis tells the truth. `pixelsPerUnit` is the height in px of y ∈ [0, 1].
 * relative: fractions of peak; absolute: nice values of y × peak in `unit`, the peak itself
 * labelled at 1.0. Returns [{ y, label }], ascending.
 */
export function utilizationTicks({ mode, peak, unit, pixelsPerUnit, top = 1 }) {
  const reach = Number.isFinite(top) && top > 1 ? top : 1;
  const count = Math.min(10, tickCountFor(pixelsPerUnit * reach, 40));
  if (mode === "absolute" && peak > 0 && Number.isFinite(peak)) {
    const { values, step } = niceTicks(0, peak * reach, count);
    const labels = formatTicks(values, step, unit || "");
    const ticks = values
      .map((v, i) => ({ y: v / peak, label: labels[i] }))
      .filter((tick) => Math.abs(1 - tick.y) * pixelsPerUnit >= PEAK_LABEL_CLEARANCE_PX);
    // The peak itself, at 1.0, labelled with its own value.
    ticks.push({ y: 1, label: formatSI(peak, unit || "") });
    return ticks.sort((a, b) => a.y - b.y);
  }
  const { values, step } = niceTicks(0, reach, count);
  const labels = formatTicks(values, step);
  return values.map((v, i) => ({ y: v, label: labels[i] }));
}
