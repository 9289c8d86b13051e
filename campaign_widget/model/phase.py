"""One step of a workload, known by volumes or by utilizations (docs/semantics.md#machines-phases-and-time)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import WorkloadError, WrongTypeError, check_flag, phase_field_error, short_repr
from .expr import ExpressionError, parse

SMALLEST = 1e-30  # the smallest duration (given or derived) and the smallest peak ...
LARGEST = 1e30  # ... and the largest number a phase or a machine holds: durations, rates and ratios derived
# from them then never overflow, and a duration split into tiles never rounds to 0
MAX_NAME = 1 << 16  # characters in a phase, tensor, machine or resource name (templated CUDA kernels reach 5,000)

_NUMERIC_FIELDS = ("duration", "compute_util", "memory_util", "ops", "bytes")
_VOLUME_FIELDS = ("ops", "bytes")  # may be expressions in parameters
# may map memory levels to values (docs/memory-hierarchy.md#phases-per-level)
_PER_LEVEL_FIELDS = ("bytes", "memory_util")


@dataclass(frozen=True)
class Phase:
    """A phase of a workload.

    Give volumes (``ops`` and ``bytes``: the duration then follows from the machine, or is the
    measured ``duration``) or utilizations (``compute_util``, ``memory_util`` as fractions of peak,
    with the ``duration`` they were measured over). ``after`` names the phases it depends on.
    ``reads``/``writes`` map tensor names to bytes; ``bytes`` then defaults to their sum.

    Volumes (``ops``, ``bytes``, tensor bytes) may be expressions in named parameters
    (``ops="2*M*N*K"``, docs/data-movement.md#sizes-and-parameters), evaluated by the ``Workload`` with its ``params``.

    On a machine with several memory levels, ``bytes`` (or ``memory_util``) may map level names to
    values: ``bytes={"L2": 200, "DRAM": 20}`` (docs/memory-hierarchy.md#phases-per-level). A level left out is unknown: it does
    not constrain the phase. A plain number means the level farthest from compute.

    ``bytes_in_flight`` (or ``requests_in_flight`` × ``request_bytes``) is the phase's memory
    concurrency: on a machine with latencies it caps the bandwidth the phase reaches at each level at
    bytes in flight / latency (docs/memory-hierarchy.md#latency-and-the-concurrency-roof).

    >>> Phase("A", duration=3, compute_util=0.7, memory_util=0.25)
    Phase('A', duration=3, compute_util=0.7, memory_util=0.25)
    >>> Phase("gemm", ops=2 * 4096**3, bytes=3 * 4096**2 * 4, after=("load",))
    Phase('gemm', ops=137438953472, bytes=201326592, after=('load',))
    """

    name: str
    duration: float | None = None
    compute_util: float | None = None
    memory_util: float | None = None
    ops: float | str | None = None
    bytes: float | str | None = None
    after: tuple[str, ...] = field(default_factory=tuple)
    tileable: bool = True
    reads: tuple[tuple[str, float | str], ...] = ()
    writes: tuple[tuple[str, float | str], ...] = ()
    bytes_in_flight: float | None = None  # docs/memory-hierarchy.md#latency-and-the-concurrency-roof

    def __init__(
        self,
        name,
        *,
        duration=None,
        compute_util=None,
        memory_util=None,
        ops=None,
        bytes=None,
        after=(),
        tileable=True,
        reads=None,
        writes=None,
        bytes_in_flight=None,
        requests_in_flight=None,
        request_bytes=None,
    ):
        check_name("phase name", name)
        set_ = object.__setattr__
        set_(self, "name", name)
        for key, value in zip(_NUMERIC_FIELDS, (duration, compute_util, memory_util, ops, bytes)):
            if key in _PER_LEVEL_FIELDS and isinstance(value, Mapping):
                set_(self, key, _checked_levels(name, key, value, expression=key in _VOLUME_FIELDS))
            else:
                set_(self, key, _checked_number(name, key, value, expression=key in _VOLUME_FIELDS))
        if isinstance(after, str):
            after = (after,)
        try:
            after = tuple(after)
        except TypeError:
            raise WrongTypeError(
                f"phase {short_repr(name)}: after={short_repr(after)} must be a list of phase names"
            ) from None
        for producer in after:
            if not isinstance(producer, str):
                raise WrongTypeError(
                    f"phase {short_repr(name)}: after contains {short_repr(producer)}, which is not a phase name"
                )
        set_(self, "after", after)
        set_(self, "tileable", check_flag(tileable, f"phase {short_repr(name)}: tileable"))
        set_(self, "reads", _checked_tensors(name, "reads", reads))
        set_(self, "writes", _checked_tensors(name, "writes", writes))
        set_(self, "bytes_in_flight", check_in_flight(name, bytes_in_flight, requests_in_flight, request_bytes))
        sizes = [b for _, b in self.reads + self.writes]
        if bytes is None and sizes and not any(isinstance(b, str) for b in sizes):
            # the algorithmic minimum: each tensor the phase touches moves once (docs/semantics.md#fusion);
            # with expressions, the Workload sums the evaluated sizes
            set_(self, "bytes", float(sum(sizes)))
        self._check_description()

    def _check_description(self):
        by_util = self.compute_util is not None or self.memory_util is not None
        by_volume = self.ops is not None or self.bytes is not None or bool(self.reads or self.writes)
        if self.compute_util is not None and self.ops is not None:
            raise phase_field_error(
                self.name, "compute_util", self.compute_util, "conflicts with ops: give one or the other"
            )
        if self.memory_util is not None and self.bytes is not None:
            raise phase_field_error(
                self.name, "memory_util", self.memory_util, "conflicts with bytes: give one or the other"
            )
        if not by_util and not by_volume:
            raise WorkloadError(
                f"phase {short_repr(self.name)}: neither duration with utilizations nor volumes given; "
                "pass duration= with compute_util=/memory_util=, or ops= and bytes="
            )
        if by_util and self.duration is None:
            raise phase_field_error(
                self.name, "duration", None, "is required when utilizations are given (they are rates over a duration)"
            )
        if self.duration == 0:
            raise phase_field_error(self.name, "duration", self.duration, "must be > 0")

    @property
    def symbolic(self) -> bool:
        """True when a volume is an expression in parameters (evaluated by the Workload)."""
        bytes_ = [v for _, v in self.bytes] if isinstance(self.bytes, tuple) else [self.bytes]
        return any(isinstance(v, str) for v in (self.ops, *bytes_)) or any(
            isinstance(b, str) for _, b in self.reads + self.writes
        )

    @property
    def per_level(self) -> bool:
        """True when ``bytes`` or ``memory_util`` names memory levels."""
        return isinstance(self.bytes, tuple) or isinstance(self.memory_util, tuple)

    def level_values(self, key: str) -> dict[str, float | str]:
        """``bytes`` or ``memory_util`` per named level (``{}`` when given as one number or not at all)."""
        value = getattr(self, key)
        return dict(value) if isinstance(value, tuple) else {}

    @property
    def measured(self) -> bool:
        """True when the duration is given rather than derived from the machine."""
        return self.duration is not None

    def __repr__(self):
        parts = [repr(self.name)]
        for key in _NUMERIC_FIELDS:
            value = getattr(self, key)
            if value is not None:
                parts.append(f"{key}={dict(value)!r}" if isinstance(value, tuple) else f"{key}={value!r}")
        if self.after:
            parts.append(f"after={self.after!r}")
        if not self.tileable:
            parts.append("tileable=False")
        if self.reads:
            parts.append(f"reads={dict(self.reads)!r}")
        if self.writes:
            parts.append(f"writes={dict(self.writes)!r}")
        if self.bytes_in_flight is not None:
            parts.append(f"bytes_in_flight={self.bytes_in_flight!r}")
        return f"Phase({', '.join(parts)})"


def _checked_levels(phase: str, key: str, values: Mapping, *, expression: bool) -> tuple[tuple[str, object], ...]:
    """A per-level ``bytes``/``memory_util`` as ((level, value), ...) in the order given."""
    if not values:
        raise WorkloadError(f"phase {short_repr(phase)}: {key}={{}} names no memory level; give a number or levels")
    checked = []
    for level, value in values.items():
        if not isinstance(level, str):
            raise WrongTypeError(
                f"phase {short_repr(phase)}: {key} has a level {short_repr(level)}; level names are strings"
            )
        check_name(f"phase {short_repr(phase)}: {key} level", level)
        if value is None:
            continue  # unknown, as if left out
        checked.append((level, _checked_number(phase, f"{key}[{level!r}]", value, expression=expression)))
    return tuple(checked)


def _checked_number(phase: str, key: str, value, *, expression: bool = False):
    if value is None:
        return None
    if (
        type(value) in (int, float)
        and (0 <= value <= LARGEST)
        and (value >= SMALLEST or value == 0 or key != "duration")
    ):
        return (
            value  # a plain number in range: no message to build (a reader of 100,000 phases calls this 500,000 times)
        )
    if expression and isinstance(value, str):
        try:
            parse(value)
        except ExpressionError as error:
            raise ExpressionError(f"phase {short_repr(phase)}: {key}: {error}") from None
        return value
    if (
        isinstance(value, (bool, np.bool_, str, bytes))
        or not isinstance(value, (int, float))
        and not hasattr(value, "__float__")
    ):
        raise WrongTypeError(f"phase {short_repr(phase)}: {key}={short_repr(value)} must be a number")
    number = check_number(f"phase {short_repr(phase)}: {key}", value, smallest=SMALLEST if key == "duration" else 0.0)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else number


def check_number(what: str, value, *, smallest: float = 0.0) -> float:
    """``value`` as a float in [0, LARGEST] (and 0 or >= ``smallest``); else a WorkloadError naming ``what``.

    Integers of any length are accepted only when in range (a 400-digit integer is an error, not an
    ``OverflowError``).
    """
    try:
        number = float(value)
    except OverflowError:
        raise WorkloadError(
            f"{what}={short_repr(value)} is out of range: numbers must be at most {LARGEST:g}"
        ) from None
    except (TypeError, ValueError):
        raise WrongTypeError(f"{what}={short_repr(value)} must be a number") from None
    if math.isnan(number) or math.isinf(number):
        raise WorkloadError(f"{what}={short_repr(value)} must be finite")
    if number < 0:
        raise WorkloadError(f"{what}={short_repr(value)} must be >= 0")
    if number > LARGEST:
        raise WorkloadError(f"{what}={short_repr(value)} is out of range: numbers must be at most {LARGEST:g}")
    if 0 < number < smallest:
        raise WorkloadError(f"{what}={short_repr(value)} is out of range: it must be at least {smallest:g}")
    return number


def check_positive(what: str, value) -> float:
    """``value`` as a finite float > 0; else an error naming ``what`` (a latency, a clock, bytes in flight)."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(value, (numbers.Real, np.number)):
        raise WrongTypeError(f"{what}={short_repr(value)} must be a number")
    number = check_number(what, value)  # finite, >= 0 and at most LARGEST
    if number == 0:
        raise WorkloadError(f"{what}={short_repr(value)} must be > 0")
    return number


def check_in_flight(phase: str, bytes_in_flight, requests_in_flight, request_bytes) -> float | None:
    """A phase's bytes in flight: ``bytes_in_flight``, or ``requests_in_flight`` × ``request_bytes``
    (both or neither), a finite number > 0; None when none is given."""
    who = f"phase {short_repr(phase)}"
    by_requests = requests_in_flight is not None or request_bytes is not None
    if by_requests and bytes_in_flight is not None:
        raise WorkloadError(
            f"{who}: bytes_in_flight={short_repr(bytes_in_flight)} conflicts with requests_in_flight/request_bytes; "
            "give one or the other"
        )
    if by_requests:
        if requests_in_flight is None or request_bytes is None:
            raise WorkloadError(f"{who}: give requests_in_flight= and request_bytes= together")
        requests = check_positive(f"{who}: requests_in_flight", requests_in_flight)
        return requests * check_positive(f"{who}: request_bytes", request_bytes)
    return None if bytes_in_flight is None else check_positive(f"{who}: bytes_in_flight", bytes_in_flight)


def check_name(what: str, name) -> str:
    """A name as given, or an error naming ``what``: a non-empty string of at most MAX_NAME characters,
    with no NUL and no lone surrogate (it must be writable to a UTF-8 file)."""
    if not isinstance(name, str) or not name:
        raise WrongTypeError(f"{what} must be a non-empty string, got {short_repr(name)}")
    if len(name) > MAX_NAME:
        raise WorkloadError(f"{what} {short_repr(name)} is {len(name):,} characters long; the limit is {MAX_NAME:,}")
    if "\x00" in name:
        raise WorkloadError(f"{what} {short_repr(name)} contains a NUL character")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as e:
        raise WorkloadError(
            f"{what} {short_repr(name)} contains {ascii(name[e.start])}, a lone surrogate, which no UTF-8 file can hold"
        ) from None
    return name


def _checked_tensors(phase: str, key: str, tensors) -> tuple[tuple[str, float], ...]:
    """``{tensor name: bytes}`` as a tuple of pairs (hashable, ordered)."""
    if tensors is None:
        return ()
    try:
        pairs = list(tensors.items()) if hasattr(tensors, "items") else [tuple(p) for p in tensors]
    except TypeError:
        raise WrongTypeError(
            f"phase {short_repr(phase)}: {key}={short_repr(tensors)} must map tensor names to bytes"
        ) from None
    out = []
    for pair in pairs:
        if len(pair) != 2 or not isinstance(pair[0], str) or not pair[0]:
            raise WrongTypeError(
                f"phase {short_repr(phase)}: {key} entry {short_repr(pair)} must be (tensor name, bytes)"
            )
        tensor, size = pair
        check_name(f"phase {short_repr(phase)}: {key}: tensor name", tensor)
        if size is None:  # a tensor's bytes are never "unknown": a number or an expression
            raise WrongTypeError(
                f"phase {short_repr(phase)}: {key}[{short_repr(tensor)}]=None must be a number of bytes"
            )
        size = _checked_number(phase, f"{key}[{short_repr(tensor)}]", size, expression=True)
        out.append((tensor, size if isinstance(size, str) else float(size)))
    return tuple(out)
