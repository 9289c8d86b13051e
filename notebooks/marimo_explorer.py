import marimo

__generated_with = "0.25.2"
app = marimo.App(width="full")


@app.cell
def _():
    import marimo as mo

    import campaign_widget as cw

    return cw, mo


@app.cell
def _(mo):
    mo.md(
        """
        # A workload in marimo

        Three kernels of an attention block on an H100's FP32 peak and HBM3 bandwidth. The explorer
        below is the campaign diagram beside its roofline, linked: hover a phase in either to highlight
        it in both. The bandwidth slider below the explorer is the app's one bandwidth control (the
        diagram's own controls are hidden, so no second slider can disagree with it): drag it, marimo
        re-runs the cell that sets the diagram's peak, the schedule is recomputed in the kernel, both
        views redraw, and the line under the slider reads the makespan the diagram draws.
        """
    )
    return


@app.cell
def _(cw):
    h100 = cw.Machine(peak_compute=51.2e12, peak_bandwidth=3.35e12, name="H100")
    workload = cw.Workload(
        [
            cw.Phase("QK^T", ops=34e9, bytes=6.4e9),
            cw.Phase("softmax", ops=1.1e9, bytes=8.6e9, after=["QK^T"]),
            cw.Phase("PV", ops=34e9, bytes=4.3e9, after=["softmax"]),
        ],
        machine=h100,
    )
    return (workload,)


@app.cell
def _(cw, workload):
    # an Explorer displays in marimo as its diagram and its roofline (anywidgets), linked in the kernel
    # show_controls=False: the marimo slider below is the one bandwidth control, and the text quotes it
    explorer = cw.Explorer(workload, tiles=4, pipeline=True, policy="dilate+throttle", show_controls=False)
    explorer  # noqa: B018 - the cell's output
    return (explorer,)


@app.cell
def _(mo):
    bandwidth = mo.ui.slider(
        start=0.5, stop=8.0, step=0.05, value=3.35, label="memory bandwidth (TB/s)", show_value=True, full_width=True
    )
    bandwidth  # noqa: B018 - the cell's output
    return (bandwidth,)


@app.cell
def _(bandwidth, explorer):
    explorer.diagram.peak_bandwidth = bandwidth.value * 1e12
    makespan = explorer.diagram.makespan
    return (makespan,)


@app.cell
def _(explorer, makespan, mo):
    assert makespan == explorer.diagram.makespan  # this cell runs after the slider's
    # the diagram's own readout line, in its words and format, and the bandwidth it was drawn at
    said = next(text for text, kind in explorer.diagram.readout_lines if kind == "makespan")
    mo.md(f"**{said}** at {explorer.diagram.peak_bandwidth / 1e12:.3g} TB/s (the slider's value)")
    return


if __name__ == "__main__":
    app.run()
