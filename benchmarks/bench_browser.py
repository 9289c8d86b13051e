"""Slider → new frame, as a person sees it: JupyterLab in headless Chromium, the view's own controls.

    PYTHONPATH=$PWD python benchmarks/bench_browser.py              # both sizes, 20 changes per control
    PYTHONPATH=$PWD python benchmarks/bench_browser.py --repeat 10 --sizes small

A benchmark, not a test (nothing asserts; the machine is shared and noisy: compare medians of one
run). Method (docs/browser-testing.md#measuring-what-a-person-sees): inside the page,
stamp ``performance.now()``, set the control's value and dispatch ``input`` and ``change`` as a drag
does, then hash a 200×100 copy of the canvas every animation frame until the picture changes
(latency), and keep watching ``--settle`` ms to count how many distinct pictures and how many draws
(``data-draws``) that one change produced. Two values are alternated.

Sizes: ``small`` = 24 phases × 64 tiles (a pipelined chain, dilate+throttle); ``large`` = 100 phases ×
1,000 tiles (10^5 intervals, same settings); ``huge`` (only when asked: ``--sizes huge``) = 10 phases ×
100,000 tiles (10^6 intervals; the view is sent its window aggregated to the pixel).

Breakdown per change, from wall-clock stamps on both sides (same machine, same clock):
  up       the control's event → the kernel has the new value (frame-coalesced write + websocket)
  kernel   model → schedule → scene (``CampaignDiagram._timings``: received → computed), split into
           schedule (received → scheduled) and scene (scheduled → computed)
  serial   trait payloads → JSON + buffers → zmq (computed → sent)
  down     kernel sent → the view's change handler ran (websocket, ipywidgets' deserialization)
  decode   the view's decode + index (``data-decode-ms``)
  to-draw  decoded → the draw starts (waiting for an animation frame, other handlers)
  draw     the draw itself (``data-draw-ms``)
  present  drawn → the new picture is seen in a frame (compositor, and this script's own hashing), split
           into frame (drawn → the animation frame that shows it starts) and hash (this script reading
           the picture back in that frame; counted in the latency, so the latency errs long)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))

from canvas_hash import CANVAS_HASH_JS  # noqa: E402
from chromium_profile import print_profile, start_profile  # noqa: E402
from labdriver import Notebook, write_notebook  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

SIZES = {
    "small": dict(phases=24, tiles=64, other=63, label="24 phases x 64 tiles"),
    "large": dict(phases=100, tiles=1000, other=999, label="100 phases x 1,000 tiles (10^5 intervals)"),
    # not in the default run: the kernel sends it aggregated to the pixel (scene_pixels.py)
    "huge": dict(phases=10, tiles=100_000, other=50_000, label="10 phases x 100,000 tiles (10^6 intervals)"),
}

CELL = """\
import sys, json
sys.path.insert(0, {bench!r})
from bench_model import chain
import campaign_widget as cw
{name} = cw.CampaignDiagram(chain({phases}), tiles={tiles}, pipeline=True, policy="dilate+throttle",
                        title="{label}")
print("PIECES", {name}.scene["n"])
{name}"""

REPORT_CELL = """\
from ipywidgets.widgets.widget import _remove_buffers
_state, _, _buffers = _remove_buffers({name}.get_state(["scene"]))
print("REPORT", json.dumps({{"timings": list(getattr({name}, "_timings", [])), "n": {name}.scene["n"],
      "total": len({name}._scene),
      "scene_bytes": len(json.dumps(_state)) + sum(len(b) for b in _buffers)}}))"""

MEASURE = (
    """async ({index, control, values, repeat, settle, timeout}) => {
  const root = document.querySelectorAll('.cw-root')[index];
  const canvas = root.querySelector('canvas.cw-plot');
  const input = root.querySelector(control);
"""
    + CANVAS_HASH_JS
    + """  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const start = Number(input.value);
  const choices = values ?? [start + 0.1, start];
  const samples = [];
  for (let k = 0; k < repeat; k++) {
    const value = choices[k % choices.length];
    await pause(50); await frame(); await frame();
    const before = hash();
    const drawsBefore = Number(canvas.dataset.draws);
    const t0 = performance.now();
    const e0 = performance.timeOrigin + t0;
    input.value = String(value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
    let latency = null, last = before, pictures = 0, lastChange = null, hashMs = null, frameWait = null;
    while (performance.now() - t0 < timeout) {
      await frame();
      const hashed = performance.now();
      const h = hash();
      const now = performance.now();
      if (h !== last) {
        pictures++; last = h; lastChange = now;
        if (latency === null) { latency = now - t0; hashMs = now - hashed; frameWait = hashed - t0; }
      }
      if (latency !== null && now - lastChange > settle) break;
    }
    const d = canvas.dataset;
    samples.push({ value, latency, pictures, draws: Number(d.draws) - drawsBefore, changedAt: e0,
                   receivedAt: Number(d.receivedAt), decodeMs: Number(d.decodeMs), drawnAt: Number(d.drawnAt),
                   drawMs: Number(d.drawMs), hashMs, frameWait });
  }
  return samples;
}"""
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(root: Path, log) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(root / "config"),
        JUPYTER_RUNTIME_DIR=str(root / "runtime"),
        PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    )
    settings = root / "config" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    (root / "notebooks").mkdir()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={root / 'notebooks'}",
            "--allow-root",
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"JupyterLab exited with code {process.returncode}; see {log.name}")
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("JupyterLab did not start within 60 s")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
    try:
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass


def stats(values) -> str:
    values = [v for v in values if v is not None and v == v]
    if not values:
        return f"{'—':>7} {'—':>7} {'—':>7}"
    return f"{min(values):7.1f} {statistics.median(values):7.1f} {max(values):7.1f}"


def breakdown(samples, timings) -> dict[str, list[float]]:
    """Per sample, the parts of its latency (ms), matched to the kernel's recompute by time."""
    parts = {
        k: []
        for k in (
            "up",
            "kernel",
            "  schedule",
            "  scene",
            "serial",
            "down",
            "decode",
            "to-draw",
            "draw",
            "present",
            "  frame",
            "  hash",
        )
    }
    records = sorted(timings, key=lambda r: r["received"])
    for s in samples:
        changed = s["changedAt"] / 1000
        record = next((r for r in records if r["received"] >= changed and "sent" in r), None)
        if record is None or s["latency"] is None or not s["receivedAt"] / 1000 >= record["sent"] - 0.05:
            continue
        up = (record["received"] - changed) * 1e3
        kernel = (record["computed"] - record["received"]) * 1e3
        serial = (record["sent"] - record["computed"]) * 1e3
        down = s["receivedAt"] - record["sent"] * 1e3
        drawn = s["drawnAt"] - s["changedAt"]
        parts["up"].append(up)
        parts["kernel"].append(kernel)
        if "scheduled" in record:  # the kernel's part, split: workload → schedule, schedule → scene
            parts["  schedule"].append((record["scheduled"] - record["received"]) * 1e3)
            parts["  scene"].append((record["computed"] - record["scheduled"]) * 1e3)
        parts["serial"].append(serial)
        parts["down"].append(down)
        parts["decode"].append(s["decodeMs"])
        parts["to-draw"].append(s["drawnAt"] - s["drawMs"] - s["receivedAt"] - s["decodeMs"])
        parts["draw"].append(s["drawMs"])
        parts["present"].append(s["latency"] - drawn)
        parts["  frame"].append(s["frameWait"] - drawn)  # drawn → the frame that shows it begins
        parts["  hash"].append(s["hashMs"])  # this script reading the picture back (counted in the latency)
    return parts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="small,large", help="comma-separated: small, large")
    parser.add_argument("--repeat", type=int, default=20, help="changes per control")
    parser.add_argument("--settle", type=float, default=400, help="ms to keep watching after a new picture")
    parser.add_argument("--dpr", type=float, default=1, help="devicePixelRatio of the page")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (server log)")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="sample the page's main thread (CDP Profiler) during the bandwidth changes and print "
        "the functions with the most self time",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    # A SIGTERM ends the run through `finally`, so the server it started is stopped with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    root = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    log = open(root / "jupyterlab.log", "w")
    process, url = start_lab(root, log)
    print(
        f"JupyterLab {url}, Chromium {CHROMIUM}, dpr {args.dpr}, {args.repeat} changes per control, "
        f"settle {args.settle:g} ms; campaign_widget from {REPO}",
        flush=True,
    )
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_context(
                viewport={"width": 1400, "height": 1000}, device_scale_factor=args.dpr
            ).new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            write_notebook(root / "notebooks", "bench.ipynb", "# bench_browser")
            nb = Notebook(page, url)
            nb.open("bench.ipynb")
            nb.wait_kernel_idle()
            for index, size in enumerate(s.strip() for s in args.sizes.split(",")):
                spec = SIZES[size]
                name = f"d_{size}"
                cell = nb.append_code_cell(CELL.format(bench=str(REPO / "benchmarks"), name=name, **spec))
                out = nb.run_cell(cell, timeout=300)
                if "PIECES" not in out:
                    raise SystemExit(f"the {size} diagram failed:\n{out}")
                root_el = page.locator(".cw-root").nth(index)
                canvas = root_el.locator("canvas.cw-plot")
                canvas.scroll_into_view_if_needed()
                page.wait_for_function("c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=120_000)
                results = {}
                for control, values in ((".cw-tiles", [spec["other"], spec["tiles"]]), (".cw-peak-bandwidth", None)):
                    profiler = start_profile(page) if args.profile and control == ".cw-peak-bandwidth" else None
                    results[control] = page.evaluate(
                        MEASURE,
                        dict(
                            index=index,
                            control=control,
                            values=values,
                            repeat=args.repeat,
                            settle=args.settle,
                            timeout=20_000,
                        ),
                    )
                    if profiler is not None:
                        print_profile(profiler, args.repeat, what="bandwidth changes", unit="change")
                report_cell = nb.append_code_cell(REPORT_CELL.format(name=name))
                text = nb.run_cell(report_cell, timeout=60)
                report = json.loads(text.split("REPORT", 1)[1].strip().splitlines()[0])
                n = report["n"]
                sent = (
                    f"{n:,} pieces"
                    if n == report["total"]
                    else f"{report['total']:,} pieces, {n:,} sent (aggregated to the pixel)"
                )
                print(
                    f"\n== {spec['label']}: {sent}, scene {report['scene_bytes'] / 1e6:.2f} MB "
                    f"({report['scene_bytes'] / max(n, 1):.1f} B/piece)"
                )
                print(
                    f"{'control':<16} {'latency ms: min':>15} {'median':>7} {'max':>7}   draws/change  pictures/change"
                )
                for control, samples in results.items():
                    draws = [s["draws"] for s in samples]
                    pictures = [s["pictures"] for s in samples]
                    missed = sum(s["latency"] is None for s in samples)
                    print(
                        f"{control:<16} {stats([s['latency'] for s in samples])}   "
                        f"{min(draws)}–{max(draws)} (median {statistics.median(draws):g})   "
                        f"{min(pictures)}–{max(pictures)}" + (f"   {missed} changes drew nothing" if missed else "")
                    )
                print(f"{'breakdown (ms)':<16} {'min':>7} {'median':>7} {'max':>7}")
                for control, samples in results.items():
                    parts = breakdown(samples, report["timings"])
                    print(f"  {control} ({len(parts['up'])} matched)")
                    for key, values in parts.items():
                        print(f"    {key:<12} {stats(values)}")
                sys.stdout.flush()
            if errors:
                print("\npage errors:\n  " + "\n  ".join(errors))
            browser.close()
    finally:
        stop(process)
        log.close()
        if args.keep:
            print(f"kept {root}")


if __name__ == "__main__":
    main()
