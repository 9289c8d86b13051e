"""savefig on the widgets: files written with no browser, from what each widget shows."""

import numpy as np
import pytest
from PIL import Image
from workloads import two_phases, warning_pixels

from campaign_widget import CampaignDiagram, Explorer, StackedDiagrams


@pytest.fixture
def two():
    return two_phases()


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF-")])
def test_diagram_savefig_writes_each_format(two, tmp_path, suffix, magic):
    path = CampaignDiagram(two, tiles=4, pipeline=True).savefig(tmp_path / f"d{suffix}")
    assert path.read_bytes().startswith(magic)


def test_savefig_follows_the_live_controls(two, tmp_path):
    d = CampaignDiagram(two, tiles=4, pipeline=True, policy="none")
    red_before = _red_pixels(d.savefig(tmp_path / "none.png"))
    d.policy = "dilate+throttle"
    red_after = _red_pixels(d.savefig(tmp_path / "dt.png"))
    assert red_before > 100 and red_after == 0


def test_stack_and_explorer_savefig(two, tmp_path):
    stack = StackedDiagrams({"tiled": (two, {"tiles": 4}), "pipelined": (two, {"tiles": 4, "pipeline": True})})
    one = Image.open(CampaignDiagram(two).savefig(tmp_path / "one.png"))
    both = Image.open(stack.savefig(tmp_path / "stack.png"))
    assert both.size[1] > one.size[1]  # two panels are taller than one
    wide = Image.open(Explorer(two).savefig(tmp_path / "explorer.png"))
    assert wide.size[0] > one.size[0]


def _red_pixels(path) -> int:
    return int(warning_pixels(np.asarray(Image.open(path).convert("RGB"))).sum())


def test_a_failed_figure_export_leaves_the_old_file(tmp_path, monkeypatch):
    import matplotlib.figure

    from campaign_widget import Phase, Workload
    from campaign_widget.static_figure import save_workload_figure

    target = tmp_path / "fig.png"
    target.write_bytes(b"the figure of yesterday")

    def broken(self, handle, **kwargs):
        handle.write(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken)
    with pytest.raises(OSError) as info:
        save_workload_figure(Workload([Phase("A", duration=1, compute_util=0.5, memory_util=0.5)]), target)
    assert str(target) in str(info.value)
    assert target.read_bytes() == b"the figure of yesterday"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]
