"""Schedule settings (docs/semantics.md#schedules): one validated type, one wording, used by the model, the files,
the widget and the CLI.

>>> Settings(tiles=4, pipeline=True)
Settings(tiles=4, pipeline=True, policy='none', depth=2, stepping='event')
>>> checked_settings({"tiles": 4})
{'tiles': 4}
>>> check_setting("policy", "bogus")
Traceback (most recent call last):
...
campaign_widget.errors.ScheduleError: policy='bogus' is not one of 'none', 'dilate', 'throttle', 'dilate+throttle'
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ..errors import ScheduleError, WrongTypeError, check_flag, short_repr

# when a pipelined tile starts: docs/semantics.md#pipelining, or campaign_diagram_tools' steps
STEPPINGS = ("event", "lockstep")
# A schedule's memory, bounded before anything is allocated: at most MAX_SCHEDULE_BYTES at the peak of
# building it, at BYTES_PER_INTERVAL per tile interval (the most of every policy, pipelined or not, as
# benchmarks/schedule_memory.py measures: 330 bytes), so tiles × phases that would not fit fail at once.
MAX_SCHEDULE_BYTES = 2 << 30
BYTES_PER_INTERVAL = 336
MAX_TILES = MAX_SCHEDULE_BYTES // BYTES_PER_INTERVAL  # tile intervals of a schedule: one phase's tiles at most
SCHEDULE_BOUND = f"(a schedule holds at most {MAX_SCHEDULE_BYTES / 2**30:g} GiB); use fewer tiles (tiles=, --tiles)"
#: The largest buffer depth accepted. A depth at or above a phase's tile count never holds a producer
#: back (tile i waits for tile i - depth < 0 of its consumers), so it is an unbounded buffer, and any
#: depth above the largest tile count is the same as this one.
MAX_DEPTH = MAX_TILES


@dataclass(frozen=True)
class Policy:
    """What a throttle policy does (docs/semantics.md#policies): ``dilates``, a tile that starts with a longer tile of
    another phase is stretched to end with it; ``throttles``, the rates of all running tiles are scaled
    down wherever a resource's summed demand exceeds 1. ``Policy.named("dilate+throttle").throttles``.

    A new policy is one more row of ``_POLICY_TABLE``: its name joins ``POLICIES`` (the widget's
    choices, the CLI's ``--policy``, the files' ``policy:``) and the engine reads only these fields.
    """

    name: str
    dilates: bool
    throttles: bool

    @classmethod
    def named(cls, name: str) -> Policy:
        """The policy called ``name`` (one of ``POLICIES``), or a ``ScheduleError``."""
        try:
            return _BY_NAME[name]
        except (KeyError, TypeError):
            raise ScheduleError(
                f"policy={short_repr(name)} is not one of {', '.join(repr(p) for p in POLICIES)}"
            ) from None

    def undilated(self) -> Policy:
        """The policy that does what this one does but dilate: the same schedule whenever no two tiles
        start together (tiles run one at a time without pipelining)."""
        return _BY_EFFECT[replace(self, name="", dilates=False)]


_POLICY_TABLE = (
    Policy("none", dilates=False, throttles=False),
    Policy("dilate", dilates=True, throttles=False),
    Policy("throttle", dilates=False, throttles=True),
    Policy("dilate+throttle", dilates=True, throttles=True),
)
_BY_NAME = {p.name: p for p in _POLICY_TABLE}
_BY_EFFECT = {replace(p, name=""): p for p in reversed(_POLICY_TABLE)}  # the first of equal effect wins
POLICIES = tuple(_BY_NAME)


def _whole(key: str, value: object, why: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ScheduleError(f"{key}={short_repr(value)} must be a whole number {why}")
    return int(value)


def check_setting(key: str, value: Any) -> int | bool | str:
    """``value`` for setting ``key``, normalized (``np.int64(4)`` → ``4``), or a ``ScheduleError``."""
    if key == "tiles":
        tiles = _whole(key, value, ">= 1")
        if tiles < 1:
            raise ScheduleError(f"tiles={tiles!r} must be >= 1")
        if tiles > MAX_TILES:
            raise ScheduleError(f"tiles={tiles:,} is above the limit of {MAX_TILES:,} tiles per phase {SCHEDULE_BOUND}")
        return tiles
    if key == "depth":
        depth = _whole(key, value, ">= 1 (the buffer depth; 2 = double buffering)")
        if depth < 1:
            raise ScheduleError(f"depth={depth!r} must be a whole number >= 1 (the buffer depth; 2 = double buffering)")
        if depth > MAX_DEPTH:
            raise ScheduleError(
                f"depth={short_repr(depth)} is above the limit of {MAX_DEPTH:,}: a depth at or above the "
                "number of tiles is already an unbounded buffer, so use depth=tiles for one"
            )
        return depth
    if key == "pipeline":
        return check_flag(value, "pipeline", ScheduleError)
    if key == "policy":
        if not isinstance(value, str):
            raise ScheduleError(f"policy={short_repr(value)} is not one of {', '.join(repr(p) for p in POLICIES)}")
        return Policy.named(value).name
    if key == "stepping":
        if not isinstance(value, str) or value not in STEPPINGS:
            raise ScheduleError(f"stepping={short_repr(value)} is not one of {', '.join(repr(s) for s in STEPPINGS)}")
        return value
    raise WrongTypeError(f"unknown schedule setting {key!r}; known: {', '.join(DEFAULTS)}")


@dataclass(frozen=True)
class Settings:
    """How to schedule a workload: ``tiles``, ``pipeline``, ``policy`` (one of ``POLICIES``), ``depth``,
    ``stepping`` (one of ``STEPPINGS``: ``"event"``, docs/semantics.md#pipelining, or ``"lockstep"``, the paper
    authors' tool; see docs/lockstep.md)."""

    tiles: int = 1
    pipeline: bool = False
    policy: str = "none"
    depth: int = 2
    stepping: str = "event"

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, check_setting(f.name, getattr(self, f.name)))

    @classmethod
    def resolve(cls, *layers: Mapping[str, Any] | None) -> Settings:
        """Defaults, overridden by each mapping in turn; ``None`` values leave the setting as it was."""
        chosen = dict(DEFAULTS)
        for layer in layers:
            chosen.update({k: v for k, v in (layer or {}).items() if v is not None})
        return cls(**checked_settings(chosen))

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


DEFAULTS: dict[str, Any] = {"tiles": 1, "pipeline": False, "policy": "none", "depth": 2, "stepping": "event"}


def checked_settings(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """Some settings (any subset), each checked and normalized; unknown names raise ``TypeError``."""
    if settings is None:
        return {}
    if not isinstance(settings, Mapping):
        raise WrongTypeError(f"settings={short_repr(settings)} must be a mapping such as {{'tiles': 4}}")
    unknown = sorted(str(k) for k in settings if k not in DEFAULTS)
    if unknown:
        raise WrongTypeError(f"unknown schedule settings {unknown}; known: {', '.join(DEFAULTS)}")
    return {key: check_setting(key, value) for key, value in settings.items()}
