"""Time what a view's display costs in the kernel, with and without the PNG it carries, and a page.

    python benchmarks/bench_display.py              # a 24-phase chain, 4 tiles, pipelined
    python benchmarks/bench_display.py --phases 96 --repeat 7

For each view (CampaignDiagram, DataflowView): ``_repr_mimebundle_`` in each ``display_mode``
(``live``: the widget view alone, as before; ``live+png``: plus the figure drawn by matplotlib with
no browser; ``png``: the figure alone), median and min of --repeat runs after one warm-up (the
first display of a session also imports matplotlib: printed separately), the PNG's size, and the
time and size of ``to_html``. CPU seconds beside the wall seconds: this is a shared machine, and
the CPU time is what a quiet one would show. The PNG is skipped with ``display_mode = "live"``
(on the class ``ViewWidget``, or CAMPAIGN_WIDGET_DISPLAY=live in the kernel's environment).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import campaign_widget as cw
from campaign_widget.views.base import DISPLAY_MODES


def chain(n: int) -> cw.Workload:
    phases, previous = [], ()
    for i in range(n):
        name = f"phase {i}"
        phases.append(
            cw.Phase(
                name,
                duration=1.0 + 0.05 * (i % 7),
                compute_util=0.2 + 0.7 * ((i * 37) % 11) / 10,
                memory_util=0.9 - 0.6 * ((i * 17) % 13) / 12,
                after=previous,
            )
        )
        previous = (name,)
    return cw.Workload(phases)


def timed(fn, repeat: int) -> tuple[float, float, float]:
    """(median wall s, min wall s, median CPU s) of ``repeat`` calls."""
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), min(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", type=int, default=24)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    workload = chain(args.phases)
    views = {
        "CampaignDiagram": lambda: cw.CampaignDiagram(workload, tiles=4, pipeline=True),
        "DataflowView": lambda: cw.DataflowView(workload),
    }
    print(f"{args.phases} phases; median / min wall s (median CPU s) of {args.repeat} displays after one warm-up")
    folder = Path(tempfile.mkdtemp(prefix="bench-display-"))
    for name, make in views.items():
        median, best, cpu = timed(make, args.repeat)
        print(f"{name}: constructing it (for scale) {median:.3f} / {best:.3f} s ({cpu:.3f} CPU s)")
        view = make()
        w0 = time.perf_counter()
        view.display_mode = "live+png"
        view._repr_mimebundle_()
        print(f"  first display of the session (imports matplotlib) {time.perf_counter() - w0:.3f} s")
        for mode in DISPLAY_MODES:
            view.display_mode = mode
            median, best, cpu = timed(view._repr_mimebundle_, args.repeat)
            data, _ = view._repr_mimebundle_()
            size = len(data.get("image/png", "")) * 3 // 4
            png = f", PNG {size / 1024:.0f} KiB" if size else ""
            print(f"  {mode:9s} {median:.3f} / {best:.3f} s ({cpu:.3f} CPU s){png}")
        path = folder / f"{name}.html"
        median, best, cpu = timed(lambda view=view, path=path: view.to_html(path), args.repeat)
        print(f"  to_html   {median:.3f} / {best:.3f} s ({cpu:.3f} CPU s), {path.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
