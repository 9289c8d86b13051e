"""Time the dataflow view at 10^4 phases and 3·10^4 tensors (issue 10, "Speed").

    python benchmarks/bench_dataflow.py              # kernel side, then the browser
    python benchmarks/bench_dataflow.py --kernel     # kernel side only (no browser)
    python benchmarks/bench_dataflow.py --phases 2000
    python benchmarks/bench_dataflow.py --slider     # parameter slider → new frame, dataflow vs diagram
    python benchmarks/bench_dataflow.py --slider --profile   # plus the page's main thread, sampled

Kernel side (best of --repeat): the dataflow graph, the layered layout (igraph), the scale, the
payload, and the serialization ipywidgets does to send it (buffers + JSON), i.e. "lays out and
syncs"; igraph's one-off import is timed apart.

Browser side (headless Chromium on a private JupyterLab, as tests/browser does; see
docs/browser-testing.md#measuring-what-a-person-sees): from the cell's start to the
first drawn frame (end to end: layout, transfer, decode, draw); then, timed inside the page, a
pan (pointer drag) and an overlay change (the select, through the kernel), each until the canvas
pixels change, ~20 times alternating, reporting min / median / max, with the view's own draw time.

Measured 2026-11-30 on the shared 2-core machine under a load average of 12-15 (every number is
several times what an idle machine gives; compare medians of one run):
  kernel: graph 0.2-0.4 s, layout 0.5-1.7 s, DataflowView(w) + serialized state 0.87-1.96 s
  (4.0 MB synced); igraph's one-off import 2-5 s (it imports matplotlib.pyplot).
  browser: kernel 1.7 s → render() 0.7 s → first frame 0.24 s (cell start → first frame 2.6 s);
  pan at the first view median 13.8 ms (draw 2.2 ms); pan at "fit all" (40,000 nodes) median
  25.6-43.9 ms (draw 8-17 ms); overlay change: colours back from the kernel median 120-130 ms,
  decode 4 ms, draw 12-56 ms, one picture per change.

Slider (``--slider``): notebook 07's encoder block (its first code cell, run as it is: 12 phases, 31
nodes) shown as ``DataflowView(w, overlay="duration", scaling="mean")`` (the notebook's live view) and
as ``CampaignDiagram(w)``; inside the page, as benchmarks/bench_browser.py does: stamp
performance.now(), set the S slider and dispatch input + change, hash the canvas every animation
frame until the picture changes (first frame), then watch --settle ms more: the last change is when
the picture settled, and the number of distinct pictures says whether one step drew more than once.
S alternates between two values; the two views take turns, step by step, so the shared machine's
load falls on both alike.

Measured 2026-12-01 on the shared machine (load average 6-13), 30 steps per view, two runs each:
  before (the view drew at the animation frame after the data, decoding it twice): dataflow first
  frame min 41 / median 74 ms, diagram 31-36 / 58-72 ms; after (drawn when the message's last trait
  is set, decoded once): dataflow min 19 / median 42-53 ms, diagram 30-35 / 61 ms. One picture per
  step in both; the kernel's share is 3-5 ms (with_params about 1 ms of it). The kernel's share (received → computed → sent) comes from each
view's ``_timings``. ``--profile`` samples the page's main thread (CDP Profiler) over the dataflow
views' steps (both, taking turns) and prints the functions with the most self time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from canvas_hash import CANVAS_HASH_JS  # noqa: E402
from chromium_profile import print_profile, start_profile  # noqa: E402
from dataflow_workloads import big_workload  # noqa: E402


def best(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def kernel(n_phases: int, repeat: int) -> None:
    start = time.perf_counter()
    import igraph  # noqa: F401

    print(f"import igraph (once per kernel; pulls in matplotlib): {time.perf_counter() - start:.2f} s")
    from ipywidgets.widgets.widget import _remove_buffers

    from campaign_widget.figures import dataflow as model
    from campaign_widget.views.dataflow import DataflowView, graph_payload, paint_payload, values_payload

    t_work, w = best(lambda: big_workload(n_phases), 1)
    t_graph, g = best(lambda: model.dataflow_graph(w), repeat)
    t_layout, lay = best(lambda: model.layered_layout(g), repeat)
    t_scale, sc = best(lambda: model.scale(w, g, "bytes", "median"), repeat)
    t_payload, _ = best(lambda: (graph_payload(g, lay), paint_payload(w, g, sc), values_payload(w, g, sc)), repeat)

    def view_and_state():
        view = DataflowView(w)
        state, _, buffers = _remove_buffers(view.get_state())
        state.pop("_esm", None)
        return view, len(json.dumps(state)) + sum(len(b) for b in buffers)

    t_view, (view, size) = best(view_and_state, repeat)
    t_overlay, _ = best(lambda: setattr(view, "overlay", "intensity" if view.overlay == "bytes" else "bytes"), repeat)
    print(
        f"{g.n_phases} phases, {g.n_nodes - g.n_phases} tensors, {g.n_edges} edges "
        f"(building the workload from Phase objects: {t_work:.2f} s)"
    )
    print(f"  graph {t_graph:.3f} s | layout {t_layout:.3f} s | scale {t_scale:.3f} s | payload {t_payload:.3f} s")
    print(
        f"  DataflowView(w) + serialized state (lays out and syncs, kernel side): {t_view:.3f} s, "
        f"{size / 1e6:.2f} MB synced"
    )
    print(f"  overlay change, kernel side (scale + payload): {t_overlay * 1e3:.1f} ms")


# -- the browser -------------------------------------------------------------------------------------

CELL = """\
import sys, time
sys.path.insert(0, {bench!r})
from dataflow_workloads import big_workload
from campaign_widget.views.dataflow import DataflowView
import igraph  # the one-off import, not part of the measurement
w = big_workload({n})
t0 = time.time()
view = DataflowView(w, height=420)
print('KERNEL', time.time() - t0, 'START', t0)
view
"""

_PAN = """async ([canvas, dx]) => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const small = document.createElement('canvas'); small.width = 200; small.height = 100;
  const sctx = small.getContext('2d');
  const hash = () => { sctx.drawImage(canvas, 0, 0, 200, 100); const d = sctx.getImageData(0, 0, 200, 100).data;
    let h = 0; for (let i = 0; i < d.length; i += 7) h = (h * 31 + d[i]) | 0; return h; };
  const before = hash();
  const r = canvas.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + 54 + 150;
  const opts = (px) => ({bubbles: true, clientX: px, clientY: y, pointerId: 1, button: 0, buttons: 1});
  canvas.dispatchEvent(new PointerEvent('pointerdown', opts(x)));
  const t0 = performance.now();
  canvas.dispatchEvent(new PointerEvent('pointermove', opts(x + dx)));
  let t1 = null;
  for (let i = 0; i < 120 && t1 === null; i++) { await frame(); if (hash() !== before) t1 = performance.now(); }
  canvas.dispatchEvent(new PointerEvent('pointerup', opts(x + dx)));
  await frame();
  return {ms: t1 === null ? null : t1 - t0, drawMs: +canvas.dataset.drawMs};
}"""

_OVERLAY = """async ([canvas, value]) => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const small = document.createElement('canvas'); small.width = 200; small.height = 100;
  const sctx = small.getContext('2d');
  const hash = () => { sctx.drawImage(canvas, 0, 0, 200, 100); const d = sctx.getImageData(0, 0, 200, 100).data;
    let h = 0; for (let i = 0; i < d.length; i += 7) h = (h * 31 + d[i]) | 0; return h; };
  const select = canvas.closest('.cwd-root').querySelector('select.cwd-overlay');
  const before = hash();
  const t0 = performance.now();
  select.value = value;
  select.dispatchEvent(new Event('input', {bubbles: true}));
  select.dispatchEvent(new Event('change', {bubbles: true}));
  let t1 = null, last = before, pictures = 0;
  const deadline = t0 + 5000;
  while (performance.now() < deadline) {
    await frame();
    const h = hash();
    if (h !== last) { pictures++; last = h; if (t1 === null) t1 = performance.now(); }
    if (t1 !== null && performance.now() - t1 > 300) break;
  }
  const d = canvas.dataset;
  return {ms: t1 === null ? null : t1 - t0, drawMs: +d.drawMs, pictures, roundTrip: +d.paintReceived - t0,
          paintMs: +d.paintMs, minimapMs: +d.minimapMs};
}"""


def _summary(label, samples):
    ms = [s["ms"] for s in samples if s["ms"] is not None]
    draw = [s["drawMs"] for s in samples]
    missed = len(samples) - len(ms)
    extra = f", {missed} never changed the picture" if missed else ""
    pictures = [s.get("pictures") for s in samples if s.get("pictures") is not None]
    pics = f", pictures per change max {max(pictures)}" if pictures else ""
    if samples and "roundTrip" in samples[0]:
        med = lambda key: statistics.median(s[key] for s in samples)  # noqa: E731
        print(
            f"  {label}, medians: select → new colours received {med('roundTrip'):.1f} ms (kernel + transfer); "
            f"decode {med('paintMs'):.1f} ms; draw {med('drawMs'):.1f} ms (minimap {med('minimapMs'):.1f} ms)"
        )
    print(
        f"  {label}: to changed pixels min {min(ms):.1f} / median {statistics.median(ms):.1f} / max {max(ms):.1f} ms; "
        f"view's draw median {statistics.median(draw):.1f} ms{extra}{pics}"
    )


def browser(n_phases: int, rounds: int, screenshots: Path | None = None) -> None:
    sys.path.insert(0, str(REPO / "tests" / "browser"))
    import conftest as labtools
    from labdriver import LabPage, Notebook, write_notebook
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root, work, config, runtime = (base / d for d in ("notebooks", "work", "config", "runtime"))
        for d in (root, work, config, runtime):
            d.mkdir()
        labtools._write_lab_settings(config)
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTER_RUNTIME_DIR=str(runtime), PYTHONUNBUFFERED="1")
        server = labtools._start_lab(root, work, base, env, base / "server.log")
        try:
            with sync_playwright() as p:
                chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=labtools.CHROMIUM_ARGS)
                lab = LabPage(
                    chromium, "bench-dataflow", base, viewport=labtools.VIEWPORT, device_scale_factor=1, benign=[]
                )
                try:
                    write_notebook(root, "bench.ipynb", "# dataflow benchmark")
                    nb = Notebook(lab.page, server.url)
                    nb.open("bench.ipynb")
                    nb.wait_kernel_idle()
                    index = nb.append_code_cell(CELL.format(bench=str(HERE), n=n_phases))
                    out = nb.run_cell(index, timeout=300)
                    kernel_s = float(out.split("KERNEL", 1)[1].split()[0])
                    start = float(out.split("START", 1)[1].split()[0])
                    canvas = lab.page.locator(".cwd-root canvas.cwd-plot").first
                    canvas.wait_for(state="attached", timeout=120_000)
                    lab.page.wait_for_function(
                        "c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=120_000
                    )
                    first = lab.page.evaluate("() => Date.now() / 1000")  # upper bound: polled after the draw
                    data = canvas.evaluate("c => ({...c.dataset})")
                    render_at, first_at = float(data["renderAt"]) / 1e3, float(data["firstDrawAt"]) / 1e3
                    print(
                        f"browser, {n_phases} phases: kernel {kernel_s:.2f} s → view's render() called "
                        f"{render_at - start - kernel_s:.2f} s later (state transfer, widget manager, ESM load) → "
                        f"first frame {first_at - render_at:.2f} s later (decode, batches, draw); "
                        f"cell start → first frame {first_at - start:.2f} s"
                    )
                    print(
                        f"browser, {n_phases} phases: kernel {kernel_s:.2f} s; cell start → first frame seen "
                        f"≤ {first - start:.2f} s (zoom {float(data['k']):.2f}, {data['nodesDrawn']} nodes, "
                        f"{data['edgesDrawn']} edges drawn, first draw {data['drawMs']} ms)"
                    )
                    canvas.scroll_into_view_if_needed()
                    handle = canvas.element_handle()
                    if screenshots:
                        canvas.locator("xpath=..").screenshot(path=str(screenshots / "dataflow-start.png"))
                    pans = [lab.page.evaluate(_PAN, [handle, 40 if i % 2 else -40]) for i in range(rounds)]
                    _summary("pan (drag 40 px)", pans)
                    lab.page.evaluate("c => c.closest('.cwd-root').querySelector('button.cwd-fit').click()", handle)
                    lab.page.wait_for_timeout(300)
                    data = canvas.evaluate("c => ({...c.dataset})")
                    if screenshots:
                        canvas.locator("xpath=..").screenshot(path=str(screenshots / "dataflow-fit.png"))
                    fit = [lab.page.evaluate(_PAN, [handle, 40 if i % 2 else -40]) for i in range(rounds)]
                    _summary(f"pan at 'fit all' (zoom {float(data['k']):.4f}, {data['nodesDrawn']} nodes drawn)", fit)
                    overlays = [
                        lab.page.evaluate(_OVERLAY, [handle, "intensity" if i % 2 == 0 else "bytes"])
                        for i in range(rounds)
                    ]
                    _summary("overlay change (select → kernel → redraw)", overlays)
                    if lab.errors.errors:
                        print("page errors:", *lab.errors.errors, sep="\n  ")
                finally:
                    lab.context.close()
                    chromium.close()
        finally:
            labtools._stop(server.process)


# -- the parameter slider --------------------------------------------------------------------------

NOTEBOOK_07 = REPO / "notebooks" / "07-data-movement.ipynb"

SLIDER_CELL = """\
import json, sys
sys.path.insert(0, {bench!r})
from bench_dataflow import notebook_07_workload
import campaign_widget as cw
w = notebook_07_workload()
dv = cw.DataflowView(w, overlay="duration", scaling="mean")
dv"""

DIAGRAM_CELL = """\
dd = cw.CampaignDiagram(w)
dd"""

TIMINGS_CELL = """\
print("TIMINGS", json.dumps({"dataflow": list(getattr(dv, "_timings", [])), "diagram": list(dd._timings)}))"""

SLIDER_JS = (
    """async ({cases, param, values, repeat, settle}) => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const views = cases.map(({root, canvas: canvasSel}) => {
    const el = document.querySelector(root);
    const canvas = el.querySelector(canvasSel);
    const input = el.querySelector(`input.cw-param[data-param="${param}"]`);
"""
    + CANVAS_HASH_JS
    + """    return { canvas, input, hash };
  });
  const samples = views.map(() => []);
  // the views take turns, step by step, so the machine's load falls on both alike
  for (let k = 0; k < repeat; k++) {
    for (const [v, { canvas, input, hash }] of views.entries()) {
      const value = values[k % values.length];
      const position = input.step === "any" ? Math.log10(value) : value;
      await pause(80); await frame(); await frame();
      const before = hash();
      const draws = Number(canvas.dataset.draws);
      const t0 = performance.now();
      const epoch = performance.timeOrigin + t0;
      input.value = String(position);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
      let first = null, last = null, seen = before, pictures = 0;
      while (performance.now() - t0 < 10000) {
        await frame();
        const h = hash();
        const now = performance.now();
        if (h !== seen) { pictures++; seen = h; last = now - t0; if (first === null) first = last; }
        if (first !== null && now - t0 - last > settle) break;
      }
      samples[v].push({ value, first, last, pictures, draws: Number(canvas.dataset.draws) - draws, epoch });
    }
  }
  return samples;
}"""
)


def notebook_07_workload():
    """Notebook 07's ``w`` (its encoder block), built by running the notebook's first code cell."""
    cells = json.loads(NOTEBOOK_07.read_text())["cells"]
    source = next("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    namespace: dict = {}
    exec(compile(source, str(NOTEBOOK_07), "exec"), namespace)  # noqa: S102 - the repository's own notebook
    return namespace["w"]


def _kernel_share(samples, timings):
    """Per sample, the kernel's received → sent (ms), matched by time; None where none matched."""
    out = []
    records = sorted((r for r in timings if "sent" in r and "received" in r), key=lambda r: r["received"])
    for s in samples:
        t = s["epoch"] / 1000
        r = next((r for r in records if r["received"] >= t), None)
        out.append(None if r is None else (r["sent"] - r["received"]) * 1e3)
    return out


def slider(rounds: int, settle: float, profile: bool) -> None:
    sys.path.insert(0, str(REPO / "tests" / "browser"))
    import conftest as labtools
    from labdriver import LabPage, Notebook, write_notebook
    from playwright.sync_api import sync_playwright

    def stats(values):
        values = [v for v in values if v is not None]
        if not values:
            return "     —       —       —"
        return f"{min(values):7.1f} {statistics.median(values):7.1f} {max(values):7.1f}"

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root, work, config, runtime = (base / d for d in ("notebooks", "work", "config", "runtime"))
        for d in (root, work, config, runtime):
            d.mkdir()
        labtools._write_lab_settings(config)
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTER_RUNTIME_DIR=str(runtime), PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
        server = labtools._start_lab(root, work, base, env, base / "server.log")
        try:
            with sync_playwright() as p:
                chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=labtools.CHROMIUM_ARGS)
                lab = LabPage(
                    chromium,
                    "bench-dataflow-slider",
                    base,
                    viewport=labtools.VIEWPORT,
                    device_scale_factor=1,
                    benign=[],
                )
                try:
                    write_notebook(root, "bench.ipynb", "# dataflow slider benchmark")
                    nb = Notebook(lab.page, server.url)
                    nb.open("bench.ipynb")
                    nb.wait_kernel_idle()
                    nb.run_cell(nb.append_code_cell(SLIDER_CELL.format(bench=str(HERE))), timeout=300)
                    nb.run_cell(nb.append_code_cell(DIAGRAM_CELL), timeout=300)
                    page = lab.page
                    cases = (
                        ("dataflow", ".cwd-root", "canvas.cwd-plot"),
                        ("diagram", ".cw-root:not(.cwd-root)", "canvas.cw-plot"),
                    )
                    for _name, root_sel, canvas_sel in cases:
                        canvas = page.locator(f"{root_sel} {canvas_sel}").first
                        canvas.scroll_into_view_if_needed()
                        page.wait_for_function(
                            "c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=120_000
                        )
                    cdp = None
                    if profile:
                        cdp = start_profile(page)
                    samples = page.evaluate(
                        SLIDER_JS,
                        dict(
                            cases=[{"root": r, "canvas": c} for _n, r, c in cases],
                            param="S",
                            values=[640, 512],
                            repeat=rounds,
                            settle=settle,
                        ),
                    )
                    if cdp is not None:
                        print_profile(cdp, 2 * rounds, what="slider steps", unit="step", idle=("(idle)", "(program)"))
                    results = {name: samples[i] for i, (name, _r, _c) in enumerate(cases)}
                    out = nb.run_cell(nb.append_code_cell(TIMINGS_CELL), timeout=60)
                    timings = json.loads(out.split("TIMINGS", 1)[1].strip().splitlines()[0])
                    print(
                        f"\nnotebook 07's encoder ({NOTEBOOK_07.name}), slider S 512 ↔ 640, {rounds} steps, "
                        f"settle window {settle:g} ms"
                    )
                    print(
                        f"{'view':<10} {'first frame ms: min':>19} {'median':>7} {'max':>7}   "
                        f"{'settled ms: min':>15} {'median':>7} {'max':>7}   pictures  draws  kernel ms (median)"
                    )
                    for name, samples in results.items():
                        kernel_ms = [v for v in _kernel_share(samples, timings[name]) if v is not None]
                        kmed = f"{statistics.median(kernel_ms):.1f}" if kernel_ms else "—"
                        pics = [s["pictures"] for s in samples]
                        draws = [s["draws"] for s in samples]
                        print(
                            f"{name:<10} {stats([s['first'] for s in samples]):>27}   {stats([s['last'] for s in samples]):>23}"
                            f"   {min(pics)}–{max(pics):<6} {min(draws)}–{max(draws):<4} {kmed}"
                        )
                    if lab.errors.errors:
                        print("page errors:", *lab.errors.errors, sep="\n  ")
                finally:
                    lab.context.close()
                    chromium.close()
        finally:
            labtools._stop(server.process)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--kernel", action="store_true", help="kernel side only")
    parser.add_argument("--screenshots", type=Path, help="folder for pictures of the first view and of 'fit all'")
    parser.add_argument("--slider", action="store_true", help="the parameter slider on notebook 07 (only)")
    parser.add_argument("--settle", type=float, default=400, help="--slider: ms to keep watching after a change")
    parser.add_argument("--profile", action="store_true", help="--slider: sample the page's main thread")
    args = parser.parse_args(argv)
    if args.slider:
        slider(args.rounds, args.settle, args.profile)
        return
    kernel(args.phases, args.repeat)
    if not args.kernel:
        browser(args.phases, args.rounds, args.screenshots)


if __name__ == "__main__":
    main()
