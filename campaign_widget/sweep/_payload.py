"""The payload: what travels to each worker once (the workload and the axes), and each worker's
registry of the payloads it holds. Tasks then carry only a token and an index range."""

from __future__ import annotations

import math
import pickle
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..model.workload import Workload
from . import _tuning
from ._engine import _Engine


@dataclass
class _Payload:
    token: str
    workload: Workload
    names: tuple[str, ...]  # swept axes, in the caller's order
    values: tuple[tuple, ...]  # their values
    zipped: bool
    param_names: tuple[str, ...]  # which swept axes are workload size parameters

    def __post_init__(self):
        self._derived: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._local = threading.local()

    def __getstate__(self):
        state = dict(self.__dict__)
        for cache in ("_derived", "_lock", "_local"):
            state.pop(cache, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._derived = OrderedDict()
        self._lock = threading.Lock()
        self._local = threading.local()

    def engine(self) -> _Engine:
        """This thread's schedule caches for this payload (a ``schedule.Plans`` is not thread-safe)."""
        engine = getattr(self._local, "engine", None)
        if engine is None:
            engine = self._local.engine = _Engine(self.workload)
        return engine

    @property
    def shape(self) -> tuple[int, ...]:
        return (len(self.values[0]),) if self.zipped else tuple(len(v) for v in self.values)

    def __len__(self) -> int:
        return len(self.values[0]) if self.zipped else math.prod(len(v) for v in self.values)

    def digits(self, index: np.ndarray) -> list[np.ndarray]:
        """Per axis, the position of each configuration's value (product: last axis fastest)."""
        if self.zipped:
            return [index for _ in self.values]
        return list(np.unravel_index(index, self.shape))

    def configuration(self, i: int) -> dict:
        d = self.digits(np.array([i]))
        return {name: self.values[a][int(d[a][0])] for a, name in enumerate(self.names)}

    def derived(self, params: tuple, peaks: tuple) -> Workload:
        """The workload with these size parameters and peaks, computed once per worker."""
        key = (params, peaks)
        with self._lock:
            hit = self._derived.get(key)
            if hit is not None:
                self._derived.move_to_end(key)
                return hit
        w = self.workload
        if params:
            w = w.with_params(**dict(zip(self.param_names, params)))
        if peaks != (None, None):
            w = w.with_peaks(*peaks)
        with self._lock:
            self._derived[key] = w
            while len(self._derived) > _tuning.DERIVED_CACHE_SIZE:
                self._derived.popitem(last=False)
        return w


_PAYLOADS: OrderedDict = OrderedDict()
_PAYLOADS_LOCK = threading.Lock()
_NEED_PAYLOAD = "campaign_widget.sweep: need payload"


def _install(payload: _Payload | bytes) -> _Payload:
    if isinstance(payload, (bytes, bytearray)):
        payload = pickle.loads(payload)
    with _PAYLOADS_LOCK:
        have = _PAYLOADS.get(payload.token)
        if have is not None:
            return have
        _PAYLOADS[payload.token] = payload
        while len(_PAYLOADS) > _tuning.PAYLOAD_CACHE_SIZE:
            _PAYLOADS.popitem(last=False)
    return payload
