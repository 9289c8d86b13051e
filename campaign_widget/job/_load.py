"""Reading a job's traces in parallel: the files of a folder or a list, one task per rank on the executor
``sweep`` takes (inline, a pool of our own, any ``concurrent.futures.Executor``, a Dask client or a Dask
scheduler's address), the ranks checked against each other (docs/distributed-jobs.md#loading-a-job)."""

from __future__ import annotations

import concurrent.futures as cf
import os
import re
import warnings
from collections.abc import Iterable
from pathlib import Path

from ..errors import ArgumentError, CampaignWidgetError, WorkloadFileError, short_repr
from ..progress import Progress
from ..sweep._run import _pool_context
from ..sweep._validate import _executor_kind, _require_distributed
from ._rank import Rank, read_rank

TRACE_SUFFIXES = (".json", ".json.gz")
GZIP_RATIO = 10  # a gzipped trace's JSON is about this many times its size (the memory a worker needs)
INLINE_BELOW = 64 << 20  # a job smaller than this (bytes on disk) is read inline: a pool costs more
_SLOWEST = re.compile(r"slowest:(\d+)")


class JobReadWarning(UserWarning):
    """Some ranks of a job could not be read; ``Job.unreadable`` names each file and why."""


def trace_files(folder_or_files) -> tuple[str, list[Path]]:
    """(the name to report, the trace files): a folder's ``*.json`` and ``*.json.gz``, or the files given."""
    if isinstance(folder_or_files, (str, os.PathLike)):
        folder = Path(folder_or_files)
        if not folder.is_dir():
            return str(folder), [folder]
        files = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(TRACE_SUFFIXES))
        if not files:
            raise WorkloadFileError("no traces (*.json, *.json.gz) in this folder", path=folder)
        return str(folder), files
    if not isinstance(folder_or_files, Iterable):
        raise ArgumentError(
            f"load_job: {short_repr(folder_or_files)} must be a folder or a list of trace files, "
            f"not {type(folder_or_files).__name__}"
        )
    files = [Path(p) for p in folder_or_files]
    if not files:
        raise ArgumentError("load_job: the list of trace files is empty")
    return f"{len(files)} files", files


def _read_one(path: str, machine) -> Rank | tuple[str, str]:
    """A task: the rank, or (file, why) when it cannot be read (the other ranks load all the same)."""
    try:
        return read_rank(path, machine)
    except (CampaignWidgetError, OSError) as exc:
        return path, str(exc)


def available_memory() -> int | None:
    """The memory the system can give without swapping (bytes), or None where it does not say."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def footprint(path: Path) -> int:
    """The memory reading one trace takes, at most (bytes): its JSON's size."""
    size = path.stat().st_size
    return size * GZIP_RATIO if path.name.endswith(".gz") else size


def pool_workers(files: list[Path], memory: int | None) -> int:
    """A pool's size: the cores, as many as there are files, and as many of the largest trace as fit in
    half of ``memory`` (the bound per worker)."""
    largest = max(footprint(p) for p in files)
    fit = max(1, (memory // 2) // max(largest, 1)) if memory else len(files)
    return max(1, min(os.cpu_count() or 1, len(files), fit))


def read_all(files: list[Path], machine, executor, progress) -> tuple[list[Rank], dict[str, str], str]:
    """Every file read on ``executor``; returns (ranks, {file: why} for the unreadable ones, kind)."""
    kind = _executor_kind(executor)
    show = Progress(progress, total=len(files), what="ranks", unit="rank", default=len(files) >= 8)
    paths = [str(p) for p in files]
    own = None
    if kind == "dask-address":
        own = _require_distributed().Client(executor)
        executor, kind = own, "dask"
    if kind == "auto":
        small = sum(p.stat().st_size for p in files) < INLINE_BELOW
        kind = "inline" if len(files) == 1 or small else "pool"
    try:
        results = _run(kind, executor, paths, machine, show, files)
    finally:
        show.close()
        if own is not None:
            own.close()
    ranks = [r for r in results if isinstance(r, Rank)]
    bad = {r[0]: r[1] for r in results if not isinstance(r, Rank)}
    return ranks, bad, kind


def _run(kind: str, executor, paths: list[str], machine, show: Progress, files: list[Path]) -> list:
    if kind == "inline":
        out = []
        for k, p in enumerate(paths):
            out.append(_read_one(p, machine))
            show(k + 1)
        return out
    if kind == "dask":
        from distributed import as_completed

        futures = [executor.submit(_read_one, p, machine, pure=False) for p in paths]
        for k, _ in enumerate(as_completed(futures)):
            show(k + 1)
        return executor.gather(futures)
    pool = executor
    if kind == "pool":
        pool = cf.ProcessPoolExecutor(pool_workers(files, available_memory()), mp_context=_pool_context())
    try:
        futures = [pool.submit(_read_one, p, machine) for p in paths]
        for k, _ in enumerate(cf.as_completed(futures)):
            show(k + 1)
        return [f.result() for f in futures]
    finally:
        if kind == "pool":
            pool.shutdown()


def checked(name: str, ranks: list[Rank], bad: dict[str, str]) -> dict[int, Rank]:
    """The ranks by number: one file per rank, one world size, and at least one rank read."""
    if not ranks:
        first = next(iter(bad.items()))
        raise WorkloadFileError(f"no rank of this job could be read; {first[0]}: {first[1]}", path=name)
    by_rank: dict[int, Rank] = {}
    for r in sorted(ranks, key=lambda r: r.file):
        if r.rank in by_rank:
            raise WorkloadFileError(
                f"two files for rank {r.rank}: {by_rank[r.rank].file} and this one ({r.rank_from})", path=r.file
            )
        by_rank[r.rank] = r
    worlds = {r.world_size for r in ranks if r.world_size is not None}
    if len(worlds) > 1:
        seen = {w: next(r.file for r in ranks if r.world_size == w) for w in sorted(worlds)}
        listed = "; ".join(f"world size {w} in {f}" for w, f in seen.items())
        raise WorkloadFileError(f"traces of different jobs: {listed}", path=name)
    if bad:
        listed = "; ".join(f"{f}: {why}" for f, why in bad.items())
        warnings.warn(f"{len(bad)} of {len(bad) + len(ranks)} ranks could not be read: {listed}", JobReadWarning, 3)
    return dict(sorted(by_rank.items()))


def chosen(name: str, by_rank: dict[int, Rank], ranks) -> list[int] | int | None:
    """``ranks=``: None (all), a range or list of rank numbers (each must be there), or ``"slowest:K"``
    (returned as K, chosen once the step times are known)."""
    if ranks is None:
        return None
    if isinstance(ranks, str):
        m = _SLOWEST.fullmatch(ranks.strip())
        if m is None or int(m.group(1)) < 1:
            raise ArgumentError(f"ranks={ranks!r} must be a range or list of ranks, or 'slowest:K' with K >= 1")
        return int(m.group(1))
    if not isinstance(ranks, Iterable) or isinstance(ranks, (bytes, dict)):
        raise ArgumentError(f"ranks={short_repr(ranks)} must be a range or list of ranks, or 'slowest:K'")
    wanted = list(ranks)
    if not all(isinstance(r, int) and not isinstance(r, bool) for r in wanted) or not wanted:
        raise ArgumentError(f"ranks={short_repr(ranks)} must hold rank numbers (integers), at least one")
    missing = [r for r in wanted if r not in by_rank]
    if missing:
        raise WorkloadFileError(
            f"rank {', '.join(map(str, missing))} of ranks={short_repr(ranks)} is not in this job "
            f"(its ranks: {_spans(list(by_rank))})",
            path=name,
        )
    return wanted


def _spans(numbers: list[int]) -> str:
    """``0-3, 5, 7-9``."""
    out, start = [], None
    for k, n in enumerate(numbers):
        if start is None:
            start = n
        if k + 1 == len(numbers) or numbers[k + 1] != n + 1:
            out.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(out)
