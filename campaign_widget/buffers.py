"""numpy arrays to and from the binary-buffer payloads synced to the view (js/codecs.js)."""

from __future__ import annotations

import numpy as np

_DTYPES = {"float64", "float32", "int32", "uint8"}


def to_payload(array: np.ndarray, dtype: str) -> dict:
    if dtype not in _DTYPES:
        raise ValueError(f"dtype {dtype!r} is not one the view decodes ({sorted(_DTYPES)})")
    data = np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<"))
    return {"dtype": dtype, "shape": list(data.shape), "buffer": memoryview(data.tobytes())}


def from_payload(payload: dict) -> np.ndarray:
    data = np.frombuffer(bytes(payload["buffer"]), dtype=np.dtype(payload["dtype"]).newbyteorder("<"))
    return data.reshape(payload["shape"])
