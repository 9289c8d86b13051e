// Number formatting for labels, the tooltip and the readout. Non-finite numbers read "—".

export const MISSING = "—";

const SI_PREFIXES = [
  [1e24, "Y"], [1e21, "Z"], [1e18, "E"], [1e15, "P"], [1e12, "T"], [1e9, "G"],
  [1e6, "M"], [1e3, "k"], [1, ""], [1e-3, "m"], [1e-6, "µ"], [1e-9, "n"],
  [1e-12, "p"], [1e-15, "f"], [1e-18, "a"],
];

/** The SI prefix [factor, symbol] to show `magnitude` (≥ 0) with 1 ≤ mantissa < 1000. */
export function siPrefix(magnitude) {
  if (!(magnitude > 0) || !Number.isFinite(magnitude)) return [1, ""];
  for (const prefix of SI_PREFIXES) {
    if (magnitude >= prefix[0] * (1 - 1e-12)) return prefix;
  }
  return SI_PREFIXES[SI_PREFIXES.length - 1];
}

/** "1.50" → "1.5", "2.000" → "2", "120" → "120". Leaves exponent forms alone. */
export function trimZeros(text) {
  if (!text.includes(".") || /e/i.test(text)) return text;
  return text.replace(/0+$/, "").replace(/\.$/, "");
}

/** Units an SI prefix attaches to ("3 TB/s", "2 GFLOP"); others take it spaced ("2.5 M cycles"). */
export const ATTACHED_UNITS = new Set(["s", "B", "b", "FLOP", "op", "ops", "Hz", "W", "J", "bit", "bits"]);

function joinUnit(number, prefix, unit) {
  const text = unit ?? "";
  if (prefix && text && !ATTACHED_UNITS.has(text.split("/")[0])) return `${number} ${prefix} ${text}`;
  const suffix = `${prefix}${text}`;
  return suffix ? `${number} ${suffix}` : number;
}

/** 2.56e13, "FLOP/s" → "25.6 TFLOP/s" (`digits` significant digits). */
export function formatSI(value, unit = "", digits = 3) {
  if (typeof value !== "number" || !Number.isFinite(value)) return MISSING;
  if (value === 0) return joinUnit("0", "", unit);
  let [factor, symbol] = siPrefix(Math.abs(value));
  let mantissa = Number((value / factor).toPrecision(digits));
  if (Math.abs(mantissa) >= 1000 && factor < 1e24) {
    [factor, symbol] = siPrefix(Math.abs(value) * 1.001);
    mantissa = Number((value / factor).toPrecision(digits));
  }
  return joinUnit(trimZeros(mantissa.toPrecision(digits)), symbol, unit);
}

/** A plain number with `digits` significant digits, SI prefixes for very large or small ones. */
export function formatNumber(value, digits = 4) {
  if (typeof value !== "number" || !Number.isFinite(value)) return MISSING;
  const magnitude = Math.abs(value);
  if (value !== 0 && (magnitude >= 1e6 || magnitude < 1e-3)) return formatSI(value, "", digits);
  return trimZeros(Number(value.toPrecision(digits)).toString());
}

/**
 * A value with its unit, e.g. a duration: formatQuantity(10.75, "s") → "10.75 s",
 * formatQuantity(0.0183, "s") → "18.3 ms" (seconds below 1 take a prefix, as people write them).
 */
export function formatQuantity(value, unit = "", digits = 4) {
  if (typeof value !== "number" || !Number.isFinite(value)) return MISSING;
  const magnitude = Math.abs(value);
  const smallest = unit === "s" ? 1 : 1e-3;
  if (value !== 0 && (magnitude >= 1e6 || magnitude < smallest)) return formatSI(value, unit, digits);
  return joinUnit(formatNumber(value, digits), "", unit);
}

/** A fraction as a percentage: 0.7 → "70%", 0.071 → "7.1%", 1.5 → "150%". */
export function formatPercent(fraction) {
  if (typeof fraction !== "number" || !Number.isFinite(fraction)) return MISSING;
  const percent = fraction * 100;
  if (Math.abs(percent) >= 100) return `${Math.round(percent)}%`;
  if (percent === 0) return "0%";
  return `${trimZeros(percent.toPrecision(3))}%`;
}

/**
 * Labels for ticks that share one step: fixed decimals when the numbers are moderate, a shared SI
 * prefix when they are very large or very small (`unit` appended when given).
 */
export function formatTicks(values, step, unit = "") {
  const largest = values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const useSI = unit !== "" || largest >= 1e5 || (step > 0 && step < 1e-3);
  if (!useSI) {
    const decimals = step > 0 ? Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) : 0;
    return values.map((v) => (Math.abs(v) < step * 1e-9 ? "0" : v.toFixed(Math.min(decimals, 20))));
  }
  const [factor, symbol] = siPrefix(largest > 0 ? largest : step);
  const scaledStep = step / factor;
  const decimals = scaledStep > 0 ? Math.max(0, -Math.floor(Math.log10(scaledStep) + 1e-9)) : 0;
  return values.map((v) => {
    if (Math.abs(v) < step * 1e-9) return "0";
    const number = (v / factor).toFixed(Math.min(decimals, 20));
    return unit === "" ? `${number}${symbol}` : joinUnit(number, symbol, unit);
  });
}

/** "t0–t1" with enough decimals to tell the ends apart (62430–62432.5, 0.75–1.5). */
export function formatSpan(t0, t1) {
  if (!Number.isFinite(t0) || !Number.isFinite(t1)) return MISSING;
  const span = Math.abs(t1 - t0);
  const largest = Math.max(Math.abs(t0), Math.abs(t1));
  if (largest >= 1e9 || (largest > 0 && largest < 1e-3)) return `${formatNumber(t0, 6)}–${formatNumber(t1, 6)}`;
  const decimals = span > 0 ? Math.min(9, Math.max(0, Math.ceil(-Math.log10(span)) + 2)) : 3;
  return `${trimZeros(t0.toFixed(decimals))}–${trimZeros(t1.toFixed(decimals))}`;
}

/**
 * The unit a time axis reads best in, for content reaching `end`: seconds below 1 s become ms,
 * below 1 ms µs, …, so labels never read "0.5m" under "time (s)". Returns { factor, unit } with
 * label value = time × factor. Other units are left as they are.
 */
export function timeUnitFor(unit, end) {
  if (unit !== "s" || !(end > 0) || !Number.isFinite(end) || end >= 1) return { factor: 1, unit: unit ?? "" };
  const [factor, symbol] = siPrefix(end);
  return { factor: 1 / factor, unit: `${symbol}s` };
}
