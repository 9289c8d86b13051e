"""Phase colours that people with colour-vision deficiencies can tell apart.

Twelve categorical hues: Okabe & Ito's palette (black replaced, yellow darkened so that it reads on
white), then four of Paul Tol's "muted" scheme. Beyond twelve phases the hues repeat as a darker
shade (13–24), then a lighter tint (25–36), … so every phase of a large workload still has a colour
of its own, and the view labels phases in place on the diagram (a colour alone does not identify a
phase there). Red is kept for oversubscription warnings (theme.json's ``warning``), which are also
hatched, so no meaning rests on hue alone.
"""

from __future__ import annotations

from collections.abc import Iterable

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


def phase_colors(names: Iterable[str], known: dict[str, str] | None = None) -> list[str]:
    """One colour per name, by position (a workload's phase k gets ``PALETTE[k]``, the same in its
    diagram, its roofline and its static figure). Names already in ``known`` keep their colour
    (stacked diagrams); a new name takes its own position's colour when no other name holds it,
    else the first free one."""
    assigned = dict(known or {})
    taken = set(assigned.values())
    out = []
    for k, name in enumerate(names):
        if name not in assigned:
            color = PALETTE[k % len(PALETTE)]
            if color in taken:
                color = next((c for c in PALETTE if c not in taken), PALETTE[len(assigned) % len(PALETTE)])
            assigned[name] = color
            taken.add(color)
        out.append(assigned[name])
    return out
