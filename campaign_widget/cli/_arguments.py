"""The argument parser: its commands and flags (the reader's flags from ``_reader_flags``, each value checked
by a type of ``_values``); a bad command line is a one-line usage error, exit status 2."""

from __future__ import annotations

import argparse
import textwrap

from .. import __version__
from ..errors import UsageError
from ..io import formats
from ..model.presets import MACHINES
from ..model.settings import POLICIES, STEPPINGS
from ..model.transformer import COUNTS, DTYPE_BYTES
from ..model.transformer import presets as transformer_presets
from ._job import add_job_parser
from ._output import PROG
from ._reader_flags import READER_OPTIONS
from ._values import option, peak, preset, threshold, whole

#: The flags of ``--transformer``, each a keyword of ``Workload.from_transformer`` (``--kv-len``: kv_len);
#: one left out (None) is not passed, so the builder's default holds.
TRANSFORMER_PASS = {
    "batch": dict(type=int, default=1, metavar="N", help="sequences in the batch (default 1)"),
    "seq": dict(type=int, default=2048, metavar="N", help="tokens per sequence (default 2048)"),
    "kv_len": dict(type=int, metavar="N", help="decode: tokens attended to (default --seq)"),
    "stage": dict(
        choices=["prefill", "decode", "generate", "mixed"],
        default="prefill",
        help="which pass, a whole generation (needs --new-tokens) or a mixed step (a prompt of --seq tokens "
        "beside --batch sequences decoding at --kv-len); default prefill",
    ),
    "new_tokens": dict(type=int, metavar="N", help="generate: tokens each sequence generates"),
    "dtype": dict(choices=list(DTYPE_BYTES), help="activations' data type (default fp16)"),
    "weight_dtype": dict(choices=list(DTYPE_BYTES), help="weights' data type (default --dtype)"),
    "kv_dtype": dict(choices=list(DTYPE_BYTES), help="the KV cache's data type (default --dtype)"),
    "tensor_parallel": dict(type=int, metavar="N", help="devices the model is split over (default 1)"),
    "counts": dict(choices=list(COUNTS), help="einsum (default) or LLM-Viewer's counts"),
    "flash_attention": dict(action="store_const", const=True, help="fuse the attention (FlashAttention)"),
}


class _Formatter(argparse.HelpFormatter):
    def _split_lines(self, text, width):  # a format's or a preset's name is never split at its hyphens
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, formatter_class=_Formatter, **kwargs)

    def error(self, message):  # argparse prints usage + message and exits; we want one line
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help=f"workload file, in a format campaign_widget.load reads ({', '.join(f.name for f in formats())})",
    )
    s = common.add_argument_group("schedule (default: the file's settings, else 1 tile, sequential, none, 2)")
    s.add_argument("--tiles", type=whole, metavar="N", help="split each phase into N tiles")
    s.add_argument(
        "--pipeline",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="pipeline the tiles across phases (needs --tiles > 1)",
    )
    s.add_argument("--policy", choices=POLICIES, help="what to do about oversubscription")
    s.add_argument("--depth", type=whole, metavar="D", help="buffer depth between pipelined phases (2 = double)")
    s.add_argument(
        "--stepping",
        choices=STEPPINGS,
        help="when a pipelined tile starts: event (design notes) or lockstep (the paper authors' tool)",
    )
    m = common.add_argument_group("machine (default: the file's)")
    m.add_argument(
        "--machine",
        type=preset,
        metavar="PRESET",
        help=f"read the file's utilizations as fractions of this preset's peaks ({', '.join(MACHINES)}); "
        "see --list-machines",
    )
    m.add_argument("--peak-compute", type=peak, metavar="X", help="override peak compute (ops/s), e.g. 51.2T")
    m.add_argument("--peak-bandwidth", type=peak, metavar="Y", help="override peak bandwidth (bytes/s), e.g. 3.35T")
    m.add_argument(
        "--percent",
        action="store_true",
        help="utilizations in a cascade YAML or CSV file are percentages, not fractions",
    )
    t = common.add_argument_group("a transformer's forward pass instead of FILE (campaign_widget.model.transformer)")
    t.add_argument(
        "--transformer",
        metavar="CONFIG",
        help=f"its config.json or a preset ({', '.join(transformer_presets())}); prints its memory footprint",
    )
    for keyword, spec in TRANSFORMER_PASS.items():
        t.add_argument("--" + keyword.replace("_", "-"), **spec)
    r = common.add_argument_group("reader options (what some file formats need)")
    for o in READER_OPTIONS:
        action = "append" if o.repeated else "store"
        r.add_argument(o.flag, dest=o.keyword, type=o.type, action=action, metavar=o.metavar, help=o.help)
    r.add_argument(
        "--option",
        type=option,
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
        description="Draw FILE's campaign diagram (and roofline) to OUT. FILE may be a folder of a distributed "
        "job's traces, one per rank: its ranks are drawn stacked on one time axis, as `job -o` draws them.",
    )
    render.add_argument("-o", "--output", required=True, metavar="OUT", help="OUT.png, OUT.svg or OUT.pdf")
    render.add_argument("--roofline", action="store_true", help="draw the roofline beside the diagram")
    render.add_argument("--title", metavar="T", help='figure title (default: the schedule; "" for none)')
    add_job_parser(commands)
    summary = commands.add_parser(
        "summary",
        parents=[common],
        help="print per-phase numbers and makespans",
        description="Print FILE's phases (roofline bound, efficiency, seed 002 "
        "guidance) and the makespan under each policy.",
    )
    summary.add_argument(
        "--threshold",
        type=threshold,
        default=0.7,
        help="efficiency at or above which a phase is 'near roof' (default 0.7)",
    )
    return parser
