"""Phase colours that people with colour-vision deficiencies can tell apart.

The first eight are Okabe & Ito's palette (black replaced, yellow darkened so that it reads on
white); beyond eight, Paul Tol's "muted" scheme. Red is kept for oversubscription warnings, which
are also hatched, so no meaning rests on hue alone.
"""

from __future__ import annotations

from typing import Iterable

PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#B8A800", "#7F7F7F",
    "#332288", "#44AA99", "#999933", "#882255", "#88CCEE", "#DDCC77", "#117733", "#AA4499",
)
WARNING = "#D62728"


def phase_colors(names: Iterable[str], known: dict[str, str] | None = None) -> list[str]:
    """One colour per name; names already in ``known`` keep their colour (stacked diagrams)."""
    assigned = dict(known or {})
    out = []
    for name in names:
        if name not in assigned:
            assigned[name] = PALETTE[len(assigned) % len(PALETTE)]
        out.append(assigned[name])
    return out
