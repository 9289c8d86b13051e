"""Phase colours that people with colour-vision deficiencies can tell apart.

Twelve categorical hues: Okabe & Ito's palette (black replaced, yellow darkened so that it reads on
white), then four of Paul Tol's "muted" scheme. Beyond twelve phases the hues repeat as a darker
shade (13–24), then a lighter tint (25–36), … so every phase of a large workload still has a colour
of its own, and the view labels phases in place on the diagram (a colour alone does not identify a
phase there). Red is kept for oversubscription warnings (theme.json's ``warning``), which are also
hatched, so no meaning rests on hue alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

BASE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#B8A800",
    "#7F7F7F",
    "#332288",
    "#44AA99",
    "#999933",
    "#882255",
)
#: Phases beyond this many are also labelled in place on the diagram.
DISTINCT = len(BASE)


def _mix(color: str, other: int, amount: float) -> str:
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (other - c) * amount):02X}" for c in rgb)


def _variant(k: int) -> str:
    """Colour k: a base hue, darkened or lightened by which round of twelve it is in."""
    base = BASE[k % DISTINCT]
    shade = (k // DISTINCT) % 4
    return (base, _mix(base, 0, 0.4), _mix(base, 255, 0.5), _mix(base, 0, 0.65))[shade]


PALETTE = tuple(_variant(k) for k in range(4 * DISTINCT))


def phase_color(k: int) -> str:
    """The colour of a workload's phase ``k`` (its index in the workload's topological order)."""
    return PALETTE[int(k) % len(PALETTE)]


def phase_colors(names: Iterable[str], known: Mapping[str, str] | None = None) -> list[str]:
    """The one rule for phase colours, used by every view of a workload (its diagram, the stacked
    panels, the roofline, the Explorer, the static figure): phase k gets ``phase_color(k)``, so a
    workload's phases look the same wherever it is drawn.

    ``known`` (name → colour, from the earlier panels of a stack) lets a panel whose phases an earlier
    panel already drew (the same workload scheduled otherwise, or a measured timeline that lists them
    in another order) give each of them the colour it had there. A panel of other phases keeps its own
    colours by position, as in its own views, rather than being shifted to colours no other panel uses:
    two panels may then share a colour, and each panel's legend names its phases.
    """
    names = list(names)
    own = [phase_color(k) for k in range(len(names))]
    if not known:
        return own
    by_name = [known.get(name, color) for name, color in zip(names, own)]
    # A known name's colour may be another phase's own colour here: then, rather than two phases of
    # one panel in one colour, the panel keeps its own.
    return by_name if len(set(by_name)) >= len(set(own)) else own
