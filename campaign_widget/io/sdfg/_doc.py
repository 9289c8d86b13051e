"""Typed access to an SDFG's JSON: every error names the file, the field path and the value."""

from __future__ import annotations

from ...errors import short_repr
from .._common import error


class Doc:
    """The fields of one SDFG document, read with their path (``nodes[0].edges[3].src``) in every error.

    ``version`` is the file's ``dace_version`` (None in files written before dace recorded it); errors
    about a construct this reader does not know name it.
    """

    def __init__(self, name: str, version: str | None = None):
        self.name = name
        self.version = version

    def get(self, obj, key, kind, where: str, *, default=..., allow_none=False):
        if not isinstance(obj, dict):
            raise error(self.name, f"expected an object, got {short_repr(obj)}", field=where)
        if key not in obj:
            if default is not ...:
                return default
            raise error(self.name, "missing", field=join(where, key))
        value = obj[key]
        if value is None and allow_none:
            return None
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise error(self.name, f"{short_repr(value)} is not a {names}", field=join(where, key))
        return value

    def expr(self, obj, key, where: str, *, default=...) -> str:
        """A symbolic expression: text or a number, or the older ``{"main": ..., "approx": ...}`` form
        (dace 0.9–0.10 wrote both an exact and an approximate expression: the exact one is read)."""
        value = self.get(obj, key, (str, int, float, dict), where, default=default)
        if isinstance(value, dict):
            if "main" not in value:
                raise self.fail(
                    join(where, key), f"{short_repr(value)} is not an expression (text, a number or {{'main': ...}})"
                )
            value = self.get(value, "main", (str, int, float), join(where, key))
        return str(value)

    def fail(self, where: str, message: str):
        return error(self.name, message, field=where or None)

    def unknown(self, where: str, what: str, known: str):
        """The error for a construct this reader does not read: it names the construct and the dace version."""
        version = f"dace {self.version}" if self.version else "a dace version that did not record itself"
        return self.fail(where, f"{what} (written by {version}) is not a construct this reader knows ({known})")


def join(where: str, key) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else str(key)


def dig(obj, *keys) -> dict:
    """``obj[k1][k2]…`` when each level is a mapping, else ``{}`` (for optional attributes)."""
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}
