"""The ``job`` command: a distributed job's folder of traces, its breakdown, overlap and stragglers
printed, its ranks drawn stacked with ``-o`` (docs/distributed-jobs.md)."""

from __future__ import annotations

import argparse
import re
import warnings
from pathlib import Path

from ..atomic import atomic_path
from ..errors import CampaignWidgetError, InputError, UsageError
from ..model.presets import MACHINES
from ._output import EXIT_OK, PROG, print_line, printable, say
from ._values import preset

FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
_SPAN = re.compile(r"(\d+)(?:-(\d+))?")


def ranks_spec(text: str):
    """``--ranks``: ``0-7``, ``0,2,5``, ``0-3,8`` or ``slowest:K``."""
    text = text.strip()
    if text.startswith("slowest:"):
        return text
    out: list[int] = []
    for part in text.split(","):
        m = _SPAN.fullmatch(part.strip())
        if m is None:
            raise argparse.ArgumentTypeError(f"{text!r} is not a list of ranks (0-7, 0,2,5) or slowest:K")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo or hi - lo > 1_000_000:
            raise argparse.ArgumentTypeError(f"{part!r}: a range of ranks runs from low to high")
        out.extend(range(lo, hi + 1))
    return out


def add_job_parser(commands) -> None:
    job = commands.add_parser(
        "job",
        help="a distributed job's folder of traces: breakdown, overlap, stragglers",
        description="Read a job's Kineto traces (one per rank) and print each rank's temporal breakdown and "
        "communication overlap, and the stragglers; -o draws the ranks stacked on one time axis.",
    )
    job.add_argument("folder", metavar="FOLDER", help="a folder of *.json / *.json.gz traces, one per rank")
    job.add_argument("--machine", type=preset, metavar="PRESET", help=f"the ranks' machine ({', '.join(MACHINES)})")
    job.add_argument("--ranks", type=ranks_spec, metavar="SPEC", help="which ranks: 0-7, 0,2,5 or slowest:K")
    job.add_argument("--workers", type=int, metavar="N", help="read on a pool of N processes (default: by size)")
    job.add_argument("-o", "--output", metavar="OUT", help="also draw the ranks stacked: OUT.png, .svg or .pdf")


def job(args) -> int:
    if args.output is not None and Path(args.output).suffix.lower() not in FIGURE_SUFFIXES:
        raise UsageError(
            f"{PROG} job: error: argument -o/--output: unknown suffix {Path(args.output).suffix!r} "
            f"in {args.output!r}; use {', '.join(FIGURE_SUFFIXES)}"
        )
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"{PROG} job: error: argument --workers: {args.workers} must be at least 1")
    loaded = load_folder(args.folder, args.machine, args.ranks, args.workers)
    for line in loaded.summary().splitlines():
        print_line(printable(line))
    if args.output is not None:
        draw_job(loaded, args.output)
    return EXIT_OK


def render_job(args) -> int:
    """``render FOLDER -o OUT``: a folder of rank traces drawn as the job's stacked ranks (what ``job -o``
    draws); the options of one workload's figure do not apply and are refused."""
    given = [flag for flag, value in (("--roofline", args.roofline), ("--title", args.title)) if value]
    if given:
        raise UsageError(f"{PROG} render: error: {', '.join(given)}: not for a folder of rank traces (a job)")
    draw_job(load_folder(args.file, args.machine, None, None), args.output)
    return EXIT_OK


def load_folder(folder, machine, ranks, workers):
    """The job of a folder (``load_job``), its unreadable ranks warned about on stderr."""
    import concurrent.futures as cf

    from ..job import JobReadWarning, load_job

    pool = cf.ProcessPoolExecutor(workers) if workers else None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", JobReadWarning)
            loaded = load_job(folder, machine=machine, executor=pool, ranks=ranks, progress=False)
    except CampaignWidgetError as e:
        raise InputError(str(e)) from None
    except OSError as e:
        raise _unreadable(e, folder) from None
    finally:
        if pool is not None:
            pool.shutdown()
    for w in caught:
        if issubclass(w.category, JobReadWarning):
            say(f"{PROG}: warning: {printable(str(w.message))}")
    return loaded


def draw_job(loaded, output) -> None:
    """The job's ranks stacked on one time axis (``job_diagrams``), written whole to ``output``."""
    from ..views.job import job_diagrams

    try:
        with atomic_path(output) as temporary:  # the old OUT stays whole if drawing fails
            job_diagrams(loaded).savefig(temporary)
    except OSError as e:
        raise _unreadable(e, output) from None
    print_line(f"wrote {output}")


def _unreadable(e: OSError, name) -> InputError:
    # as _loading words it; _loading imports the parser, which imports this module
    return InputError(f"{e.filename or name}: {e.strerror or e}")
