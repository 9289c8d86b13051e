"""A static PNG and a browser screenshot of the same diagram agree on phase colours and positions.

Issue: "a static PNG and a browser screenshot of the same diagram show the same phase colours at the
same relative positions".

The module writes its own notebook into the private server's root and types one cell that builds the
paper's three-phase workload (A 3 s .7/.25, B 10 s .2/.9, C 2 s .6/.4), writes its static PNG with
``campaign_widget.static_figure.save_workload_figure(w, path)`` and displays ``cw.CampaignDiagram(w)``.

Then, for each phase, its palette colour is looked for along the row of its compute line in both
images; the line's horizontal extent and its height are expressed relative to each image's plot area:

* browser: the canvas' data-plot-* / data-t0/t1 / data-y-top transform (js/diagram/CONTRACT.md);
* static PNG: the axes box found in its pixels — the time axis (bottom spine, the plot's full width,
  t = 0 … makespan) and the utilization spine (left, y = 0 … 1). The same detector is run on the
  browser canvas and must agree with its data-* transform, so the detector is checked too.

Positions (start/end of each compute line) must agree within 2 % of the plot width, heights (in
units of full utilization, 0 … 1) within 3 %; each image is also compared with the model
(``build_scene``) so a failure says which side is off.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from labdriver import LabPage, Notebook, hex_rgb, read_canvas, wait_for_file, write_notebook
from PIL import Image
from workloads import FIGURE_2B, chain_source, figure_2b

import campaign_widget as cw
from campaign_widget.figures.phase_colours import phase_colors
from campaign_widget.figures.scene import build_scene

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-static-vs-browser.ipynb"
RENDER_TIMEOUT_MS = 30_000
POSITION_TOLERANCE = 0.02  # of the plot width
HEIGHT_TOLERANCE = 0.03  # of full utilization (the 0 … 1 span of the y axis)
COLOUR_TOLERANCE = 30  # max channel difference when looking for a phase colour


def paper_workload() -> cw.Workload:
    return figure_2b()


def model_phases() -> list[dict]:
    workload = paper_workload()
    scene = build_scene(workload.schedule())
    colours = phase_colors(workload.names)
    out = []
    for i, name in enumerate(workload.names):
        (k,) = np.nonzero(scene.phase == i)[0]
        out.append(
            dict(
                name=name,
                colour=colours[i],
                start=float(scene.x0[k] / scene.x_max),
                end=float(scene.x1[k] / scene.x_max),
                height=float(scene.line_y[k]),
            )
        )
    return out


def cell_code(static_path) -> str:
    # No blank lines: labdriver's read-back of a typed cell doubles them.
    return "\n".join(
        [
            "import campaign_widget as cw",
            "from campaign_widget.static_figure import save_workload_figure",
            chain_source(FIGURE_2B),
            f"print('STATIC', save_workload_figure(w, r{str(static_path)!r}))",
            "cw.CampaignDiagram(w)",
        ]
    )


# -- finding things in pixels ---------------------------------------------------------------------------


def rgb_over_white(image: Image.Image) -> np.ndarray:
    rgba = np.asarray(image.convert("RGBA")).astype(float)
    alpha = rgba[..., 3:4] / 255
    return rgba[..., :3] * alpha + 255 * (1 - alpha)


def runs(flags: np.ndarray, max_gap: int = 0) -> list[tuple[int, int]]:
    """[start, end) of the True runs of a 1-D boolean array, bridging gaps of up to ``max_gap``."""
    idx = np.flatnonzero(flags)
    if not idx.size:
        return []
    breaks = np.flatnonzero(np.diff(idx) > max_gap + 1)
    starts = np.r_[idx[0], idx[breaks + 1]]
    ends = np.r_[idx[breaks], idx[-1]] + 1
    return list(zip(starts.tolist(), ends.tolist()))


def axes_box(rgb: np.ndarray) -> dict:
    """The plot box of a campaign diagram image, from its axis lines (axis colour #333333):

    * the time axis: the longest horizontal dark run (its rows' centre is y = 0; its right end is
      the plot's right edge, t1);
    * the utilization spine: the longest vertical dark run that ends on the time axis near its left
      end (the y = 0 tick sticks out to the left of it); its columns' centre is the plot's left edge
      (t0). It frames the plot's whole height, so y = 1 is its topmost tick mark (the compute axis of
      a diagram whose lines stay at or below full utilization ends at 1.0): the top dark run in the
      columns just left of the spine, where only tick marks are drawn.

    Returns device-pixel coordinates: left, right, row0 (y = 0), row1 (y = 1).
    """
    dark = (rgb.max(axis=2) < 110) & (np.ptp(rgb, axis=2) < 30)
    best = []
    for row in range(dark.shape[0]):
        r = runs(dark[row])
        if r:
            start, end = max(r, key=lambda se: se[1] - se[0])
            best.append((end - start, row, start, end))
    if not best:
        raise AssertionError("no axis lines (dark pixels) in the image")
    longest = max(b[0] for b in best)
    if longest < dark.shape[1] * 0.3:
        raise AssertionError(f"no time axis: the longest dark horizontal run is {longest} px of {dark.shape[1]}")
    axis_rows = [b for b in best if b[0] >= longest - 4]
    rows = [b[1] for b in axis_rows]
    if max(rows) - min(rows) > 6:
        raise AssertionError(f"several long dark horizontal lines at rows {rows}: cannot tell the time axis")
    start, right = min(b[2] for b in axis_rows), max(b[3] for b in axis_rows)
    row0 = (min(rows) + max(rows) + 1) / 2
    spine = []
    for col in range(start, min(start + 40, dark.shape[1])):
        for top, end in runs(dark[:, col]):
            if end >= min(rows) and top < min(rows) - 20:
                spine.append((end - top, top, col))
    if not spine:
        raise AssertionError(f"no vertical utilization spine ending on the time axis near its left end (x {start})")
    length = max(t[0] for t in spine)
    spine = [t for t in spine if t[0] >= length - 2]
    cols = [t[2] for t in spine]
    if max(cols) - min(cols) > 6:
        raise AssertionError(f"several long vertical dark lines at columns {cols}: cannot tell the spine")
    ticks = dark[:, max(0, min(cols) - 3) : min(cols) - 1].all(axis=1)
    tick_runs = [(top, end) for top, end in runs(ticks) if end < min(rows) - 20]
    if not tick_runs:
        raise AssertionError(f"no tick marks left of the spine (columns {cols}) above the time axis")
    top, end = min(tick_runs)
    return dict(left=(min(cols) + max(cols) + 1) / 2, right=float(right), row0=row0, row1=(top + end) / 2)


def compute_line(rgb: np.ndarray, box: dict, colour: str, height_guess: float) -> dict:
    """Find the compute line of the phase drawn in ``colour`` near utilization ``height_guess``:
    the rows (±6 % of the 0 … 1 span around the guess) where that colour is most frequent in the
    plot, and the longest run of it along those rows. Returns relative start/end/height, the pixel
    count and the median colour found."""
    target = np.array(hex_rgb(colour), dtype=float)
    span = box["row0"] - box["row1"]
    guess = box["row0"] - height_guess * span
    lo, hi = int(max(0, guess - 0.06 * span)), int(min(rgb.shape[0], guess + 0.06 * span + 1))
    c0, c1 = int(math.floor(box["left"])), int(math.ceil(box["right"]))
    region = rgb[lo:hi, c0:c1]
    match = np.abs(region - target).max(axis=2) <= COLOUR_TOLERANCE
    counts = match.sum(axis=1)
    if counts.max() == 0:
        raise LookupError(
            f"colour {colour} not found near utilization {height_guess:g} (rows {lo}…{hi}, columns {c0}…{c1})"
        )
    line_rows = np.flatnonzero(counts >= 0.5 * counts.max())
    centre = lo + (line_rows.min() + line_rows.max() + 1) / 2
    on_line = match[line_rows]
    s, e = max(runs(on_line.any(axis=0), max_gap=3), key=lambda se: se[1] - se[0])
    found = region[line_rows][:, s:e][on_line[:, s:e]]
    width = box["right"] - box["left"]
    return dict(
        start=(c0 + s - box["left"]) / width,
        end=(c0 + e - box["left"]) / width,
        height=(box["row0"] - centre) / span,
        pixels=int(on_line.sum()),
        median=tuple(int(v) for v in np.median(found, axis=0)),
    )


# -- the page ----------------------------------------------------------------------------------------------


def test_static_png_matches_browser(lab_page, jupyter_lab):
    lab: LabPage = lab_page
    page = lab.page
    static_path = jupyter_lab.work_dir / "static-figure-2.png"
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: static PNG vs browser")
    nb = Notebook(page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    cell = nb.append_code_cell(cell_code(static_path))
    out = nb.run_cell(cell, timeout=90)
    assert "Traceback" not in out and "Error" not in out, f"the cell failed:\n{out}"
    assert re.search(r"STATIC .*static-figure-2\.png", out), f"save_workload_figure did not report a path: {out!r}"
    data = wait_for_file(static_path, 30, "save_workload_figure")
    (lab.artifacts_dir / "static-figure-2.png").write_bytes(data)

    canvas = page.locator(".cw-root canvas.cw-plot").first
    canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
    canvas.scroll_into_view_if_needed()
    page.wait_for_function(
        "c => c.width > 0 && c.dataset.plotLeft !== undefined && c.dataset.t1 !== undefined",
        arg=canvas.element_handle(),
        timeout=RENDER_TIMEOUT_MS,
    )
    page.mouse.move(2, 2)  # no hover: a hovered phase fades the others
    page.wait_for_function("c => c.dataset.highlightedPhase === ''", arg=canvas.element_handle(), timeout=5_000)
    shot = read_canvas(canvas)
    shot.save(lab.artifacts_dir / "static-vs-browser-canvas")
    lab.screenshot("01-browser", full_page=False)

    phases = model_phases()
    makespan = 15.0
    assert math.isclose(shot.t0, 0) and math.isclose(shot.t1, makespan), (
        f"the browser shows t {shot.t0}…{shot.t1}, not the whole schedule 0…{makespan}"
    )

    # The browser's plot box from its data-* transform, in backing-store px ...
    browser_rgb = rgb_over_white(shot.image)
    sx, sy = shot.scale_x, shot.scale_y
    browser_box = dict(
        left=shot.plot_left * sx, right=shot.plot_right * sx, row0=shot.css_y(0) * sy, row1=shot.css_y(1) * sy
    )
    # ... and as the pixel detector finds it: they must agree, or the detector cannot be trusted on the PNG.
    detected = axes_box(browser_rgb)
    for key, tolerance in (("left", 2.5 * sx), ("right", 2.5 * sx), ("row0", 2 * sy), ("row1", 2 * sy)):
        assert abs(detected[key] - browser_box[key]) <= tolerance, (
            f"the axes detector finds the browser canvas' {key} at {detected[key]}, its data-* transform says "
            f"{browser_box[key]:.1f} (backing px): {detected} vs {browser_box}"
        )

    static_image = Image.open(static_path)
    static_rgb = rgb_over_white(static_image)
    static_box = axes_box(static_rgb)
    assert static_box["right"] - static_box["left"] > 0.5 * static_rgb.shape[1], static_box
    assert static_box["row0"] - static_box["row1"] > 0.2 * static_rgb.shape[0], static_box

    rows, problems = [], []
    for p in phases:
        found = {}
        for label, rgb, box in (("browser", browser_rgb, browser_box), ("static", static_rgb, static_box)):
            try:
                found[label] = compute_line(rgb, box, p["colour"], p["height"])
            except LookupError as error:
                problems.append(f"phase {p['name']} in the {label} image: {error}")
        if len(found) < 2:
            continue
        b, s = found["browser"], found["static"]
        rows.append(
            f"{p['name']} {p['colour']}: model start {p['start']:.4f} end {p['end']:.4f} height "
            f"{p['height']:.3f} | browser {b['start']:.4f} {b['end']:.4f} {b['height']:.3f} "
            f"(median {b['median']}) | static {s['start']:.4f} {s['end']:.4f} {s['height']:.3f} "
            f"(median {s['median']})"
        )
        tolerances = {"start": POSITION_TOLERANCE, "end": POSITION_TOLERANCE, "height": HEIGHT_TOLERANCE}
        for key, tolerance in tolerances.items():
            if abs(b[key] - s[key]) > tolerance:
                problems.append(
                    f"phase {p['name']}: {key} differs, browser {b[key]:.4f} vs static {s[key]:.4f} "
                    f"(tolerance {tolerance}); model {p[key]:.4f}"
                )
            for label, value in (("browser", b[key]), ("static", s[key])):
                if abs(value - p[key]) > tolerance:
                    problems.append(
                        f"phase {p['name']}: the {label} image's {key} {value:.4f} is not the model's "
                        f"{p[key]:.4f} (tolerance {tolerance})"
                    )
        for label, f in found.items():
            if max(abs(a - c) for a, c in zip(f["median"], hex_rgb(p["colour"]))) > 12:
                problems.append(
                    f"phase {p['name']}: the {label} image draws its compute line in {f['median']}, "
                    f"not its palette colour {p['colour']} {hex_rgb(p['colour'])}"
                )
    report = "\n".join(rows)
    (lab.artifacts_dir / "static-vs-browser.txt").write_text(
        f"browser box {browser_box}\nstatic box {static_box}\n{report}\n" + "\n".join(problems) + "\n", encoding="utf-8"
    )
    assert not problems, "\n".join(problems) + f"\n\nmeasured (relative to each plot area):\n{report}"
