"""DaCe SDFGs (``.sdfg`` JSON, ``.sdfgz`` gzipped JSON) → a Workload of phases reading and writing tensors.

Read with the standard library and numpy only; ``dace`` is never imported. Reads the layouts dace has
written, from 2019-era files (no ``dace_version``, ``{"main": ..., "approx": ...}`` expressions) through
dace 0.x–1.x (states joined by interstate edges) to dace 2.x (``LoopRegion``, ``ConditionalBlock`` and
other control-flow regions). A construct it does not know is an error naming it and the dace version.

>>> from campaign_widget.io import read_sdfg                              # doctest: +SKIP
>>> w = read_sdfg("matmul.sdfgz", params={"M": 64, "N": 64, "K": 64})     # doctest: +SKIP
>>> print(w.import_report)                                                # doctest: +SKIP

What becomes what
  *Phases*: each top-level scope of a state — a map (or consume) scope with everything inside it,
  a tasklet, a library node, a nested SDFG — and each copy between two access nodes (``copy X → Y``).
  Names are the nodes' labels (``_MatMult_``, ``matmul_map_5``); repeated labels get ``#2``, ``#3``.
  Phases come in the order the state machine runs them: a loop whole (its head, then its body) before
  what follows it, ties in the file's order.
  *Tensors*: the top-level access nodes. A container written more than once gets one tensor per
  version (``A``, then ``A@2`` …), so that each tensor has one producer and data dependencies stay
  acyclic; views are followed to the container they view.
  *Reads and writes*: the memlet edges between an access node and a phase, bytes = memlet volume ×
  element size (``dtype`` of the container, or ``element_bytes=``). Volumes are DaCe's logical
  volumes (what the seed paper's heatmap shows), summed per tensor, times the state's ``executions``
  (present when the SDFG was saved after ``propagate_states``) or the trip counts of the
  ``LoopRegion`` s around it. A dynamic memlet (its count known only at run time, volume 0 in the
  file) counts its subset's size, an upper bound, said so in the import report.
  *Ops*: each tasklet's Python code is parsed with ``ast`` (never executed): every arithmetic
  operator (``+ - * / // % ** @``, augmented assignment, unary minus), every comparison operator and
  every call of a known math function (``max min abs exp log sqrt tanh …``) counts 1; casts
  (``dace.float32(0)``, ``float``) and plain assignments count 0. One op per element of every
  write-conflict resolution (``wcr``, a reduction). A scope's count is multiplied by its maps'
  iterations: the product of their ranges, with a tiled map's ranges (``i = tile_i .. min(M - 1,
  tile_i + 31)``) summed exactly over the tiles, the last one clipped. Known library nodes get their
  formula: ``MatMul``/``BatchedMatMul``/``Gemm`` 2·|C|·K (2·M·N·K), ``Gemv`` 2·|y|·|x|, ``Dot``
  2·|x|, ``Reduce`` one per input element, ``Transpose`` 0. Every branch of a ``ConditionalBlock``
  is counted as if it ran (an upper bound, said so in the report).
  *Dependencies*: data (through access nodes: a phase reading a tensor runs after its producer) and
  state order (the first phases of a state run after the last phases of the states before it, and
  what follows a loop after its body; loop back edges are ignored).
  *Parameters*: the SDFG's free symbols become the workload's parameters: every phase's ops and
  tensor bytes stay expressions in them (``workload.params``; ``workload.with_params(M=128)``
  re-evaluates, so they get sliders). Values come from ``params=``, else from the SDFG's
  constants; any symbol left without a value is an error that lists them all.

Nothing is summed silently: negative volumes, volumes that are 0 at every size, expressions the
evaluator refuses (or that use names other than the SDFG's symbols), unknown library nodes,
non-Python tasklets, unknown functions, unknown element types, loops without a trip count are
counted by reason in ``workload.import_report.skipped`` (with where, in ``skipped_detail``) and left
out of the sums. A symbolic volume that is 0 at the given values is counted there too, but kept:
other values give it bytes.

Bad files (truncated, not JSON, not an SDFG, an unknown construct, gzip bombs: reading stops as soon
as the decompressed text passes ``MAX_BYTES``) raise :class:`~campaign_widget.io.WorkloadFileError`
naming the file, the field (``nodes[0].nodes[3].attributes.data``) and the value.
"""

from __future__ import annotations

from ._file import MAX_BYTES, SUFFIXES, sniff
from ._local import SDFGMap, map_accesses
from ._model import ELEMENT_BYTES, SDFGPhase, SDFGProgram
from ._ops import CASTS, LIBRARY_OPS, MATH_FUNCTIONS, count_tasklet_ops
from ._program import extract_sdfg
from ._reasons import (
    DIRECT_EDGE,
    DYNAMIC,
    DYNAMIC_EXECUTIONS,
    LOOP_EXECUTIONS,
    NEGATIVE,
    NO_WORK,
    NOT_PYTHON,
    NOT_UNDERSTOOD,
    UNKNOWN_DTYPE,
    UNKNOWN_FUNCTION,
    UNKNOWN_LIBRARY,
    UNKNOWN_NODE,
    ZERO,
)
from ._walker import MAX_NESTING
from ._workload import FORMAT, read, read_sdfg

__all__ = [
    "CASTS",
    "DIRECT_EDGE",
    "DYNAMIC",
    "DYNAMIC_EXECUTIONS",
    "ELEMENT_BYTES",
    "FORMAT",
    "LIBRARY_OPS",
    "LOOP_EXECUTIONS",
    "MATH_FUNCTIONS",
    "MAX_BYTES",
    "MAX_NESTING",
    "NEGATIVE",
    "NOT_PYTHON",
    "NOT_UNDERSTOOD",
    "NO_WORK",
    "SDFGMap",
    "SDFGPhase",
    "SDFGProgram",
    "SUFFIXES",
    "UNKNOWN_DTYPE",
    "UNKNOWN_FUNCTION",
    "UNKNOWN_LIBRARY",
    "UNKNOWN_NODE",
    "ZERO",
    "count_tasklet_ops",
    "extract_sdfg",
    "map_accesses",
    "read",
    "read_sdfg",
    "sniff",
]
