"""Local view of one phase (docs/data-movement.md#the-local-view-of-one-phase and docs/memory-hierarchy.md#a-cache-hierarchy-in-the-local-view): layouts, the access trace, stack distances, LRU misses,
cache hierarchies.

Public API (pure numpy + a numba kernel; no widget code)::

    Layout(order="C"|"F", strides=None, offset=0, byte_offset=0, elem_bytes=None, shape=None)
    packed_strides(shape, order="C"|"F"|dims outermost first, *, pad=0, multiple=1) -> strides
    trace(einsum, sizes, *, layouts=None, loop_order=None, elem_bytes=4, line=64,
          out_of_range="report") -> Trace
    Cache(line=64, lines=512, ways=None)          # ways=None: fully associative; Cache.of_bytes(size, ...)
        # .sets .bytes .associativity, .kind ("fully associative" | "direct-mapped" | "N-way set-associative")
    stack_distances(trace, line=64, *, progress=None) -> StackDistances
        # .distance (-1 cold), .histogram (d = 0..max), .cold, .misses(C or array of C);
        # unpacks as ``distance, histogram = stack_distances(trace)``
    simulate(trace, cache, *, distances=None, progress=None) -> CacheResult
        # .misses .cold .capacity .conflict .hits .accesses, .miss / .fa_miss (per access),
        # .distances, .set_distances, .fa_misses(C), .per_tensor, .per_element(tensor), .write_backs()
    simulate(trace, [l1, l2, ...] or {name: cache}, *, inclusive=False, ...) -> [CacheResult per level]
        # each level fed the misses of the one above (pycachesim's chain); .level, .feed
    predicted_traffic(workload, phase, cache, *, local_sizes=None, layouts=None, loop_order=None,
                      mode="exact"|"ratio", write_back=False) -> {tensor: bytes}
    with_predicted_traffic(workload, phase, cache, ...) -> Workload (that phase's bytes predicted)
    predicted_level_bytes(workload, phase, [l1, l2], ...) -> {level: bytes} (what each level serves)
    MAX_ACCESSES = 10**7                          # larger traces are refused (error names the sizes)
    # also refused, naming the field: tensors of more than 10**8 elements in all, addresses reaching
    # 2**62 bytes, index expressions leaving int64, caches of more than 2**32 lines or 2**20-byte lines

``einsum`` is a spec ``"C[i,j] = A[i,k] * B[k,j]"`` (index expressions such as ``i+1``, ``2*k``, ``l-1``
allowed), a ``("ik,kj->ij", ["A", "B"], "C")`` tuple, or a parsed ``campaign_widget.model.einsum.Einsum``.

Trace (docs/data-movement.md#trace): the loops run in ``loop_order`` (default: the output's indices, then the reduced
ones, the last innermost); at each point every input is read in right-hand-side order, then the output
is accessed once (a write). ``Trace`` arrays, one entry per access, in trace order:

- ``address`` (bytes, for ``trace.line``; ``trace.addresses(line)`` for another line size),
- ``tensor`` (index into ``trace.tensors``), ``element`` (flat C-order index into the tensor's logical
  shape ``trace.shapes[t]``, whatever its layout), ``is_write``, ``point`` (iteration number, the
  C-order rank of the loop indices' values in ``loop_order``; ``trace.index_values(point)`` gives them).

Per tensor: ``tensors``, ``shapes``, ``strides`` (elements), ``elem_bytes``, ``offsets``,
``byte_offsets``, ``bases`` (for ``trace.line``; ``trace.bases_for(line)``), ``extents`` (bytes).
For a view: ``trace.same_line(tensor, element, line)`` (Fig. 5a's overlay), ``trace.related(tensor,
elements)`` (accesses of the iterations touching them, per element of every tensor),
``trace.accesses_per_element(tensor)`` (the flattened heatmap), ``trace.element_address(...)``,
``trace.refs`` (the accesses of one point: tensor id, index expressions, is_write), ``trace.points``.
Out-of-range accesses (an index expression outside the tensor's shape) are left out of the arrays,
counted per tensor in ``trace.out_of_range`` and reported with a warning (``out_of_range="error"``
raises instead). A tensor's shape is ``Layout.shape`` if given, else per dimension the largest index
used there + 1 (so only negative indices, or indices beyond a given shape, are out of range).

Addresses: addr(e) = base + byte_offset + elem_bytes·(offset + Σ e_d·stride_d); tensors are placed one
after another in order of first access, each base rounded up to a whole cache line.

Stack distance (line granularity): the number of distinct lines referenced since the last reference to
the access's line; -1 ("cold") for the first. A fully associative LRU cache of C lines misses iff cold or
distance >= C, so ``StackDistances.misses(C)`` is cold + #{d >= C} for every C at once. A set-associative
LRU cache (S = lines // ways sets, set = line mod S, write-allocate) applies the same rule to the distance
counted within the access's set, with ``ways`` for C. Classes: cold; capacity = FA(C) - cold;
conflict = set-associative - FA(C) (may be negative: reported as computed).

Speed: one sequential pass (a numba-compiled kernel) gives the fully associative distance of every
access — the most recent lines in a small array, older ones as stamps in a bitset with a Fenwick tree
over its words (stamps renumbered when they run out, so the tree stays a few times the distinct lines),
O(log lines) per access — and, in the same pass, a W-way set-associative cache (each set's lines with
their last access times). It reads the trace's offsets (int32 when they fit) and each reference's base
directly, with no address or line array; the bases are a tuple, so numba compiles the kernel once per
number of references (cached on disk) with its loops over them unrolled. Exact shortcuts for loop
nests: a point, or an iteration of the innermost loops, whose lines equal those of the one before
leaves every LRU stack as it was, so its distances are copied from the one before (or counted among
the last few lines) instead of simulated (``_blocks.plan``); runs of repeated blocks are copied in
doubling, non-overlapping chunks (vectorized). The totals come from the kernel's counts; per-access miss arrays are made on first use.
``benchmarks/bench_cache.py`` compares with pycachesim.
"""

from ..errors import CacheModelError
from .distances import StackDistances, stack_distances
from .geometry import Cache
from .layout import Layout, packed_strides
from .predicted import predicted_level_bytes, predicted_traffic, with_predicted_traffic
from .result import CacheResult
from .simulation import simulate
from .tracing import MAX_ACCESSES, Trace, trace

__all__ = [
    "MAX_ACCESSES",
    "Cache",
    "CacheModelError",
    "CacheResult",
    "Layout",
    "StackDistances",
    "Trace",
    "packed_strides",
    "predicted_level_bytes",
    "predicted_traffic",
    "simulate",
    "stack_distances",
    "trace",
    "with_predicted_traffic",
]
