"""The numbers that size a sweep's work: the configuration limit, when to start a process pool, how
large a chunk is, how often a task is retried, and the rough cost model behind them.

Read at call time, so that setting one on the package (``campaign_widget.sweep.POOL_WORKERS = 4``)
takes effect on the next sweep; ``campaign_widget.sweep`` forwards such assignments here.
"""

from __future__ import annotations

#: A sweep with more configurations than this needs ``allow_large=True``: at milliseconds per
#: configuration, 10^6 configurations are hours of CPU time and a table of about a hundred
#: megabytes; a typo in an axis (``range(1, 10**4)``) should not start that by accident.
MAX_CONFIGURATIONS = 1_000_000

#: ``executor=None`` runs in this process when the sweep's estimated serial time is below this many
#: seconds, and in a local process pool (one worker per core) above it: starting a pool and sending
#: the workload to its workers has a fixed cost that only larger sweeps repay.
IN_PROCESS_SECONDS = 2.0

#: Workers of the pool ``executor=None`` starts; None: one per core (``os.cpu_count()``).
POOL_WORKERS: int | None = None

CHUNK_SECONDS = 0.1  # smallest chunk (estimated seconds) for a process pool: its per-task cost stays small beside it
DASK_CHUNK_SECONDS = 0.5  # smallest chunk on Dask, whose per-task cost (scheduler, client, worker) is larger
MAX_CHUNK_SECONDS = 2.0  # largest chunk: a live view still updates, a lost worker loses little
GUIDED = 2  # each chunk takes 1 / (GUIDED × workers) of the estimated work not yet handed out
INLINE_CHUNK_SECONDS = 0.25  # in this process: chunks of at most this much work, and at least
INLINE_CHUNKS = 8  # this many of them, so that a live view fills in several times a second
MAX_ATTEMPTS = 3  # a task is tried this many times before its configurations are reported
PAYLOAD_CACHE_SIZE = 4  # payloads a worker keeps (one per concurrent sweep is plenty)
DERIVED_CACHE_SIZE = 256  # re-derived workloads (per params × peaks) a worker keeps per payload

# Rough serial cost model (seconds), used only to size chunks and to choose between this process and
# a pool; benchmarks/bench_sweep.py measures it. Pipelined configurations that share settings are
# scheduled together, so their cost per tile is lower than one schedule's alone.
COST_PER_CONFIG = {False: 1.5e-4, True: 4e-4}  # sequential / pipelined
COST_PER_TILE = {False: 1e-7, True: 1e-6}  # per phase·tile, sequential / pipelined

#: The names ``campaign_widget.sweep`` forwards here when set on the package.
TUNABLE = (
    "MAX_CONFIGURATIONS",
    "IN_PROCESS_SECONDS",
    "POOL_WORKERS",
    "CHUNK_SECONDS",
    "DASK_CHUNK_SECONDS",
    "MAX_CHUNK_SECONDS",
    "GUIDED",
    "INLINE_CHUNK_SECONDS",
    "INLINE_CHUNKS",
    "MAX_ATTEMPTS",
)
