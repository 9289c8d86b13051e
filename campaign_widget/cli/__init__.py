"""The ``campaign-widget`` command: draw a workload file, or summarize it as text.

    campaign-widget render FILE -o OUT.png|.svg|.pdf [--tiles N] [--pipeline] [--policy P] [--depth D]
                           [--machine PRESET] [--peak-compute X] [--peak-bandwidth Y] [--roofline] [--title T]
                           [--param NAME=VALUE ...] [--categories A,B] [--counters FILE] [--clock HZ]
                           [--option KEY=VALUE ...]
    campaign-widget render FOLDER -o OUT.png|.svg|.pdf [--machine PRESET]   (a job's rank traces, stacked)
    campaign-widget summary FILE [same options] [--threshold 0.7]
    campaign-widget job FOLDER [--machine PRESET] [--ranks 0-7|slowest:K] [--workers N] [-o OUT.png]

FILE is any format ``campaign_widget.load`` reads (our YAML/JSON, the paper authors' cascade
YAML, Einsum CSV exports, PyTorch traces and Nsight Compute CSV with ``--machine``, Timeloop stats,
DaCe SDFGs with ``--param`` for their symbols). ``--option KEY=VALUE`` passes any other reader option
(``--option group_by=kernel``; ``true``/``false``, numbers and comma-separated lists are read as such).
A reader's advice names keyword arguments (``pass params={...}``); the command words it in its flags
(``--param N=...``), by one table (``_reader_flags.READER_OPTIONS``, from which the parser declares them).

The package, a module a job: ``_arguments`` (the parser), ``_values`` (each flag's value checked),
``_reader_flags`` (the flags that are reader options), ``_loading`` (the file's workload as the flags ask),
``_commands`` (render, summary, --list-machines), ``_job`` (a distributed job's folder), ``_advice`` (a reader's error in the command line's
words), ``_output`` (what is printed, and how).

Output is for a person: every text printed has its control characters escaped (a name in a file cannot
drive the terminal), characters the terminal's encoding lacks are spelled out (``µs`` as ``us``), long
names are shortened in the middle (two that would read alike are numbered) to keep a line within
``MAX_LINE``, and a message is never cut: its advice is printed whole. ``render`` writes OUT whole
or not at all. Exit status: 0 done (also when the reader of the output goes away, as ``| head -1``
does), 1 bad input (the file, its numbers, settings that cannot be honoured) or an output that cannot
be written (standard output closed), 2 bad usage (unknown option, bad option value). Errors are one line
on stderr.
"""

from __future__ import annotations

import sys

from ..errors import InputError, OutputClosed, UsageError
from ._advice import for_command_line
from ._arguments import build_parser
from ._commands import list_machines, render, summary
from ._job import job
from ._output import EXIT_INPUT, EXIT_OK, EXIT_USAGE, MAX_LINE, PROG, printable, quiet_stdout, say, shorten, si
from ._reader_flags import READER_FLAGS

__all__ = ["MAX_LINE", "PROG", "READER_FLAGS", "for_command_line", "main", "printable", "shorten"]
_si = si  # the name the tests have always used


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 done, 1 bad input, 2 bad usage)."""
    try:
        code = _main(argv)
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except BrokenPipeError:  # the reader went away (``| head -1``): what it wanted was printed
        quiet_stdout()
        return EXIT_OK
    except OutputClosed:
        say(f"{PROG}: error: standard output is closed: nothing can be printed (redirect it to a file or /dev/null)")
        return EXIT_INPUT


def _main(argv) -> int:
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help and --version
            return int(e.code or 0)
        if sys.stdout is None:  # started with standard output closed
            raise OutputClosed
        if args.list_machines:
            return list_machines()
        if args.command is None:
            raise UsageError(f"{PROG}: error: give a command: render or summary (see {PROG} --help)")
        if args.command == "render":
            return render(args)
        if args.command == "job":
            return job(args)
        return summary(args)
    except UsageError as e:
        say(str(e))
        return EXIT_USAGE
    except InputError as e:
        say(f"{PROG}: error: {e}")
        return EXIT_INPUT
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            raise
        if getattr(e, "errno", None) == 9:  # EBADF: standard output was closed while running
            raise OutputClosed from None
        raise
