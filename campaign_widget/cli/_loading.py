"""The file's workload as the command line asks for it: the reader's options from the flags, the
machine, peaks and settings applied, warnings and library log records said afterwards in one line each."""

from __future__ import annotations

import logging
import re
import warnings
from dataclasses import replace

from ..errors import (
    CommandLineError,
    InputError,
    ScheduleError,
    UsageError,
    UtilizationAboveOneWarning,
    WorkloadError,
)
from ..io import detect, load
from ..model.settings import DEFAULTS as DEFAULT_SETTINGS
from ..model.settings import Settings
from ..model.workload import Workload
from ._advice import reader_error, transformer_error
from ._arguments import TRANSFORMER_PASS
from ._output import PROG, say
from ._reader_flags import READER_FLAGS, READER_OPTIONS, reader_options


def _reader_options(args) -> dict:
    """The reader options the command line gives: dedicated flags, then ``--option KEY=VALUE``."""
    options = reader_options(args)
    for key, value in args.option or ():
        if key in ("machine", "percent") or key in options:
            given = READER_FLAGS.get(key, "--option")
            raise UsageError(f"{PROG}: error: argument --option: {key} is given twice (or give it with {given})")
        options[key] = value
    return options


_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'|unknown load options \['(\w+)'")
#: The formats each dedicated reader flag is for (said when a file's reader takes no such option).
FLAG_FORMATS = {o.keyword: o.formats for o in READER_OPTIONS}


def load_workload(args):
    """The file's workload with the command line's machine, peaks and settings applied."""
    transformer = getattr(args, "transformer", None)
    if transformer is not None and args.file is not None:
        raise UsageError(f"{PROG}: error: give FILE or --transformer, not both")
    if transformer is None and args.file is None:
        raise UsageError(f"{PROG}: error: the following arguments are required: FILE")
    if transformer is not None:
        args.file = transformer  # what every message names
    options = _reader_options(args)
    with reported(args.file) as caught:
        try:
            try:
                if transformer is not None:
                    workload = Workload.from_transformer(transformer, **transformer_options(args))
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
                say(
                    f"{PROG}: warning: {args.file}: a timeline (kernel start times); this command uses its phases "
                    "as a workload, without the start times"
                )
                workload = workload.workload
            from_file = set(workload.settings)
            if args.peak_compute is not None or args.peak_bandwidth is not None:
                workload = workload.with_peaks(args.peak_compute, args.peak_bandwidth)
                if workload.machine.name:  # no longer the named machine's figures
                    renamed = replace(workload.machine, name=f"{workload.machine.name}, peaks from the command line")
                    workload = workload.with_machine(renamed)
            overrides = {k: getattr(args, k) for k in DEFAULT_SETTINGS if getattr(args, k) is not None}
            if overrides:
                workload = workload.with_settings(**overrides)
        except CommandLineError:  # already in the command line's words (and a ValueError, like the next)
            raise
        except OSError as e:
            raise unreadable(e, args.file) from None
        except (WorkloadError, ScheduleError, ValueError, TypeError) as e:
            raise InputError(transformer_error(str(e)) if transformer is not None else reader_error(e)) from None
        caught.keep = lambda w: not issubclass(w.category, UtilizationAboveOneWarning)
    for line in workload.utilization_warnings():  # for the final peaks
        say(f"{PROG}: warning: {args.file}: {line}")
    settings = Settings.resolve(workload.settings).as_dict()
    origin = {
        k: f"given with --{k}" if getattr(args, k) is not None else "from the file" if k in from_file else "the default"
        for k in DEFAULT_SETTINGS
    }
    return workload, settings, origin


def transformer_options(args) -> dict:
    """``from_transformer``'s keywords from the ``--transformer`` flags given (and ``--machine``)."""
    options = {keyword: getattr(args, keyword) for keyword in TRANSFORMER_PASS}
    return {"machine": args.machine, **{k: v for k, v in options.items() if v is not None}}


def transformer_notes(args, workload) -> list[str]:
    """What ``--transformer`` adds to a command's output: the memory footprint per device and whether it
    fits the machine's capacity; for a generation, its time to first token, per output token and tokens/s."""
    if getattr(args, "transformer", None) is None:
        return []
    from ..model.generation import generation
    from ..model.transformer import footprint

    options = {**transformer_options(args), "machine": workload.machine}
    notes = [f"memory: {footprint(args.transformer, **options).describe()}"]
    if options.get("stage") == "generate":
        notes.append(f"generation: {generation(args.transformer, **options).describe()}")
    return notes


def unreadable(e: OSError, name) -> InputError:
    """A file that cannot be read or written, as one line: the file's name and the system's reason."""
    return InputError(f"{e.filename or name}: {e.strerror or e}")


class _Caught(logging.Handler):
    """Warnings and library log records of one step, said afterwards as escaped one-line warnings (a
    missing-glyph warning quotes a phase name, control characters and all)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records: list[str] = []
        self.keep = lambda w: True

    def emit(self, record) -> None:
        self.records.append(record.getMessage())


class reported:
    """A step's warnings and library log records, said afterwards (see ``_Caught``)."""

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
                say(f"{PROG}: warning: {where}{message}")
        return False
