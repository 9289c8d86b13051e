"""The argument parser: its flags, and the types that check each flag's value (a bad value is a
one-line usage error, exit status 2)."""

from __future__ import annotations

import argparse
import math
import re

from .. import __version__
from ..errors import UsageError, WorkloadError, short_repr
from ..io import formats
from ..model.presets import MACHINES
from ..model.presets import machine as preset_machine
from ..model.settings import POLICIES, STEPPINGS
from ..model.transformer import presets as transformer_presets
from ._output import PROG


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints usage + message and exits; we want one line
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


# -- option values ----------------------------------------------------------------------------------

_SI = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


def _peak(text: str) -> float:
    """A peak: a finite number > 0, optionally with an SI suffix (``51.2T``, ``3.35e12``)."""
    match = re.fullmatch(
        r"\s*([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?|[-+]?(?:nan|inf|infinity))\s*([kKMGTPE]?)\s*", text, flags=re.IGNORECASE
    )
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 51.2e12 or 51.2T)")
    try:
        value = float(match.group(1)) * _SI.get(match.group(2), 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 51.2e12 or 51.2T)") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number > 0")
    return value


def _checked(convert, kind: str, ok, requirement: str):
    """An argparse type: ``convert`` the text, then require ``ok(value)``; errors say which."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be {requirement}")
        return value

    return parse


_whole = _checked(int, "a whole number", lambda v: v >= 1, ">= 1")
_threshold = _checked(float, "a number", lambda v: 0 < v <= 1, "in (0, 1]")


def _preset(text: str):
    try:
        return preset_machine(text)
    except WorkloadError:
        raise argparse.ArgumentTypeError(
            f"unknown machine preset {short_repr(text)}; known presets: {', '.join(MACHINES)} (see --list-machines)"
        ) from None


def _assignment(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise argparse.ArgumentTypeError(f"{short_repr(text)} is not NAME=VALUE (e.g. N=1024)")
    return key, value.strip()


def _param(text: str) -> tuple[str, object]:
    key, value = _assignment(text)
    number = _option_value(value)
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise argparse.ArgumentTypeError(f"{short_repr(text)}: the value of a size must be a number")
    return key, number


def _option(text: str) -> tuple[str, object]:
    key, value = _assignment(text)
    return key, _option_value(value)


def _option_value(text: str):
    """A reader option's value from the command line: true/false/none, a number, a comma-separated
    list of those, or else the text itself."""
    if "," in text:
        return tuple(_option_value(part.strip()) for part in text.split(","))
    words = {"true": True, "false": False, "none": None}
    if text.lower() in words:
        return words[text.lower()]
    for convert in (int, float):
        try:
            value = convert(text)
        except ValueError:
            continue
        if convert is float and not math.isfinite(value):
            break
        return value
    return text


def _names(text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"{short_repr(text)} names no category (e.g. kernel,gpu_memcpy)")
    return names


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help=f"workload file, in a format campaign_widget.load reads ({', '.join(f.name for f in formats())})",
    )
    s = common.add_argument_group("schedule (default: the file's settings, else 1 tile, sequential, none, 2)")
    s.add_argument("--tiles", type=_whole, metavar="N", help="split each phase into N tiles")
    s.add_argument(
        "--pipeline",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="pipeline the tiles across phases (needs --tiles > 1)",
    )
    s.add_argument("--policy", choices=POLICIES, help="what to do about oversubscription")
    s.add_argument("--depth", type=_whole, metavar="D", help="buffer depth between pipelined phases (2 = double)")
    s.add_argument(
        "--stepping",
        choices=STEPPINGS,
        help="when a pipelined tile starts: event (design notes) or lockstep (the paper authors' tool)",
    )
    m = common.add_argument_group("machine (default: the file's)")
    m.add_argument(
        "--machine",
        type=_preset,
        metavar="PRESET",
        help=f"read the file's utilizations as fractions of this preset's peaks ({', '.join(MACHINES)}); "
        "see --list-machines",
    )
    m.add_argument("--peak-compute", type=_peak, metavar="X", help="override peak compute (ops/s), e.g. 51.2T")
    m.add_argument("--peak-bandwidth", type=_peak, metavar="Y", help="override peak bandwidth (bytes/s), e.g. 3.35T")
    m.add_argument(
        "--percent",
        action="store_true",
        help="utilizations in a cascade YAML or CSV file are percentages, not fractions",
    )
    r = common.add_argument_group("reader options (what some file formats need)")
    r.add_argument(
        "--clock",
        type=_peak,
        metavar="HZ",
        help="the clock of a Timeloop stats file (Hz, e.g. 1G): its stats count cycles",
    )
    r.add_argument(
        "--param",
        type=_param,
        action="append",
        metavar="NAME=VALUE",
        help="the value of a size symbol (an SDFG's N, M, ...); repeat for each",
    )
    r.add_argument(
        "--categories",
        type=_names,
        metavar="A,B",
        help="the event categories of a trace to import (e.g. kernel or cpu_op)",
    )
    r.add_argument(
        "--counters",
        metavar="FILE",
        help="a Nsight Compute CSV of the same run, to give a trace's kernels their work",
    )
    r.add_argument(
        "--option",
        type=_option,
        action="append",
        metavar="KEY=VALUE",
        help="any other option of the file's reader (e.g. group_by=kernel); repeat for each",
    )

    parser = _Parser(prog=PROG, description="Campaign diagrams of workload files: draw them or summarize them.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--list-machines", action="store_true", help="list the machine presets and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    render = commands.add_parser(
        "render",
        parents=[common],
        help="draw the campaign diagram to PNG, SVG or PDF",
        description="Draw FILE's campaign diagram (and roofline) to OUT.",
    )
    render.add_argument("-o", "--output", required=True, metavar="OUT", help="OUT.png, OUT.svg or OUT.pdf")
    render.add_argument("--roofline", action="store_true", help="draw the roofline beside the diagram")
    render.add_argument("--title", metavar="T", help='figure title (default: the schedule; "" for none)')
    summary = commands.add_parser(
        "summary",
        parents=[common],
        help="print per-phase numbers and makespans",
        description="Print FILE's phases (roofline bound, efficiency, seed 002 "
        "guidance) and the makespan under each policy.",
    )
    t = summary.add_argument_group("a transformer's forward pass instead of FILE (campaign_widget.model.transformer)")
    t.add_argument(
        "--transformer",
        metavar="CONFIG",
        help=f"its config.json or a preset ({', '.join(transformer_presets())})",
    )
    t.add_argument("--batch", type=int, default=1, metavar="N", help="sequences in the batch (default 1)")
    t.add_argument("--seq", type=int, default=2048, metavar="N", help="tokens per sequence (default 2048)")
    t.add_argument("--kv-len", type=int, metavar="N", help="decode: tokens attended to (default --seq)")
    t.add_argument("--stage", choices=["prefill", "decode"], default="prefill", help="which pass (default prefill)")
    summary.add_argument(
        "--threshold",
        type=_threshold,
        default=0.7,
        help="efficiency at or above which a phase is 'near roof' (default 0.7)",
    )
    return parser
