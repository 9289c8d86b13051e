"""One rank of a job: its Kineto trace read into the device's intervals, typed as Holistic Trace Analysis
types kernels (docs/distributed-jobs.md#what-a-rank-holds).

A rank's *device events* are what HTA counts: the GPU events (kernels, memcpys, memsets) of a GPU
trace. A CPU-only trace (a gloo job) has none, so its device is the process's threads: the outermost
CPU operators of each thread and the collectives gloo runs on its own threads (``gloo:all_reduce``,
…, which the profiler writes as annotations).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..io._common import error, open_binary
from ..io._torch_events import IGNORED_ANNOTATIONS, MAX_TRACE_BYTES, checked_options, read_events, selected
from ..io._torch_phases import nesting
from ..io._torch_scan import GPU_CATEGORIES
from ..model.machine import Machine

COMPUTE, COMMUNICATION, MEMORY, OTHER = 0, 1, 2, 3
KINDS = ("computation", "communication", "memory", "other")
# HTA's kernel types (hta.utils.utils, HolisticTraceAnalysis 0.5.0), and gloo's collectives as communication
_COMM = re.compile(r"^nccl.*Kernel|^gloo:")
_MEMORY = re.compile(r"^Memcpy|^Memset|^dma")
_NOT_COMPUTE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")
_RANK_IN_NAME = re.compile(r"rank[_\-.]?(\d+)", re.IGNORECASE)
STEP = re.compile(r"ProfilerStep#\d+")
NO_MACHINE = Machine(1.0, 1.0, name="not given")  # a trace holds no peaks; the job's numbers need none


def kind_of(name: str) -> int:
    """A device event's type by its name, as HTA types a kernel (gloo's collectives are communication)."""
    if _COMM.match(name):
        return COMMUNICATION
    if _MEMORY.match(name):
        return MEMORY
    if not _NOT_COMPUTE.match(name):
        return COMPUTE
    return OTHER


@dataclass
class Rank:
    """The device intervals of one rank (µs, on the trace's own clock), small enough to send between
    processes: ``start``, ``end``, ``name`` (ids into ``names``), ``kind`` (``KINDS``), ``lane`` (ids into
    ``lanes``: a GPU stream or a thread), ``flops``, ``bytes``; ``steps`` (the ``ProfilerStep#N`` ranges,
    start and end columns) and ``regions`` (the other top-level annotations: start, end, name id)."""

    file: str
    rank: int
    world_size: int | None
    backend: str | None
    rank_from: str  # "distributedInfo" or "file name"
    names: tuple[str, ...]
    lanes: tuple[str, ...]
    start: np.ndarray
    end: np.ndarray
    name: np.ndarray
    kind: np.ndarray
    lane: np.ndarray
    flops: np.ndarray
    bytes: np.ndarray
    steps: np.ndarray
    regions: np.ndarray
    notes: list = field(default_factory=list)

    def of_kind(self, kind: int) -> tuple[np.ndarray, np.ndarray]:
        keep = self.kind == kind
        return self.start[keep], self.end[keep]


def read_rank(path: str, machine=None) -> Rank:
    """Read one rank's trace (by the bounded reader: a few MiB of text at a time, docs/workload-files.md)."""
    options: Any = checked_options(Path(path), machine or NO_MACHINE, None, "name", "outer", IGNORED_ANNOTATIONS, False)
    stream = open_binary(options.name, options.source, options.file_path, limit=MAX_TRACE_BYTES)
    r = read_events(options, stream, keep_ignored=True)
    ev: Any = r.events  # its columns are set by Events.finish()
    rank, world, backend, rank_from = _identity(options.name, r.metadata)
    gpu = np.flatnonzero(np.isin(ev.cat, [ev.cats[c] for c in GPU_CATEGORIES if c in ev.cats]))
    ann_names = [ev.id_to_name[i] for i in ev.ann_name.tolist()]
    if gpu.size:
        take, extra = gpu, np.zeros(0, np.int64)
        volumes = ev.flops[take], ev.bytes[take]
    else:  # a CPU job: the threads' outermost operators and gloo's collectives on its own threads
        cpu = ev.select(("cpu_op",))
        s = selected(ev, cpu, "outer")  # an outer operator's volumes: the sums of those nested in it
        take = cpu[s.keep]
        volumes = s.flops[s.keep], s.nbytes[s.keep]
        extra = np.array([i for i, n in enumerate(ann_names) if _COMM.match(n)], dtype=np.int64)
    names = list(ev.id_to_name[i] for i in range(len(ev.id_to_name)))
    start = np.concatenate([ev.ts[take], ev.ann_ts[extra]])
    end = np.concatenate([ev.ts[take] + ev.dur[take], ev.ann_end[extra]])
    name = np.concatenate([ev.name[take], ev.ann_name[extra]])
    thread = np.concatenate([ev.thread[take], ev.ann_thread[extra]])
    kinds = {i: kind_of(names[i]) for i in np.unique(name).tolist()}
    kind = np.array([kinds[i] for i in name.tolist()], dtype=np.int8)
    threads = {i: f"{pid}/{tid}" for (pid, tid), i in ev.threads.items()}
    lane_ids, lane = np.unique(thread, return_inverse=True)
    flops = np.concatenate([volumes[0], np.zeros(extra.size)])
    nbytes = np.concatenate([volumes[1], np.zeros(extra.size)])
    order = np.lexsort((end, start))
    is_step = np.array([bool(STEP.fullmatch(n)) for n in ann_names], dtype=bool)
    steps = np.column_stack([ev.ann_ts[is_step], ev.ann_end[is_step]])
    steps = steps[np.argsort(steps[:, 0])] if steps.size else np.zeros((0, 2))
    regions = _top_regions(ev, ~is_step & ~np.array([bool(_COMM.match(n)) for n in ann_names], dtype=bool))
    return Rank(
        file=options.name,
        rank=rank,
        world_size=world,
        backend=backend,
        rank_from=rank_from,
        names=tuple(names),
        lanes=tuple(threads[int(i)] for i in lane_ids),
        start=start[order],
        end=end[order],
        name=name[order],
        kind=kind[order],
        lane=lane.astype(np.int64)[order],
        flops=flops[order],
        bytes=nbytes[order],
        steps=steps,
        regions=regions,
        notes=[n for n in r.report.notes if n.startswith("trace metadata")],
    )


def _top_regions(ev: Any, keep: np.ndarray) -> np.ndarray:
    """The annotations not nested in another kept one on their thread: (start, end, name id) rows."""
    idx = np.flatnonzero(keep)
    if idx.size == 0:
        return np.zeros((0, 3))
    parent, _ = nesting(ev.ann_thread[idx], ev.ann_ts[idx], ev.ann_end[idx] - ev.ann_ts[idx])
    top = idx[parent < 0]
    return np.column_stack([ev.ann_ts[top], ev.ann_end[top], ev.ann_name[top].astype(np.float64)])


def _identity(name: str, metadata: dict) -> tuple[int, int | None, str | None, str]:
    """(rank, world size, backend, where the rank came from): ``distributedInfo``, else the file's name
    (``rank3.json``, ``trace_rank_3.json.gz``), else refused."""
    info = metadata.get("distributedInfo")
    if isinstance(info, dict) and isinstance(info.get("rank"), int) and not isinstance(info.get("rank"), bool):
        world = info.get("world_size")
        world = world if isinstance(world, int) and not isinstance(world, bool) and world > 0 else None
        backend = info.get("backend") if isinstance(info.get("backend"), str) else None
        if info["rank"] < 0 or (world is not None and info["rank"] >= world):
            raise error(name, f"distributedInfo: rank {info['rank']} is outside the world size {world}")
        return info["rank"], world, backend, "distributedInfo"
    found = _RANK_IN_NAME.findall(Path(name).name)
    if len(found) == 1:
        return int(found[0]), None, None, "file name"
    raise error(
        name,
        "no distributedInfo in this trace and no rank in its file name (such as rank3.json): "
        "the job cannot tell which rank it is (docs/distributed-jobs.md#which-rank-a-file-is)",
        field="distributedInfo",
    )
