"""Axis ticks, as js/shared/ticks.js places them."""

from __future__ import annotations

import math

from ..formatting import format_si, format_ticks

#: A tick label this many pixels or fewer from the peak's own label is left out (they would overlap).
PEAK_LABEL_CLEARANCE_PX = 14


def nice_step(span: float, count: int) -> float:
    if not (span > 0) or not math.isfinite(span):
        return 0.0
    raw = span / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw))
    ratio = raw / magnitude
    factor = 10 if ratio >= math.sqrt(50) else 5 if ratio >= math.sqrt(10) else 2 if ratio >= math.sqrt(2) else 1
    return factor * magnitude


def nice_ticks(lo: float, hi: float, count: int = 5):
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [], 0.0
    lo, hi = min(lo, hi), max(lo, hi)
    step = nice_step(hi - lo, count)
    if step == 0:
        return [lo], 0.0
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    values = [float(f"{k * step:.12g}") for k in range(first, min(last, first + 999) + 1)]
    return values, step


def _tick_count(pixels: float, spacing: float) -> int:
    return max(2, int(pixels // spacing))


def time_ticks(t0: float, t1: float, pixels: float, factor: float = 1.0) -> list[tuple[float, str]]:
    """The browser's time-axis ticks: about one per 90 CSS px, at 1-2-5 steps of the display unit
    (label value = time × ``factor``, see ``formatting.time_unit_for``)."""
    values, step = nice_ticks(t0 * factor, t1 * factor, _tick_count(pixels, 90))
    return [(v / factor, label) for v, label in zip(values, format_ticks(values, step))]


def utilization_ticks(
    mode: str, peak: float, unit: str, pixels_per_unit: float, top: float = 1.0
) -> list[tuple[float, str]]:
    """The browser's y ticks (js/shared/ticks.js): 0 to 1.0, or to ``top`` when content goes higher;
    fractions, or y × peak in ``unit`` (absolute, the peak labelled at 1.0)."""
    reach = top if math.isfinite(top) and top > 1 else 1.0
    count = min(10, _tick_count(pixels_per_unit * reach, 40))
    if mode == "absolute" and peak > 0 and math.isfinite(peak):
        values, step = nice_ticks(0, peak * reach, count)
        labels = format_ticks(values, step, unit or "")
        ticks = [
            (v / peak, label)
            for v, label in zip(values, labels)
            if abs(1 - v / peak) * pixels_per_unit >= PEAK_LABEL_CLEARANCE_PX
        ]
        ticks.append((1.0, format_si(peak, unit or "")))
        return sorted(ticks, key=lambda tick: tick[0])
    values, step = nice_ticks(0, reach, count)
    return list(zip(values, format_ticks(values, step)))
