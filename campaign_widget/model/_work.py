"""The unthrottled schedule in work time (see ``campaign_widget.model.schedule``): the settings as the
engine reads them, the tiles, the pipelined dependency graph, and the simulations that need no
wavefront: one tile at a time, campaign_diagram_tools' lock step, and the exact event-by-event
simulation the wavefront hands the cases it cannot vouch for."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ScheduleError
from .settings import Policy

#: Instants closer than this, relative to the shortest tile or to the instant, are one event.
_SAME_INSTANT = 1e-12


@dataclass(frozen=True)
class _Chosen:
    """Checked settings, as the engine reads them."""

    tiles: int
    pipeline: bool
    policy: Policy
    depth: int  # as asked for (the schedule reports it)
    buffer: int  # the depth the engine uses: at most ``tiles``, which is already an unbounded buffer
    stepping: str  # "event" whenever not pipelined


@dataclass
class _Work:
    """The unthrottled schedule in work time, per tile (tile order)."""

    start: np.ndarray
    end: np.ndarray
    phase: np.ndarray
    number: np.ndarray
    requested: np.ndarray  # requested length (duration / tiles)
    stretch: np.ndarray  # requested / dilated length (1 = not dilated)
    level: np.ndarray | None = None  # wavefront level of each tile (None: not computed by wavefront)


def _one_at_a_time_work(duration: np.ndarray, tiles: int) -> _Work:
    """Tiles run alone, tile-major: A1, B1, C1, A2, … (docs/semantics.md#tiling, "tiling n")."""
    n_phases = duration.size
    phase = np.tile(np.arange(n_phases), tiles)
    number = np.repeat(np.arange(tiles), n_phases)
    requested = duration[phase] / tiles
    end = np.cumsum(requested)
    start = np.r_[0.0, end[:-1]]  # exactly the previous end: no float gap or overlap between tiles
    return _Work(start=start, end=end, phase=phase, number=number, requested=requested, stretch=np.ones(phase.size))


class _Graph:
    """The pipelined dependencies between phases (docs/semantics.md#pipelining): tile i of phase p waits for tile i
    of each streaming producer, its own tile i-1, tile i-depth of each streaming consumer, and (tile
    0 only) the last tile of each producer in another group. Edges as arrays (producer, consumer),
    sorted by consumer; the per-phase lists only when the event simulation asks for them."""

    def __init__(self, producers: tuple[np.ndarray, np.ndarray], n_phases: int, group: np.ndarray | None) -> None:
        indptr, prod = producers
        self.n = n_phases
        self.group = np.zeros(n_phases, dtype=np.int64) if group is None else np.asarray(group)
        consumer = np.repeat(np.arange(n_phases, dtype=np.int64), np.diff(indptr))
        producer = np.asarray(prod, dtype=np.int64)
        streams = self.group[producer] == self.group[consumer]
        self.stream = (producer[streams], consumer[streams])
        self.barrier = (producer[~streams], consumer[~streams])

    def __len__(self) -> int:
        return self.n

    def lists(self, edges: tuple[np.ndarray, np.ndarray], by_consumer: bool) -> list[list[int]]:
        """Per phase, its producers (``by_consumer``) or its consumers along ``edges``."""
        out: list[list[int]] = [[] for _ in range(self.n)]
        for q, c in zip(edges[0].tolist(), edges[1].tolist()):
            (out[c] if by_consumer else out[q]).append(q if by_consumer else c)
        return out

    def table(self, edges: tuple[np.ndarray, np.ndarray], by_consumer: bool, missing: int) -> np.ndarray:
        """Per phase its producers (``by_consumer``) or consumers as columns of a padded table:
        ``table[j, p]`` is p's j-th one, ``missing`` where p has fewer."""
        key, value = (edges[1], edges[0]) if by_consumer else (edges[0], edges[1])
        if key.size == 0:
            return np.zeros((0, self.n), dtype=np.int64)
        order = np.argsort(key, kind="stable")
        key, value = key[order], value[order]
        first = np.r_[True, key[1:] != key[:-1]]
        rank = np.arange(key.size) - np.maximum.accumulate(np.where(first, np.arange(key.size), 0))
        table = np.full((int(rank.max()) + 1, self.n), missing, dtype=np.int64)
        table[rank, key] = value
        return table


def _graph(producers: tuple[np.ndarray, np.ndarray], n_phases: int, group: np.ndarray | None) -> _Graph:
    return _Graph(producers, n_phases, group)


def _tile_arrays(n_phases: int, tiles: int, duration: np.ndarray) -> dict[str, np.ndarray]:
    """Per tile, in tile order (tile i of phase p is ``p * tiles + i``): phase, number, requested length."""
    return dict(
        phase=np.repeat(np.arange(n_phases, dtype=np.int64), tiles),
        number=np.tile(np.arange(tiles, dtype=np.int64), n_phases),
        requested=np.repeat(duration / tiles, tiles),
    )


def _lockstep_work(g: _Graph, duration: np.ndarray, tiles: int, dilate: bool) -> _Work:
    """campaign_diagram_tools' lock-step pipelining (``Cascade.pipeline``), in work time.

    Tile i of phase p runs in step ``lev[p] + i`` (``lev``: the longest dependency path from a
    first phase; in a chain, the phase's position). Every tile of a step starts when the step
    starts; a step lasts as long as its longest tile; with dilation, every tile of a step is
    stretched to that length. Throttling is then applied like any other schedule's.
    """
    n_phases = len(g)
    sq, sc = g.stream
    lev = [0] * n_phases
    for q, c in zip(sq.tolist(), sc.tolist()):
        if lev[q] + 1 > lev[c]:
            lev[c] = lev[q] + 1
    arrays = _tile_arrays(n_phases, tiles, duration)
    step = np.asarray(lev, dtype=np.int64)[arrays["phase"]] + arrays["number"]
    length = arrays["requested"]
    n_steps = int(step.max(initial=-1)) + 1
    longest = np.zeros(n_steps)
    np.maximum.at(longest, step, length)
    step_start = np.r_[0.0, np.cumsum(longest)[:-1]] if n_steps else longest
    start = step_start[step]
    stretched = longest[step] if dilate else length
    return _Work(
        start=start, end=start + stretched, stretch=length / stretched if dilate else np.ones(length.size), **arrays
    )


def _event_work(g: _Graph, duration: np.ndarray, tiles: int, depth: int, dilate: bool) -> _Work:
    """The exact event-by-event simulation in work time (the semantics the wavefront reproduces).

    Tile i of phase p is ready when all its dependencies are done; the tiles made ready by one
    event start together, as a batch; dilation stretches a batch of several tiles to its longest.
    Tiles finishing within ``_SAME_INSTANT`` of the earliest are one event. O(E log E) in Python.
    """
    n_phases = len(g)
    n_tiles = n_phases * tiles
    per_tile = (duration / tiles).tolist()
    floor = _time_floor(duration, tiles)
    i_of = np.tile(np.arange(tiles), n_phases)
    prods, cons = g.lists(g.stream, True), g.lists(g.stream, False)
    barrier_prods, barrier_cons = g.lists(g.barrier, True), g.lists(g.barrier, False)
    n_prod = np.repeat([len(q) for q in prods], tiles)
    n_barrier = np.repeat([len(q) for q in barrier_prods], tiles)
    n_cons = np.repeat([len(c) for c in cons], tiles)
    # per-tile state in arrays, read and written through memoryviews: no Python object per tile
    waiting_at = (n_prod + (i_of > 0) + n_cons * (i_of >= depth) + n_barrier * (i_of == 0)).astype(np.int64)
    start_at, end_at, stretch_at = np.zeros(n_tiles), np.zeros(n_tiles), np.ones(n_tiles)
    waiting, tile_start, tile_end, tile_stretch = map(memoryview, (waiting_at, start_at, end_at, stretch_at))
    heap: list[tuple[float, int]] = []
    work = 0.0
    batch = [p * tiles for p in range(n_phases) if waiting[p * tiles] == 0]
    while batch or heap:
        if batch:
            longest = max(per_tile[k // tiles] for k in batch)
            several_phases = len(batch) > 1
            for k in batch:
                d = per_tile[k // tiles]
                stretched = longest if (dilate and several_phases) else d
                heapq.heappush(heap, (work + stretched, k))
                tile_start[k] = work
                tile_stretch[k] = d / stretched
            batch = []
        finish = heap[0][0]
        work = finish
        limit = finish + _SAME_INSTANT * max(floor, abs(finish))
        while heap and heap[0][0] <= limit:
            _, k = heapq.heappop(heap)
            tile_end[k] = work
            p, i = divmod(k, tiles)
            for dependent in _dependents(p, i, tiles, depth, prods[p], cons[p], barrier_cons[p]):
                waiting[dependent] -= 1
                if waiting[dependent] == 0:
                    batch.append(dependent)
    stuck = np.flatnonzero(waiting_at > 0)
    if stuck.size:
        k = int(stuck[0])
        raise ScheduleError(
            f"the pipelined tiles deadlock: tile {k % tiles} of phase #{k // tiles} "
            "never becomes ready (its producers and consumers wait for each other)"
        )
    return _Work(start=start_at, end=end_at, stretch=stretch_at, **_tile_arrays(n_phases, tiles, duration))


def _dependents(
    p: int,
    i: int,
    tiles: int,
    depth: int,
    producers: Sequence[int],
    consumers: Sequence[int],
    barrier_consumers: Sequence[int],
) -> Iterator[int]:
    for c in consumers:
        yield c * tiles + i
    if i == tiles - 1:
        for c in barrier_consumers:
            yield c * tiles
    if i + 1 < tiles:
        yield p * tiles + i + 1
    if i + depth < tiles:
        for q in producers:
            yield q * tiles + i + depth


def _time_floor(duration: np.ndarray, tiles: int) -> float:
    """The time scale under which instants are one event: the shortest tile. Relative, not absolute,
    so that a workload timed in picoseconds schedules like one timed in seconds."""
    return float(np.min(duration)) / tiles if len(duration) else 1.0
