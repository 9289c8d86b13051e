"""Running a prepared sweep: in this process, in a pool of its own, on any Executor or on a Dask
client, with retries, and a :class:`SweepFailed` naming every configuration left without a result."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import pickle
import socket
import threading
import time
import uuid
import warnings

from ..errors import SweepError, SweepFailed, short_repr
from ..progress import Progress
from . import _tuning
from ._chunks import _chunks, _costs, _inline_chunks, _run_length
from ._evaluate import _evaluate
from ._payload import _NEED_PAYLOAD, _install
from ._result import SweepResult
from ._tasks import _run_dask, _run_installed, _run_token
from ._validate import _executor_kind, _require_distributed


def _pool_context():
    """fork when this process has a single thread (a script: fast, and no ``__main__`` guard needed);
    else forkserver (a Jupyter kernel or a Dask client has threads, and forking a threaded process
    can deadlock); spawn where neither exists."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["campaign_widget.sweep"])
        return ctx
    return multiprocessing.get_context("spawn")


PROBE_SECONDS = 2.0  # a TCP scheduler that accepts no connection this long is left to dask's own timeout


def _answers(address: str) -> None:
    """Refuse at once a Dask address with no scheduler behind it: dask retries a refused TCP connection
    until its connect timeout (30 s); a refusal (or a host that does not resolve) is known at once. Raises
    the OSError or the ValueError (an address with no port); any other protocol is left to dask."""
    from distributed.comm.addressing import parse_address, parse_host_port

    protocol, location = parse_address(address)
    if protocol != "tcp":
        return
    host, port = parse_host_port(location)
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            return
    except TimeoutError:  # something there that is slow to answer: dask's timeout decides
        return


def _run(result: SweepResult, executor, progress) -> None:
    payload = result._payload
    kind = _executor_kind(executor)
    costs = _costs(payload)
    report = Progress(progress, total=len(payload), what="sweep", unit=" configurations")
    own = None
    t0 = time.perf_counter()
    try:
        if kind == "dask-address":
            distributed = _require_distributed()
            try:
                _answers(executor)
                own = distributed.Client(executor)
            except (OSError, TimeoutError, ValueError) as exc:  # ValueError: no host:port in the address
                raise SweepError(
                    f"executor={short_repr(executor)}: no Dask scheduler answered there ({str(exc)[:100]}); start one "
                    "(dask scheduler) or pass executor=None to sweep on this machine"
                ) from exc
            executor, kind = own, "dask"
        if kind == "auto":
            cores = os.cpu_count() or 1
            if cores < 2 or float(costs.sum()) < _tuning.IN_PROCESS_SECONDS or len(payload) < 2:
                kind = "inline"
            else:
                kind = "pool"
        result.executor_kind = kind
        if kind == "inline":
            _run_inline(result, _inline_chunks(costs, payload), report)
        elif kind == "pool":
            try:
                _run_pool(result, costs, report)
            except SweepFailed as exc:
                if result.completed:
                    raise
                # The pool never produced a result: its workers cannot start here (e.g. a script read
                # from stdin, which forkserver/spawn workers cannot re-import). Run in this process.
                warnings.warn(
                    f"campaign_widget.sweep: the process pool could not run ({str(exc).splitlines()[0]}); "
                    "running in this process instead",
                    RuntimeWarning,
                    stacklevel=3,
                )
                result.executor_kind = kind = "inline"
                _run_inline(result, _inline_chunks(costs, payload), report)
        elif kind == "dask":
            _run_dask_client(result, executor, costs, report)
        else:
            workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
            _run_executor(result, executor, _chunks(costs, workers, align=_run_length(payload)), workers, report)
        missing = result._missing()
        if missing and not result._cancel.is_set():
            raise _failure(result, missing, "no result")
    finally:
        result.elapsed = time.perf_counter() - t0
        if own is not None:
            own.close()
        report(result.completed)
        report.close()


def _gave_up(result: SweepResult, chunk: tuple[int, int], error: BaseException, where: str = "") -> SweepFailed:
    """The error for a chunk of configurations (``range(*chunk)``) still failing after the last attempt."""
    idx = list(range(*chunk))
    return _failure(result, idx, f"no result after {_tuning.MAX_ATTEMPTS} attempts{where}", {i: error for i in idx})


def _failure(result: SweepResult, indices, why: str, errors: dict | None = None) -> SweepFailed:
    """The error for configurations ``indices`` (with ``why``); ``missing`` lists every configuration
    without a result, those named here first, then any not computed because the sweep stopped."""
    errors = errors or {}
    named = list(indices)
    rest = sorted(set(result._missing()) - set(named))
    missing = [result.configuration(i) for i in named + rest]
    lines = []
    for i, cfg in zip(named[:10], missing):
        detail = f": {_describe(errors[i])}" if i in errors else ""
        lines.append(f"  configuration #{i} {cfg}{detail}")
    more = f"\n  … and {len(named) - 10} more" if len(named) > 10 else ""
    stopped = f"\n{len(rest)} more configurations were not computed (the sweep stopped)" if rest else ""
    failure = SweepFailed(
        f"{len(named)} of {len(result)} configurations have {why}:\n" + "\n".join(lines) + more + stopped,
        result,
        missing,
    )
    # the first configuration's own exception, for the caller (``raise ... from`` may replace it)
    failure.__cause__ = next((errors[i] for i in named if isinstance(errors.get(i), BaseException)), None)
    return failure


def _describe(error) -> str:
    return f"{type(error).__name__}: {error}" if isinstance(error, BaseException) else str(error)


def _accept(result: SweepResult, chunk: dict, report) -> None:
    result._fill(chunk)
    if chunk["errors"]:
        errors = dict(chunk["errors"])
        raise _failure(result, sorted(errors), "failed", errors)
    report(result.completed)


def _run_inline(result, chunks, report):
    payload = _install(result._payload)
    for s, e in chunks:
        if result._cancel.is_set():
            return
        _accept(result, _evaluate(payload, s, e), report)


def _run_pool(result, costs, report):
    """A local process pool this module owns: the payload goes with each worker's initializer;
    if a worker dies (the pool breaks), a new pool takes the unfinished chunks."""
    payload = result._payload
    workers = _tuning.POOL_WORKERS or os.cpu_count() or 1
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    pending = {c: 0 for c in _chunks(costs, workers, align=_run_length(payload))}  # chunk -> attempts so far
    ctx = _pool_context()
    while pending:
        pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_install, initargs=(data,))
        broken = False
        try:
            futures = {pool.submit(_run_installed, payload.token, s, e): (s, e) for (s, e) in pending}
            for fut in cf.as_completed(futures):
                chunk = futures[fut]
                if result._cancel.is_set():
                    break
                try:
                    out = fut.result()
                except cf.process.BrokenProcessPool:
                    broken = True
                    pending[chunk] += 1
                    result.retried += 1
                    continue
                except Exception as exc:  # not a configuration's error (those come back in the chunk)
                    pending[chunk] += 1
                    result.retried += 1
                    if pending[chunk] >= _tuning.MAX_ATTEMPTS:
                        raise _gave_up(result, chunk, exc) from exc
                    continue
                del pending[chunk]
                _accept(result, out, report)
        finally:
            pool.shutdown(wait=not broken, cancel_futures=True)
        if result._cancel.is_set():
            return
        exhausted = [c for c, n in pending.items() if n >= _tuning.MAX_ATTEMPTS]
        if exhausted:
            idx = [i for s, e in sorted(exhausted) for i in range(s, e)]
            raise _failure(result, idx, f"no result after {_tuning.MAX_ATTEMPTS} attempts (worker processes died)")


def _run_executor(result, executor, chunks, workers, report):
    """Any concurrent.futures.Executor: tasks carry the payload token; the payload rides along with
    the first task per worker and is resent only to a worker that asks for it."""
    payload = result._payload
    _install(payload)  # thread pools share this process' cache: they never need the bytes
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    attempts = {c: 0 for c in chunks}
    futures = {}
    for k, (s, e) in enumerate(chunks):
        try:
            futures[executor.submit(_run_token, payload.token, s, e, data if k < workers else None)] = (s, e)
        except RuntimeError as exc:  # e.g. "cannot schedule new futures after shutdown"
            for future in futures:
                future.cancel()
            raise SweepError(
                f"executor={short_repr(executor)} refused the sweep's work ({exc}); pass a running executor, "
                "or executor=None to let the sweep start its own pool"
            ) from exc
    errors = {}
    while futures:
        done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        for fut in done:
            chunk = futures.pop(fut)
            if result._cancel.is_set():
                continue
            try:
                out = fut.result()
            except cf.BrokenExecutor as exc:
                for f in futures:
                    f.cancel()
                idx = [i for s, e in [chunk, *futures.values()] for i in range(s, e)]
                raise _failure(
                    result,
                    idx,
                    f"no result: the executor broke ({exc}); pass executor=None to let the sweep restart its own pool",
                ) from exc
            except Exception as exc:
                attempts[chunk] += 1
                errors[chunk] = exc
                if attempts[chunk] >= _tuning.MAX_ATTEMPTS:
                    idx = list(range(*chunk))
                    raise _failure(
                        result, idx, f"no result after {_tuning.MAX_ATTEMPTS} attempts", {i: errors[chunk] for i in idx}
                    ) from exc
                futures[executor.submit(_run_token, payload.token, *chunk, data)] = chunk
                result.retried += 1
                continue
            if isinstance(out, str) and out == _NEED_PAYLOAD:
                futures[executor.submit(_run_token, payload.token, *chunk, data)] = chunk
                continue
            _accept(result, out, report)


def _run_dask_client(result, client, costs, report):
    """A dask.distributed Client: the payload is scattered to every worker once (broadcast);
    tasks lost with a worker are rescheduled by Dask, and failed ones resubmitted here."""
    distributed = _require_distributed()
    payload = result._payload
    info = client.scheduler_info()
    workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
    remote = client.scatter([payload], broadcast=True, hash=False)[0]
    chunks = _chunks(costs, workers, _tuning.DASK_CHUNK_SECONDS, _run_length(payload))
    attempts = {c: 0 for c in chunks}
    errors = {}

    def submit(chunk):
        return client.submit(
            _run_dask,
            remote,
            *chunk,
            pure=False,
            retries=1,
            key=f"campaign-sweep-{payload.token[:8]}-{chunk[0]}-{chunk[1]}-{uuid.uuid4().hex[:6]}",
        )

    futures = {submit(c): c for c in chunks}
    # with_results: the client's event loop fetches each result as its task finishes, not this thread
    # one blocking round trip at a time
    ac = distributed.as_completed(list(futures), with_results=True, raise_errors=False)
    try:
        for fut, out in ac:
            chunk = futures.pop(fut)
            if result._cancel.is_set():
                break
            # an error comes as (type, exception, traceback): KilledWorker, a lost worker's data, a
            # worker-side error; a cancelled task as its CancelledError
            exc = out[1] if fut.status == "error" else out if isinstance(out, BaseException) else None
            if exc is not None:
                attempts[chunk] += 1
                errors[chunk] = exc
                if attempts[chunk] >= _tuning.MAX_ATTEMPTS:
                    raise _gave_up(result, chunk, errors[chunk], " on the Dask cluster") from exc
                if remote.status != "finished":  # every copy of the payload was lost with its workers
                    remote = client.scatter([payload], broadcast=True, hash=False)[0]
                new = submit(chunk)
                futures[new] = chunk
                ac.add(new)
                result.retried += 1
                continue
            fut.release()
            _accept(result, out, report)
    finally:
        for f in futures:
            f.cancel()
        remote.release()
