"""The tasks executors run: each evaluates one chunk of configurations of a payload, found by its
token in the worker's registry (or installed from the bytes or the Dask data that came with it)."""

from __future__ import annotations

import pickle

from ..errors import SweepError
from ._evaluate import _evaluate
from ._payload import _NEED_PAYLOAD, _PAYLOADS, _PAYLOADS_LOCK, _install, _Payload


def _run_installed(token: str, start: int, stop: int):
    """Task of the pool this module starts: the payload came with the worker's initializer."""
    return _portable(_evaluate(_PAYLOADS[token], start, stop))


def _run_token(token: str, start: int, stop: int, payload_bytes: bytes | None):
    """Task for any Executor: the payload is attached to a worker's first task; later tasks carry
    only the token, and a worker that has not seen it asks for it (the caller resends)."""
    with _PAYLOADS_LOCK:
        payload = _PAYLOADS.get(token)
    if payload is None:
        if payload_bytes is None:
            return _NEED_PAYLOAD
        payload = _install(payload_bytes)
    return _portable(_evaluate(payload, start, stop))


def _run_dask(payload: _Payload, start: int, stop: int):
    """Task for a Dask client: ``payload`` is the worker's copy of the scattered payload."""
    return _portable(_evaluate(_install(payload), start, stop))


def _portable(chunk: dict) -> dict:
    """The chunk with each configuration's exception as it was raised, if it survives the trip back
    to the caller (pickled and rebuilt); an exception that does not is sent as a ``SweepError`` with
    its type and message."""
    errors = []
    for i, exc in chunk["errors"]:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:  # noqa: BLE001 - any exception that cannot be rebuilt on the other side
            exc = SweepError(f"{type(exc).__name__}: {exc}")
        errors.append((i, exc))
    chunk["errors"] = errors
    return chunk
