"""numpy arrays to and from the binary-buffer payloads synced to the view (js/shared/codecs.js).

Array-valued traits are ``ArrayDict`` traits: dicts whose values are numpy arrays (with JSON values
beside them), serialized by ``arrays_to_json`` / ``arrays_from_json``: ipywidgets then sends every
array as one binary buffer ``{"dtype", "shape", "buffer"}``, never as a JSON list. The array's own
dtype travels (``cast`` it to the narrowest the view needs first).
"""

from __future__ import annotations

import numpy as np
import traitlets as t

from ..errors import CampaignWidgetError, SceneTooLargeError

_DTYPES = {"float64", "float32", "int32", "uint32", "uint16", "uint8"}


def to_payload(array: np.ndarray, dtype: str | None = None) -> dict:
    """One array as ``{"dtype", "shape", "buffer"}`` (little-endian, C order); ``dtype`` converts first."""
    dtype = dtype or np.asarray(array).dtype.name
    if dtype not in _DTYPES:
        raise CampaignWidgetError(f"dtype {dtype!r} is not one the view decodes ({sorted(_DTYPES)})")
    data = np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<"))
    return {"dtype": dtype, "shape": list(data.shape), "buffer": memoryview(data.tobytes())}


def from_payload(payload: dict | np.ndarray) -> np.ndarray:
    """The array of a ``to_payload`` dict (an array is returned as it is: what an ``ArrayDict`` holds)."""
    if isinstance(payload, np.ndarray):
        return payload
    data = np.frombuffer(bytes(payload["buffer"]), dtype=np.dtype(payload["dtype"]).newbyteorder("<"))
    return data.reshape(payload["shape"])


def arrays_to_json(value, _widget=None):
    """Trait serializer (``to_json``): numpy arrays, alone or as dict values, become binary payloads."""
    if isinstance(value, np.ndarray):
        return to_payload(value)
    if isinstance(value, dict):
        return {key: to_payload(item) if isinstance(item, np.ndarray) else item for key, item in value.items()}
    return value


def arrays_from_json(value, _widget=None):
    """Trait deserializer (``from_json``): the inverse of ``arrays_to_json``."""
    if isinstance(value, dict) and "buffer" in value and "dtype" in value:
        return from_payload(value)
    if isinstance(value, dict):
        return {key: arrays_from_json(item) for key, item in value.items()}
    return value


def cast(array, dtype: str) -> np.ndarray:
    """``array`` as a C-ordered array of ``dtype``, one the view decodes (js/shared/codecs.js)."""
    if dtype not in _DTYPES:
        raise CampaignWidgetError(f"dtype {dtype!r} is not one the view decodes ({sorted(_DTYPES)})")
    return np.ascontiguousarray(array, dtype=dtype)


class ArrayDict(t.Dict):
    """A synced dict of numpy arrays and JSON values; each array travels as one binary buffer.

    Type: ``dict[str, numpy.ndarray | JSON]``, default ``{}``. An array whose dtype the view does not
    decode is refused when it is set, naming the trait, the key and the dtype.
    """

    info_text = "a dict of numpy arrays (float64, float32, int32, uint32, uint16, uint8) and JSON values"

    def __init__(self, **kwargs):
        super().__init__(default_value={}, **kwargs)
        self.tag(sync=True, to_json=arrays_to_json, from_json=arrays_from_json)

    def validate(self, obj, value):
        value = super().validate(obj, value)
        for key, item in value.items():
            if isinstance(item, np.ndarray) and item.dtype.name not in _DTYPES:
                raise t.TraitError(
                    f"{self.name}[{key!r}] is a {item.dtype.name} array; the view decodes {sorted(_DTYPES)}"
                )
        return value


def smallest_index_dtype(largest: int) -> str:
    """The narrowest unsigned dtype the view decodes that holds 0..``largest``."""
    if largest < 1 << 8:
        return "uint8"
    if largest < 1 << 16:
        return "uint16"
    if largest < 1 << 32:
        return "uint32"
    raise SceneTooLargeError(f"index {largest} does not fit in 32 bits")


def same_arrays(a, b) -> bool:
    """Whether two trait values (arrays, or dicts of arrays and scalars) are equal, exactly."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_arrays(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
