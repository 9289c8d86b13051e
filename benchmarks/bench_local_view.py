"""What a person sees after one capacity-slider step of LocalView, timed inside the browser.

    PYTHONPATH=$PWD python benchmarks/bench_local_view.py            # n = 16 and 32 matrix products
    PYTHONPATH=$PWD python benchmarks/bench_local_view.py --n 16 --repeat 10

Starts a private JupyterLab (as tests/browser/conftest.py does), shows
``LocalView(None, "C[i,j] = A[i,k] * B[k,j]", n³, float64, 64-byte lines)`` in "misses" mode (the
canvas colours each element by its misses, so a capacity step changes the picture), and then, as
docs/browser-testing.md#measuring-what-a-person-sees says: inside the page, record
performance.now(), set the capacity slider's value and dispatch input + change (as a drag does), and
await animation frames until the readout's total misses show the new number AND the canvas pixels
changed (a 200×100 drawImage copy hashed each frame); then watch 300 ms more to count the distinct
pictures one step produced (more than one = a wasted draw). Steps alternate between two capacities.
Prints min / median / max ms per case, and the kernel's share (recompute + serialize, Python side).
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))

from canvas_hash import CANVAS_HASH_JS  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, _start_lab, _stop, _write_lab_settings  # noqa: E402
from labdriver import Notebook, write_notebook  # noqa: E402

STEP_JS = (
    """async ([capacity, wantMisses]) => {
  const root = document.querySelector('.cwl-root');
  const slider = root.querySelector('input.cwl-capacity');
  const canvas = root.querySelector('canvas.cwl-canvas');
"""
    + CANVAS_HASH_JS
    + """  const total = () => {
    const cells = root.querySelectorAll('table.cwl-readout-table tr:last-child td');
    return cells.length > 2 ? +cells[2].textContent.replace(/,/g, '') : NaN;
  };
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const before = hash();
  const t0 = performance.now();
  slider.value = String(capacity);
  slider.dispatchEvent(new Event('input', { bubbles: true }));
  slider.dispatchEvent(new Event('change', { bubbles: true }));
  let seen = null;
  while (performance.now() - t0 < 5000) {
    await frame();
    if (total() === wantMisses && hash() !== before) { seen = performance.now() - t0; break; }
  }
  const pictures = new Set([hash()]);
  const until = performance.now() + 300;
  while (performance.now() < until) { await frame(); pictures.add(hash()); }
  return { ms: seen, pictures: pictures.size, misses: total(), received: +canvas.dataset.readoutAt - t0,
           drawn: +canvas.dataset.drawnAt - t0, drawMs: +canvas.dataset.drawMs };
}"""
)


def run_case(page, nb, n: int, repeat: int) -> dict:
    cell = nb.append_code_cell(
        "from campaign_widget.views.local import LocalView\n"
        "from campaign_widget.cache import Cache, stack_distances\n"
        f"view = LocalView(None, 'C[i,j] = A[i,k] * B[k,j]', {{'i': {n}, 'j': {n}, 'k': {n}}}, elem_bytes=8,\n"
        "                 cache=Cache(line=64, lines=4), mode='misses')\n"
        "view"
    )
    nb.run_cell(cell, timeout=120)
    page.wait_for_function(
        "() => document.querySelectorAll('.cwl-root canvas.cwl-canvas').length === 1 && "
        "+document.querySelector('canvas.cwl-canvas').dataset.draws > 0",
        timeout=60_000,
    )
    probe = nb.append_code_cell(
        "d = stack_distances(view.trace, line=64)\n"
        "print('PROBE', repr((view.capacity_max, {c: d.misses(c) for c in range(1, view.capacity_max + 1)})))"
    )
    out = nb.run_cell(probe)
    capacity_max, misses = ast.literal_eval(out.split("PROBE", 1)[1].strip())
    a, b = 4, max(5, capacity_max // 2)
    page.locator("canvas.cwl-canvas").scroll_into_view_if_needed()
    samples, pictures, received, draw_ms = [], [], [], []
    for k in range(repeat):
        target = b if k % 2 == 0 else a
        result = page.evaluate(STEP_JS, [target, misses[target]])
        if result["ms"] is None:
            raise AssertionError(f"n={n}: capacity {target} never showed {misses[target]} misses ({result})")
        samples.append(result["ms"])
        received.append(result["received"])
        draw_ms.append(result["drawMs"])
        pictures.append(result["pictures"])
    kernel = nb.append_code_cell(
        "import time\n"
        "ts = []\n"
        "for c in [4, 5] * 10:\n"
        "    t0 = time.perf_counter(); view.capacity = c; ts.append(time.perf_counter() - t0)\n"
        "print('PROBE', min(ts) * 1e3, sorted(ts)[len(ts) // 2] * 1e3, len(view.trace))"
    )
    out = nb.run_cell(kernel)
    kmin, kmed, accesses = (float(v) for v in out.split("PROBE", 1)[1].split())
    for index in (kernel, probe, cell):
        page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-InputPrompt").click()
        page.keyboard.press("Escape")
        page.keyboard.press("d")
        page.keyboard.press("d")
    return {
        "n": n,
        "accesses": int(accesses),
        "min": min(samples),
        "median": statistics.median(samples),
        "max": max(samples),
        "pictures": max(pictures),
        "received": statistics.median(received),
        "draw": statistics.median(draw_ms),
        "kernel_min": kmin,
        "kernel_median": kmed,
        "capacities": (a, b),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="*", default=[16, 32])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} is missing (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    base = Path(tempfile.mkdtemp(prefix="bench-local-"))
    server = None
    try:
        root, work, config, runtime = (base / p for p in ("notebooks", "work", "config", "runtime"))
        for p in (root, work, config, runtime):
            p.mkdir()
        _write_lab_settings(config)
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTER_RUNTIME_DIR=str(runtime), PYTHONUNBUFFERED="1")
        env.pop("JUPYTER_TOKEN", None)
        server = _start_lab(root, work, base, env, base / "lab.log")
        if server is None:
            raise RuntimeError("JupyterLab could not bind a port")
        write_notebook(root, "bench.ipynb", "# LocalView latency")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            page = browser.new_context(viewport=VIEWPORT, device_scale_factor=2).new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            nb = Notebook(page, server.url)
            nb.open("bench.ipynb")
            nb.wait_kernel_idle()
            print(
                f"{'n':>4} {'accesses':>9} {'steps':>6} {'min ms':>8} {'median ms':>10} {'max ms':>8} "
                f"{'pictures/step':>14} {'draw ms':>8} {'readout arrives ms':>19} {'kernel median ms':>17}"
            )
            for n in args.n:
                r = run_case(page, nb, n, args.repeat)
                print(
                    f"{r['n']:>4} {r['accesses']:>9,} {args.repeat:>6} {r['min']:>8.1f} {r['median']:>10.1f} "
                    f"{r['max']:>8.1f} {r['pictures']:>14} {r['draw']:>8.1f} {r['received']:>19.1f} {r['kernel_median']:>17.2f}",
                    flush=True,
                )
            browser.close()
            if errors:
                print("page errors:", *errors, sep="\n  ", file=sys.stderr)
                return 1
    finally:
        if server is not None:
            _stop(server.process)
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
