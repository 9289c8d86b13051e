"""Numbers with SI prefixes, as the browser view writes them (a port of js/shared/format.js), so labels
read the same in a static figure, a tooltip and the browser."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

_SI_PREFIXES = (
    (1e24, "Y"),
    (1e21, "Z"),
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
    (1e-3, "m"),
    (1e-6, "µ"),
    (1e-9, "n"),
    (1e-12, "p"),
    (1e-15, "f"),
    (1e-18, "a"),
)
MISSING = "—"


def si_prefix(magnitude: float):
    if not (magnitude > 0) or not math.isfinite(magnitude):
        return 1.0, ""
    for factor, symbol in _SI_PREFIXES:
        if magnitude >= factor * (1 - 1e-12):
            return factor, symbol
    return _SI_PREFIXES[-1]


def trim_zeros(text: str) -> str:
    if "." not in text or "e" in text.lower():
        return text
    return text.rstrip("0").rstrip(".")


def _to_precision(value: float, digits: int) -> str:
    """JavaScript's ``Number.prototype.toPrecision``."""
    if value == 0:
        return "0" if digits == 1 else "0." + "0" * (digits - 1)
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    exponent = int(exponent)
    if exponent < -6 or exponent >= digits:
        return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    return f"{value:.{max(0, digits - 1 - exponent)}f}"


def _js_number(value: float) -> str:
    """JavaScript's ``String(number)`` for moderate magnitudes."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(float(value))


#: Units an SI prefix attaches to ("3 TB/s", "2 GFLOP"); any other unit takes it spaced ("2.5 M cycles").
ATTACHED_UNITS = frozenset({"s", "B", "b", "FLOP", "op", "ops", "Hz", "W", "J", "bit", "bits"})


def join_unit(number: str, prefix: str, unit: str) -> str:
    unit = unit or ""
    if prefix and unit and unit.split("/")[0] not in ATTACHED_UNITS:
        return f"{number} {prefix} {unit}"
    suffix = f"{prefix}{unit}"
    return f"{number} {suffix}" if suffix else number


def format_si(value: float, unit: str = "", digits: int = 3) -> str:
    """2.56e13, "FLOP/s" → "25.6 TFLOP/s"; 2.5e6, "cycles" → "2.5 M cycles" (js/shared/format.js ``formatSI``).

    The one SI formatter of the package: it can stand in for the CLI's ``_si`` (units such as
    "cycles" take a spaced prefix; non-finite values read "—")."""
    if not isinstance(value, (int, float, np.floating, np.integer)) or not math.isfinite(value):
        return MISSING
    value = float(value)
    if value == 0:
        return join_unit("0", "", unit)
    factor, symbol = si_prefix(abs(value))
    mantissa = float(_to_precision(value / factor, digits))
    if abs(mantissa) >= 1000 and factor < 1e24:
        factor, symbol = si_prefix(abs(value) * 1.001)
        mantissa = float(_to_precision(value / factor, digits))
    return join_unit(trim_zeros(_to_precision(mantissa, digits)), symbol, unit)


def format_number(value: float, digits: int = 4) -> str:
    if not math.isfinite(value):
        return MISSING
    magnitude = abs(value)
    if value != 0 and (magnitude >= 1e6 or magnitude < 1e-3):
        return format_si(value, "", digits)
    return trim_zeros(_js_number(float(_to_precision(value, digits))))


def format_quantity(value: float, unit: str = "", digits: int = 4) -> str:
    """A value with its unit: format_quantity(10.75, "s") → "10.75 s"."""
    if not math.isfinite(value):
        return MISSING
    magnitude = abs(value)
    smallest = 1.0 if unit == "s" else 1e-3  # seconds below 1 take a prefix: "18.3 ms"
    if value != 0 and (magnitude >= 1e6 or magnitude < smallest):
        return format_si(value, unit, digits)
    return join_unit(format_number(value, digits), "", unit)


def format_percent(fraction: float) -> str:
    if not math.isfinite(fraction):
        return MISSING
    percent = fraction * 100
    if abs(percent) >= 100:
        return f"{math.floor(percent + 0.5)}%"
    if percent == 0:
        return "0%"
    return f"{trim_zeros(_to_precision(percent, 3))}%"


def format_ticks(values, step: float, unit: str = "") -> list[str]:
    largest = max((abs(v) for v in values), default=0.0)
    use_si = unit != "" or largest >= 1e5 or (0 < step < 1e-3)
    if not use_si:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
        return ["0" if abs(v) < step * 1e-9 else f"{v:.{min(decimals, 20)}f}" for v in values]
    factor, symbol = si_prefix(largest if largest > 0 else step)
    scaled = step / factor
    decimals = max(0, -math.floor(math.log10(scaled) + 1e-9)) if scaled > 0 else 0
    out = []
    for v in values:
        if abs(v) < step * 1e-9:
            out.append("0")
            continue
        number = f"{v / factor:.{min(decimals, 20)}f}"
        out.append(f"{number}{symbol}" if unit == "" else join_unit(number, symbol, unit))
    return out


def scale_tick_labels(values, step: float, unit: str = "", *, end: float | None = None) -> list[str]:
    """Labels of ticks at ``values`` (``step`` apart) on a colour bar or value axis in ``unit``, each with
    its unit: "%" for fractions ("25%"), times in the unit of a time axis reaching ``end`` ("2 ms"), "×"
    for ratios ("1.5×"), an SI prefix otherwise ("400 GB/s")."""
    values = [float(v) for v in values]
    if unit == "%":
        return [format_percent(v) for v in values]
    if unit == "s":
        factor, shown = time_unit_for(unit, end or max((abs(v) for v in values), default=0.0))
        return format_ticks([v * factor for v in values], step * factor, shown)
    if unit == "×":
        return [f"{label}×" for label in format_ticks(values, step)]
    return format_ticks(values, step, unit)


def js_number_key(value: float) -> str:
    """``String(value)`` in JavaScript (the key a JS object lookup of the number uses):
    js_number_key(1e11) → "100000000000", js_number_key(1e21) → "1e+21", js_number_key(2.5e-7) → "2.5e-7"."""
    value = float(value)
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # the shortest digits that round-trip (Python's repr and JS agree on them), value = 0.digits × 10**n
    shortest = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, shortest.digits))
    n = len(digits) + shortest.exponent
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    body = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{body}e{'+' if e >= 0 else '-'}{abs(e)}"


def format_span(t0: float, t1: float) -> str:
    """ "t0–t1" with enough decimals to tell the ends apart."""
    if not (math.isfinite(t0) and math.isfinite(t1)):
        return MISSING
    span = abs(t1 - t0)
    largest = max(abs(t0), abs(t1))
    if largest >= 1e9 or 0 < largest < 1e-3:
        return f"{format_number(t0, 6)}–{format_number(t1, 6)}"
    decimals = min(9, max(0, math.ceil(-math.log10(span)) + 2)) if span > 0 else 3
    return f"{trim_zeros(f'{t0:.{decimals}f}')}–{trim_zeros(f'{t1:.{decimals}f}')}"


def time_unit_for(unit: str, end: float) -> tuple[float, str]:
    """The unit a time axis reads best in for content reaching ``end`` (js/shared/format.js ``timeUnitFor``):
    seconds below 1 s become ms, µs, …; returns ``(factor, unit)``, label value = time × factor."""
    if unit != "s" or not (end > 0) or not math.isfinite(end) or end >= 1:
        return 1.0, unit or ""
    factor, symbol = si_prefix(end)
    return 1.0 / factor, f"{symbol}s"


def format_reading(value: float, unit: str = "", *, end: float | None = None, digits: int = 3) -> str:
    """A number a person reads in a title or readout, in the unit of the axis beside it, with
    ``digits`` significant digits: times in seconds take the unit of a time axis reaching ``end``
    (the value itself when None): format_reading(5.24288e-06, "s") → "5.24 µs",
    format_reading(0.0021, "s", end=0.5) → "2.1 ms". Other units as ``format_quantity``."""
    if unit == "s":
        if not math.isfinite(value):
            return MISSING
        factor, shown = time_unit_for(unit, abs(value) if end is None else end)
        return join_unit(format_number(value * factor, digits), "", shown)
    return format_quantity(value, unit, digits)


def format_span_reading(t0: float, t1: float, unit: str = "", *, end: float | None = None) -> str:
    """ "t0–t1 unit", in the unit of a time axis reaching ``end`` (``t1`` when None):
    format_span_reading(0.0008, 0.0112, "s") → "0.8–11.2 ms"."""
    factor, shown = time_unit_for(unit, abs(t1) if end is None else end) if unit == "s" else (1.0, unit)
    span = format_span(t0 * factor, t1 * factor)
    return f"{span} {shown}" if shown and span != MISSING else span


def format_speedup(ratio: float, digits: int = 3) -> str:
    """How much faster (``ratio`` = old time / new time): 2.5 → "2.5× faster", 0.04 → "25× slower",
    1 → "same time". A slowdown is said as such, never as a fraction below 1×."""
    if not (isinstance(ratio, (int, float, np.floating, np.integer)) and math.isfinite(ratio) and ratio > 0):
        return MISSING
    if abs(ratio - 1) < 0.5 * 10 ** (1 - digits):
        return "same time"
    if ratio > 1:
        return f"{format_number(float(ratio), digits)}× faster"
    return f"{format_number(1 / float(ratio), digits)}× slower"


# What a legend shows: at most LEGEND_MAX_ENTRIES names (the rest summarized as "+N more"), each at
# most LABEL_MAX_CHARS characters. The one rule for both renderers' legends and labels.
LEGEND_MAX_ENTRIES = 24
LABEL_MAX_CHARS = 40
ELLIPSIS = "…"


def shorten_middle(text: str, max_chars: int = LABEL_MAX_CHARS) -> str:
    """``text`` at most ``max_chars`` characters, cut in the middle with an ellipsis so that both
    the start and the distinguishing end stay: "void gemm_kernel<…>::run_128x64" keeps "run_128x64".
    The end keeps the larger half (kernel names differ most at the end)."""
    text = str(text)
    if len(text) <= max_chars:
        return text
    if max_chars <= 1:
        return ELLIPSIS[:max_chars]
    keep = max_chars - 1
    head = keep // 2
    return text[:head] + ELLIPSIS + text[len(text) - (keep - head) :]


def shorten_names(names, max_chars: int = LABEL_MAX_CHARS) -> list[str]:
    """Each name shortened as ``shorten_middle`` does, told apart where two distinct names would
    shorten to the same text: those get an index, "#1", "#2", … in their order, kept inside ``max_chars``
    ("void gemm<…>::run_128x64 #2"). A name given twice stays the same name (one label)."""
    names = [str(n) for n in names]
    short = [shorten_middle(n, max_chars) for n in names]
    groups: dict[str, list[str]] = {}
    for name, label in zip(names, short):
        if name not in groups.setdefault(label, []):
            groups[label].append(name)
    out = []
    for name, label in zip(names, short):
        alike = groups[label]
        if len(alike) == 1:
            out.append(label)
            continue
        tag = f" #{alike.index(name) + 1}"
        out.append(shorten_middle(name, max(1, max_chars - len(tag))) + tag)
    return out


def plural(count: int, word: str, many: str | None = None) -> str:
    """ "1 phase", "3 phases", "1,200 phases": the count and the word, singular for exactly one
    (``many`` when the plural is not ``word`` + "s")."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def legend_selection(weights, max_entries: int = LEGEND_MAX_ENTRIES) -> tuple[list[int], int]:
    """Which of ``len(weights)`` names a legend lists, and how many it summarizes as "+N more":
    all when they are at most ``max_entries``; else the ``max_entries - 1`` heaviest (most time
    drawn, ties by order), in their own order, and the rest counted (the summary takes a row)."""
    weights = np.asarray(weights, dtype=np.float64)
    n = weights.size
    if n <= max_entries:
        return list(range(n)), 0
    shown = max(0, max_entries - 1)
    heaviest = np.lexsort((np.arange(n), -np.nan_to_num(weights, nan=0.0)))[:shown]
    return sorted(int(i) for i in heaviest), n - shown


def more_label(hidden: int) -> str:
    """The summary entry of a capped legend: "+142 more"."""
    return f"+{hidden:,} more"
