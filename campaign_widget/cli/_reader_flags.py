"""The flags that give a file's reader one of its keyword arguments, in one table: the parser declares them
from it, the loader passes them on by it, and a reader's advice (``pass params={...}``) is worded in them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._values import category_names, param, peak


@dataclass(frozen=True)
class ReaderFlag:
    """``flag METAVAR`` on the command line is ``keyword=value`` for the reader of one of ``formats``."""

    keyword: str
    flag: str
    metavar: str
    help: str
    formats: str  # said when the file's reader takes no such keyword
    type: Callable | None = None
    repeated: bool = False  # given once per entry (``--param N=1 --param M=2``), passed on as one dict


READER_OPTIONS = (
    ReaderFlag(
        "clock", "--clock", "HZ", "the clock of a Timeloop stats file (Hz, e.g. 1G): its stats count cycles",
        "Timeloop stats", peak,
    ),
    ReaderFlag(
        "params", "--param", "NAME=VALUE", "the value of a size symbol (an SDFG's N, M, ...); repeat for each",
        "DaCe SDFGs", param, repeated=True,
    ),
    ReaderFlag(
        "categories", "--categories", "A,B", "the event categories of a trace to import (e.g. kernel or cpu_op)",
        "PyTorch traces", category_names,
    ),
    ReaderFlag(
        "counters", "--counters", "FILE", "a Nsight Compute CSV of the same run, to give a trace's kernels their work",
        "PyTorch traces",
    ),
)  # fmt: skip

#: A reader's keyword argument → the flag that gives it here (``machine`` and ``percent`` are ``load``'s own);
#: any other keyword a reader's advice names is given with ``--option KEY=VALUE``.
READER_FLAGS = {"machine": "--machine", **{o.keyword: o.flag for o in READER_OPTIONS}, "percent": "--percent"}


def reader_options(args) -> dict:
    """The keyword arguments the dedicated flags give the reader (those given)."""
    options = {}
    for o in READER_OPTIONS:
        value = getattr(args, o.keyword)
        if value is not None:
            options[o.keyword] = dict(value) if o.repeated else value
    return options
