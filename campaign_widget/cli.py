"""The ``campaign-widget`` command: draw a workload file, or summarize it as text.

    campaign-widget render FILE -o OUT.png|.svg|.pdf [--tiles N] [--pipeline] [--policy P] [--depth D]
                           [--machine PRESET] [--peak-compute X] [--peak-bandwidth Y] [--roofline] [--title T]
    campaign-widget summary FILE [same options] [--threshold 0.7]

FILE is any format ``campaign_widget.load`` reads (our YAML/JSON, the paper authors' cascade
YAML, Einsum CSV exports, PyTorch traces and Nsight Compute CSV with ``--machine``, Timeloop stats
with ``--clock``). Every text printed has its control characters escaped (a name in a file cannot
drive the terminal); ``render`` writes OUT whole or not at all. Exit status: 0 done, 1 bad input (the file, its numbers, settings that
cannot be honoured), 2 bad usage (unknown option, bad option value). Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import unicodedata
import warnings

from . import __version__
from .atomic import atomic_path
from .errors import ScheduleError, UtilizationAboveOneWarning, WorkloadError
from .io import detect, load
from .presets import MACHINES
from .presets import machine as preset_machine
from .settings import DEFAULTS as DEFAULT_SETTINGS
from .settings import POLICIES, STEPPINGS, Settings
from .workload import Workload

PROG = "campaign-widget"
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad command line: reported in one line, exit status 2."""


class InputError(Exception):
    """A bad input file or setting: reported in one line, exit status 1."""


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
    except WorkloadError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("file", metavar="FILE", help="workload file: YAML/JSON (ours), cascade YAML, or CSV")
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
        help="read the file's utilizations as fractions of this preset's peaks; see --list-machines",
    )
    m.add_argument("--peak-compute", type=_peak, metavar="X", help="override peak compute (ops/s), e.g. 51.2T")
    m.add_argument("--peak-bandwidth", type=_peak, metavar="Y", help="override peak bandwidth (bytes/s), e.g. 3.35T")
    m.add_argument(
        "--percent",
        action="store_true",
        help="utilizations in a cascade YAML or CSV file are percentages, not fractions",
    )
    m.add_argument(
        "--clock",
        type=_peak,
        metavar="HZ",
        help="the clock of a Timeloop stats file (Hz, e.g. 1G): its stats count cycles",
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
    summary.add_argument(
        "--threshold",
        type=_threshold,
        default=0.7,
        help="efficiency at or above which a phase is 'near roof' (default 0.7)",
    )
    return parser


# -- the commands ------------------------------------------------------------------------------------


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 done, 1 bad input, 2 bad usage)."""
    parser = _parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help and --version
            return int(e.code or 0)
        if args.list_machines:
            return _list_machines()
        if args.command is None:
            raise UsageError(f"{PROG}: error: give a command: render or summary (see {PROG} --help)")
        if args.command == "render":
            return _render(args)
        return _summary(args)
    except UsageError as e:
        _say(str(e))
        return EXIT_USAGE
    except InputError as e:
        _say(f"{PROG}: error: {e}")
        return EXIT_INPUT


def _say(line: str, stream=None) -> None:
    stream = stream or sys.stderr
    print(printable(" ".join(str(line).split("\n"))), file=stream)


_ESCAPED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def printable(text: str) -> str:
    """``text`` safe for a terminal: control, format (bidi overrides), surrogate and unassigned
    characters are shown as escapes (``\\x1b``, ``\\u202e``), so a name in a file cannot clear the
    screen, retitle the terminal or reorder what is printed; a backslash stays a backslash."""
    text = str(text)
    if text.isprintable() and text.isascii():
        return text
    out = []
    for ch in text:
        if ch == " " or (ch.isprintable() and unicodedata.category(ch) not in _ESCAPED_CATEGORIES):
            out.append(ch)
        else:
            out.append(ascii(ch)[1:-1])
    return "".join(out)


def _print(line: str) -> None:
    print(printable(line))


def _list_machines() -> int:
    rows = [
        [key, _si(m.peak_compute, m.compute_unit), _si(m.peak_bandwidth, m.bandwidth_unit), m.name]
        for key, m in MACHINES.items()
    ]
    for line in _table(["preset", "compute", "bandwidth", "name"], rows, right={1, 2}):
        _print(line)
    return EXIT_OK


def _load(args):
    """The file's workload with the command line's machine, peaks and settings applied."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            options = {}
            if args.clock is not None:
                fmt = detect(args.file)
                if fmt.name != "timeloop-stats":
                    raise UsageError(f"{PROG}: error: --clock applies to Timeloop stats; {args.file} is {fmt.name}")
                options["clock"] = args.clock
            workload = load(args.file, machine=args.machine, percent=args.percent, **options)
            if not isinstance(workload, Workload):  # a measured timeline (a cascade with start times)
                _say(
                    f"{PROG}: warning: {args.file}: a timeline (kernel start times); this command uses its phases "
                    "as a workload, without the start times"
                )
                workload = workload.workload
            from_file = set(workload.settings)
            if args.peak_compute is not None or args.peak_bandwidth is not None:
                workload = workload.with_peaks(args.peak_compute, args.peak_bandwidth)
            overrides = {k: getattr(args, k) for k in DEFAULT_SETTINGS if getattr(args, k) is not None}
            if overrides:
                workload = workload.with_settings(**overrides)
        except OSError as e:
            raise InputError(f"{e.filename or args.file}: {e.strerror or e}") from None
        except (WorkloadError, ScheduleError, ValueError, TypeError) as e:
            raise InputError(str(e)) from None
    for w in caught:  # utilizations above 1 are reported below, for the final peaks
        if not issubclass(w.category, UtilizationAboveOneWarning):
            _say(f"{PROG}: warning: {args.file}: {w.message}")
    for line in workload.utilization_warnings():
        _say(f"{PROG}: warning: {args.file}: {line}")
    settings = Settings.resolve(workload.settings).as_dict()
    origin = {
        k: f"given with --{k}" if getattr(args, k) is not None else "from the file" if k in from_file else "the default"
        for k in DEFAULT_SETTINGS
    }
    return workload, settings, origin


def _render(args) -> int:
    from pathlib import Path

    suffix = Path(args.output).suffix.lower()
    if suffix not in FIGURE_SUFFIXES:
        raise UsageError(
            f"{PROG} render: error: argument -o/--output: unknown suffix {Path(args.output).suffix!r} "
            f"in {args.output!r}; use {', '.join(FIGURE_SUFFIXES)}"
        )
    workload, settings, _ = _load(args)
    try:
        from .static_figure import save_workload_figure
    except ImportError as e:
        raise InputError(f"render needs the static renderer and matplotlib ({e}); pip install matplotlib") from None
    try:
        with atomic_path(args.output) as temporary:  # the old OUT stays whole if drawing fails
            save_workload_figure(workload, temporary, roofline=args.roofline, title=args.title, **settings)
        path = args.output
    except OSError as e:
        raise InputError(f"{e.filename or args.output}: {e.strerror or e}") from None
    except (WorkloadError, ScheduleError, ValueError) as e:
        raise InputError(f"{args.file}: {e}") from None
    _print(f"wrote {path}")
    return EXIT_OK


def _summary(args) -> int:
    from .roofline import workload_roofline

    workload, settings, origin = _load(args)
    schedules = {}
    try:
        for policy in POLICIES:
            schedules[policy] = workload.schedule(**{**settings, "policy": policy})
    except ScheduleError as e:
        raise InputError(f"{args.file}: {e}") from None
    m = workload.machine
    a = workload.arrays
    roof = workload_roofline(workload, threshold=args.threshold)
    intensity_unit = "" if m.normalized else f" {m.ops_unit}/{m.bytes_unit}"
    out = [
        f"{args.file}: {len(workload)} phases on {m.name or 'an unnamed machine'}",
        f"peaks: {m.compute_name} {_si(m.peak_compute, m.compute_unit)}, {m.memory_name} "
        f"{_si(m.peak_bandwidth, m.bandwidth_unit)}; ridge point {_num(m.ridge_point)}{intensity_unit}"
        + (f"; efficiency threshold {_num(args.threshold)}" if args.threshold != 0.7 else ""),
        "",
    ]
    header = ["phase", "duration", m.compute_name, m.memory_name, "OI", "bound", "roof", "efficiency", "guidance"]
    rows = []
    for i, name in enumerate(workload.names):
        rows.append(
            [
                name,
                _si(a.duration[i], m.time_unit),
                _pct(a.compute_util[i]),
                _pct(a.memory_util[i]),
                _num(roof.intensity[i]),
                str(roof.regime[i]),
                _si(roof.bound[i], m.compute_unit),
                _pct(roof.efficiency[i]),
                str(roof.guidance[i]),
            ]
        )
    out += _table(header, rows, right={1, 2, 3, 4, 6, 7})
    chosen = settings["policy"]
    mode = (
        f"{settings['tiles']} tile{'s' if settings['tiles'] != 1 else ''}, "
        + ("pipelined" if settings["pipeline"] else "one at a time")
        + (f", depth {settings['depth']}" if settings["pipeline"] else "")
    )
    lower = max(a.ops.sum() / m.peak_compute, a.bytes.sum() / m.peak_bandwidth)
    out += [
        "",
        f"makespan ({mode}); sequential {_si(a.duration.sum(), m.time_unit, 6)}, "
        f"lower bound {_si(lower, m.time_unit, 6)}:",
    ]
    policy_rows = []
    for policy, s in schedules.items():
        worst = {}
        for _, _, resource, demand in s.oversubscribed:
            worst[resource] = max(worst.get(resource, 0.0), demand)
        note = "oversubscribed: " + ", ".join(f"{r} {_pct(d)}" for r, d in worst.items()) if worst else "feasible"
        policy_rows.append([("* " if policy == chosen else "  ") + policy, _si(s.makespan, m.time_unit, 6), note])
    out += _table(None, policy_rows, right={1}, indent="  ")
    out.append(
        f"  (* = the policy {origin['policy']})" if origin["policy"] != "the default" else "  (* = the default policy)"
    )
    for line in out:
        _print(line)
    return EXIT_OK


# -- text formatting ---------------------------------------------------------------------------------

_PREFIXES = {
    -24: "y",
    -21: "z",
    -18: "a",
    -15: "f",
    -12: "p",
    -9: "n",
    -6: "µ",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
    21: "Z",
    24: "Y",
}
_ATTACHED = {"s", "B", "b", "FLOP", "op", "ops", "Hz", "W", "J"}


def _si(value, unit: str = "", digits: int = 4) -> str:
    """``3.35e12, "B/s"`` → ``3.35 TB/s``; units that are not SI-like get a spaced prefix (``1.5 k cycles``)."""
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if unit.startswith("×"):  # normalized machines: fractions of peak, no prefixes
        return f"{_num(value, digits)} {unit}"
    if value == 0 or math.isinf(value):
        return f"{_num(value, digits)} {unit}".strip()
    exp = max(-24, min(24, int(math.floor(math.log10(abs(value)) / 3)) * 3))
    text = f"{value / 10**exp:.{digits}g}"
    if abs(float(text)) >= 1000 and exp < 24:
        exp += 3
        text = f"{value / 10**exp:.{digits}g}"
    prefix = _PREFIXES[exp]
    if not unit:
        return f"{text}{prefix}"
    if not prefix:
        return f"{text} {unit}"
    attached = unit.split("/")[0] in _ATTACHED
    return f"{text} {prefix}{unit}" if attached else f"{text} {prefix} {unit}"


def _num(value, digits: int = 4) -> str:
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}g}"


def _pct(fraction) -> str:
    fraction = float(fraction)
    return "n/a" if math.isnan(fraction) else f"{100 * fraction:.1f}%"


def _table(header, rows, right=(), indent="") -> list[str]:
    lines = [[printable(cell) for cell in header]] if header else []
    lines += [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(str(r[c])) for r in lines) for c in range(len(lines[0]))]
    out = []
    for row in lines:
        cells = [str(cell).rjust(widths[c]) if c in right else str(cell).ljust(widths[c]) for c, cell in enumerate(row)]
        out.append(indent + "  ".join(cells).rstrip())
    return out


if __name__ == "__main__":
    sys.exit(main())
