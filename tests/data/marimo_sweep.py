"""A marimo app of a product sweep's view (tests/browser/test_marimo_sweep.py): the heatmap of the
makespan over tiles × peak bandwidth, the policy chosen by the heatmap's own select, and the clicked
configuration's campaign diagram below."""

import marimo

app = marimo.App(width="full")


@app.cell
def _():
    import marimo as mo

    import campaign_widget as cw

    return cw, mo


@app.cell
def _(cw):
    machine = cw.Machine(peak_compute=100.0, peak_bandwidth=10.0)
    workload = cw.Workload(
        [cw.Phase("A", ops=300, bytes=200), cw.Phase("B", ops=200, bytes=40, after=["A"])], machine=machine
    )
    result = cw.sweep(
        workload,
        progress=False,
        tiles=[1, 2, 4],
        pipeline=[True],
        policy=["none", "throttle"],
        peak_bandwidth=[5.0, 10.0, 20.0],
    )
    view = cw.SweepView(result, x="tiles", y="peak_bandwidth")
    view  # noqa: B018 - the cell's output
    return result, view


if __name__ == "__main__":
    app.run()
