"""The ``campaign-widget`` command: draw a workload file, or summarize it as text.

    campaign-widget render FILE -o OUT.png|.svg|.pdf [--tiles N] [--pipeline] [--policy P] [--depth D]
                           [--machine PRESET] [--peak-compute X] [--peak-bandwidth Y] [--roofline] [--title T]
                           [--param NAME=VALUE ...] [--categories A,B] [--counters FILE] [--clock HZ]
                           [--option KEY=VALUE ...]
    campaign-widget summary FILE [same options] [--threshold 0.7]

FILE is any format ``campaign_widget.load`` reads (our YAML/JSON, the paper authors' cascade
YAML, Einsum CSV exports, PyTorch traces and Nsight Compute CSV with ``--machine``, Timeloop stats,
DaCe SDFGs with ``--param`` for their symbols). ``--option KEY=VALUE`` passes any other reader option
(``--option group_by=kernel``; ``true``/``false``, numbers and comma-separated lists are read as such).
A reader's advice names keyword arguments (``pass params={...}``); the command words it in its flags
(``--param N=...``), by one table (``READER_FLAGS``).

Output is for a person: every text printed has its control characters escaped (a name in a file cannot
drive the terminal), characters the terminal's encoding lacks are spelled out (``µs`` as ``us``), long
names are shortened in the middle and no line is longer than ``MAX_LINE``. ``render`` writes OUT whole
or not at all. Exit status: 0 done (also when the reader of the output goes away, as ``| head -1``
does), 1 bad input (the file, its numbers, settings that cannot be honoured) or an output that cannot
be written (standard output closed), 2 bad usage (unknown option, bad option value). Errors are one line
on stderr.
"""

from __future__ import annotations

import argparse
import ast
import logging
import math
import os
import re
import sys
import unicodedata
import warnings

import numpy as np

from . import __version__
from .atomic import atomic_path
from .errors import ScheduleError, UtilizationAboveOneWarning, WorkloadError, WorkloadFileError, short_repr
from .io import detect, load
from .model.presets import MACHINES
from .model.presets import machine as preset_machine
from .model.settings import DEFAULTS as DEFAULT_SETTINGS
from .model.settings import POLICIES, STEPPINGS, Settings
from .model.workload import Workload

PROG = "campaign-widget"
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2
MAX_LINE = 600  # characters in any line printed
NAME_WIDTH = 60  # characters of a name in a table (longer ones keep their start and end)


class UsageError(Exception):
    """A bad command line: reported in one line, exit status 2."""


class InputError(Exception):
    """A bad input file or setting: reported in one line, exit status 1."""


class OutputClosed(Exception):
    """Standard output is closed: nothing can be printed; exit status 1 with a line on stderr."""


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


def _parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="workload file: YAML/JSON (ours), cascade YAML, Einsum CSV, PyTorch trace, Nsight Compute CSV, "
        "Timeloop stats or DaCe SDFG",
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
        help="read the file's utilizations as fractions of this preset's peaks; see --list-machines",
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
        help="its config.json or a preset (llama-2-7b, llama-3-8b, mistral-7b, mixtral-8x7b, gpt2)",
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


# -- the commands ------------------------------------------------------------------------------------


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 done, 1 bad input, 2 bad usage)."""
    try:
        code = _main(argv)
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except BrokenPipeError:  # the reader went away (``| head -1``): what it wanted was printed
        _quiet_stdout()
        return EXIT_OK
    except OutputClosed:
        _say(f"{PROG}: error: standard output is closed: nothing can be printed (redirect it to a file or /dev/null)")
        return EXIT_INPUT


def _main(argv) -> int:
    parser = _parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help and --version
            return int(e.code or 0)
        if sys.stdout is None:  # started with standard output closed
            raise OutputClosed
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
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            raise
        if getattr(e, "errno", None) == 9:  # EBADF: standard output was closed while running
            raise OutputClosed from None
        raise


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush finds no broken pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):  # no real file behind stdout (tests capture it)
        pass


def _say(line: str, stream=None) -> None:
    stream = stream or sys.stderr
    if stream is None:  # standard error closed too: the exit status says it
        return
    try:
        _write(stream, " ".join(str(line).split("\n")))
    except OSError:
        pass


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


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: the start and the end kept, an ellipsis between (the end
    of a long kernel name is what tells it from its neighbours)."""
    text = str(text)
    if len(text) <= width:
        return text
    keep = max(width - 1, 2)
    head = keep // 2
    return text[:head] + "…" + text[len(text) - (keep - head) :]


# characters a terminal's encoding may lack, spelled in ASCII; any other is written as an escape
_SPELLED = {"µ": "u", "×": "x", "…": "...", "—": "-", "–": "-", "·": "*", "≥": ">=", "≤": "<=", "→": "->"}


def _encodable(text: str, encoding: str) -> str:
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:
        return text
    out = []
    for ch in text:
        try:
            ch.encode(encoding)
            out.append(ch)
        except UnicodeEncodeError:
            spelled = _SPELLED.get(ch, ascii(ch)[1:-1])
            out.append(spelled if all(ord(c) < 128 for c in spelled) else "?")
    return "".join(out)


def _write(stream, line: str) -> None:
    """One line for a person: escaped, at most MAX_LINE characters, in the stream's encoding."""
    text = shorten(printable(line), MAX_LINE)
    stream.write(_encodable(text, getattr(stream, "encoding", None) or "utf-8") + "\n")


def _print(line: str) -> None:
    if sys.stdout is None:
        raise OutputClosed
    _write(sys.stdout, line)


# -- reader errors in the command line's words ------------------------------------------------------------

#: A reader's keyword argument → the flag that gives it here; any other keyword a reader's advice names is
#: given with ``--option KEY=VALUE``.
READER_FLAGS = {
    "machine": "--machine",
    "params": "--param",
    "categories": "--categories",
    "clock": "--clock",
    "counters": "--counters",
    "percent": "--percent",
}
_KEYWORD = re.compile(r"(?<![\w.\-=])([A-Za-z_][A-Za-z0-9_]*)=(?!=)")
_CLOSING = {"{": "}", "[": "]", "(": ")"}


def for_command_line(message: str) -> str:
    """A reader's message with its keyword-argument advice (``pass params={'N': ...}``) in flags
    (``pass --param N=...``): keywords in ``READER_FLAGS`` always, any other keyword where the message
    tells the caller to pass it."""
    out, done = [], 0
    for m in _KEYWORD.finditer(message):
        if m.start() < done:
            continue
        name, end = m.group(1), _value_end(message, m.end())
        value = message[m.end() : end]
        if name in READER_FLAGS:
            text = _flag(name, value, message)
        elif re.search(r"\bpass\b[^;]*$", message[: m.start()]):
            text = f"--option {name}={_plain(value) or 'VALUE'}"
        else:
            continue
        out += [message[done : m.start()], text]
        done = end
    out.append(message[done:])
    return "".join(out)


def _value_end(text: str, start: int) -> int:
    """Where a Python value written at ``text[start:]`` ends (brackets and quotes balanced)."""
    if start >= len(text):
        return start
    first = text[start]
    if first in _CLOSING:
        depth, quote = 0, None
        for i in range(start, len(text)):
            ch = text[i]
            if quote:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch in _CLOSING:
                depth += 1
            elif ch in _CLOSING.values():
                depth -= 1
                if depth == 0:
                    return i + 1
        return len(text)
    if first in "'\"":
        close = text.find(first, start + 1)
        return len(text) if close < 0 else close + 1
    m = re.compile(r"[^\s,;)]*").match(text, start)
    return m.end()


def literal_text(value: str):
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _plain(value: str) -> str:
    """A Python value as the command line writes it: ``('a', 'b')`` → ``a,b``, ``'x'`` → ``x``."""
    parsed = literal_text(value) if value else None
    if isinstance(parsed, (tuple, list)):
        return ",".join(str(v) for v in parsed)
    if parsed is not None and not isinstance(parsed, dict):
        return str(parsed)
    return value


def _flag(name: str, value: str, message: str) -> str:
    flag = READER_FLAGS[name]
    if name == "machine":
        listed = all(key in message for key in MACHINES)
        return f"{flag} NAME" + ("" if listed else f" (presets: {', '.join(MACHINES)})")
    if name == "params":
        parsed = literal_text(value)
        if isinstance(parsed, dict) and parsed:
            pairs = [(k, "..." if v is Ellipsis else v) for k, v in parsed.items()]
        else:
            pairs = [(k, "...") for k in re.findall(r"['\"]([^'\"]+)['\"]\s*:", value)]
        return " ".join(f"{flag} {k}={v}" for k, v in pairs) if pairs else f"{flag} NAME=VALUE"
    if name == "percent":
        return flag
    metavar = {"categories": "A,B", "clock": "HZ", "counters": "FILE"}[name]
    return f"{flag} {_plain(value) or metavar}"


def _reader_error(e: Exception) -> str:
    """A reader's error in the command line's words (its field too, when the field is an option)."""
    if type(e) is WorkloadFileError:
        field = e.field
        if field is not None:
            field = READER_FLAGS.get(field, field)
        return str(WorkloadFileError(for_command_line(e.reason), path=e.path, line=e.line, field=field))
    return for_command_line(str(e))


def _list_machines() -> int:
    rows = [
        [key, _si(m.peak_compute, m.compute_unit), _si(m.peak_bandwidth, m.bandwidth_unit), m.name]
        for key, m in MACHINES.items()
    ]
    for line in _table(["preset", "compute", "bandwidth", "name"], rows, right={1, 2}):
        _print(line)
    return EXIT_OK


def _reader_options(args) -> dict:
    """The reader options the command line gives: dedicated flags, then ``--option KEY=VALUE``."""
    options = {}
    if args.clock is not None:
        options["clock"] = args.clock
    if args.param:
        options["params"] = dict(args.param)
    if args.categories is not None:
        options["categories"] = args.categories
    if args.counters is not None:
        options["counters"] = args.counters
    for key, value in args.option or ():
        if key in ("machine", "percent") or key in options:
            given = READER_FLAGS.get(key, "--option")
            raise UsageError(f"{PROG}: error: argument --option: {key} is given twice (or give it with {given})")
        options[key] = value
    return options


_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'|unknown load options \['(\w+)'")
#: The formats each dedicated reader flag is for (said when a file's reader takes no such option).
FLAG_FORMATS = {
    "clock": "Timeloop stats",
    "params": "DaCe SDFGs",
    "categories": "PyTorch traces",
    "counters": "PyTorch traces",
}


def _load(args):
    """The file's workload with the command line's machine, peaks and settings applied."""
    transformer = getattr(args, "transformer", None)
    if transformer is not None and args.file is not None:
        raise UsageError(f"{PROG}: error: give FILE or --transformer, not both")
    if transformer is None and args.file is None:
        raise UsageError(f"{PROG}: error: the following arguments are required: FILE")
    if transformer is not None:
        args.file = transformer  # what every message names
    options = _reader_options(args)
    with _reported(args.file) as caught:
        try:
            try:
                if transformer is not None:
                    workload = Workload.from_transformer(
                        transformer,
                        batch=args.batch,
                        seq=args.seq,
                        stage=args.stage,
                        kv_len=args.kv_len,
                        machine=args.machine,
                    )
                else:
                    workload = load(args.file, machine=args.machine, percent=args.percent, **options)
            except TypeError as e:
                unexpected = _UNEXPECTED.search(str(e))
                key = unexpected and (unexpected.group(1) or unexpected.group(2))
                if key not in options:
                    raise
                flag = READER_FLAGS.get(key, f"--option {key}=...")
                meant = f" ({flag} is for {FLAG_FORMATS[key]})" if key in FLAG_FORMATS else ""
                fmt = detect(args.file).name
                raise UsageError(
                    f"{PROG}: error: {flag}: {args.file} is {fmt}, whose reader takes no option {key!r}{meant}"
                ) from None
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
            raise InputError(_reader_error(e)) from None
        caught.keep = lambda w: not issubclass(w.category, UtilizationAboveOneWarning)
    for line in workload.utilization_warnings():  # for the final peaks
        _say(f"{PROG}: warning: {args.file}: {line}")
    settings = Settings.resolve(workload.settings).as_dict()
    origin = {
        k: f"given with --{k}" if getattr(args, k) is not None else "from the file" if k in from_file else "the default"
        for k in DEFAULT_SETTINGS
    }
    return workload, settings, origin


class _Caught(logging.Handler):
    """Warnings and library log records of one step, said afterwards as escaped one-line warnings (a
    missing-glyph warning quotes a phase name, control characters and all)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[str] = []
        self.keep = lambda w: True

    def emit(self, record) -> None:
        self.records.append(record.getMessage())


class _reported:
    LOGGERS = ("matplotlib", "PIL", "fontTools")

    def __init__(self, file):
        self.file, self.caught = file, _Caught()

    def __enter__(self):
        self.warnings = warnings.catch_warnings(record=True)
        self.list = self.warnings.__enter__()
        warnings.simplefilter("always")
        self.saved = []
        for name in self.LOGGERS:
            logger = logging.getLogger(name)
            self.saved.append((logger, logger.propagate))
            logger.addHandler(self.caught)
            logger.propagate = False
        return self.caught

    def __exit__(self, *exc):
        self.warnings.__exit__(*exc)
        for logger, propagate in self.saved:
            logger.removeHandler(self.caught)
            logger.propagate = propagate
        if exc[0] is None:
            said = [str(w.message) for w in self.list if self.caught.keep(w)] + self.caught.records
            for message in dict.fromkeys(said):  # a warning repeated per glyph drawn is said once
                where = "" if message.startswith(str(self.file)) else f"{self.file}: "
                _say(f"{PROG}: warning: {where}{message}")
        return False


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
        with _reported(args.file), atomic_path(args.output) as temporary:  # the old OUT stays whole if drawing fails
            save_workload_figure(workload, temporary, roofline=args.roofline, title=args.title, **settings)
        path = args.output
    except OSError as e:
        raise InputError(f"{e.filename or args.output}: {e.strerror or e}") from None
    except (WorkloadError, ScheduleError, ValueError) as e:
        raise InputError(f"{args.file}: {e}") from None
    except (TypeError, ArithmeticError, RuntimeError) as e:  # the plotting library, at numbers it cannot lay out
        raise InputError(
            f"{args.file}: the figure could not be drawn at these peaks ({type(e).__name__}: {short_repr(str(e))}); "
            f"nothing was written to {args.output}"
        ) from None
    _print(f"wrote {path}")
    return EXIT_OK


def _summary(args) -> int:
    from .model.roofline import workload_roofline

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
    levels = m.level_names[:-1]  # nearer memory levels (design.md §8): a column each, and the bounding one
    if levels:
        out.insert(
            -1, "memory levels: " + ", ".join(f"{name} {_si(bw, m.bandwidth_unit)}" for name, bw in m.memory_levels)
        )
    header = [
        "phase",
        "duration",
        m.compute_name,
        *levels,
        m.memory_name,
        "OI",
        "bound",
        "roof",
        "efficiency",
        "guidance",
    ]
    if levels:
        header.insert(header.index("bound") + 1, "bound by")
    rows = []
    for i, name in enumerate(workload.names):
        near = [_pct(a.level_util[i, k]) if np.isfinite(a.level_util[i, k]) else "—" for k in range(len(levels))]
        row = [
            name,
            _si(a.duration[i], m.time_unit),
            _pct(a.compute_util[i]),
            *near,
            _pct(a.memory_util[i]),
            _num(roof.intensity[i]),
            str(roof.regime[i]),
            *([str(a.bound_resource[i])] if levels else []),
            _si(roof.bound[i], m.compute_unit),
            _pct(roof.efficiency[i]),
            str(roof.guidance[i]),
        ]
        rows.append(row)
    numeric = {1, 2, *range(3, 3 + len(levels)), 3 + len(levels), 4 + len(levels), 6 + len(levels) + bool(levels)}
    numeric.add(7 + len(levels) + bool(levels))
    out += _table(header, rows, right=numeric)
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
    """Aligned columns; a cell longer than NAME_WIDTH (a kernel's name) keeps its start and end."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"  # widths as the terminal will show them

    def cell(text, shortened):
        return _encodable(printable(shorten(text, NAME_WIDTH) if shortened else text), encoding)

    lines = [[cell(text, False) for text in header]] if header else []
    lines += [[cell(text, c < len(row) - 1) for c, text in enumerate(row)] for row in rows]
    widths = [max(len(str(r[c])) for r in lines) for c in range(len(lines[0]))]
    out = []
    for row in lines:
        cells = [str(cell).rjust(widths[c]) if c in right else str(cell).ljust(widths[c]) for c, cell in enumerate(row)]
        out.append(indent + "  ".join(cells).rstrip())
    return out


if __name__ == "__main__":
    sys.exit(main())
