"""Phase colours: distinct to the eye up to the legend's cap, and the same for the same name.

The palette (docs/views/index.md#phase-colours): the first seven are Okabe & Ito's colours for colour-vision
deficiencies (black dropped, yellow darkened so that it reads on white); the rest were picked one at a
time as the sRGB colour (on a 15-step grid) farthest from those already chosen by CIEDE2000
(``colour_distance``), with lightness L* from 38 to 78 so that each reads on the light and the dark
background, chroma C* ≥ 30 (no greys), and none near the warning red or the grey of a missing value.
Any two of the 36 differ by ΔE00 ≥ 13 (tests/test_legible.py measures it), where a repeat-by-shade
palette put two at ΔE00 5.5 from 18 phases on.

A phase's colour follows its name: a name hashes to a slot of the palette, so the same phase in
two workloads of one notebook (a prefill and a decode step, a fused and an unfused variant) has
one colour. Two names of one workload that hash alike take the next free slots, in the order of
their names, so no two phases of a workload share a colour until there are more than 36 of them.
Red is kept for oversubscription warnings (theme.json's ``warning``), which are also hatched, so no
meaning rests on hue alone; beyond the palette the view labels phases in place on the diagram.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping

PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#B8A800",
    "#8700E1",
    "#695A0F",
    "#B40F3C",
    "#4BD200",
    "#FFA596",
    "#00690F",
    "#9687FF",
    "#00D2D2",
    "#874B78",
    "#F000FF",
    "#874B2D",
    "#78874B",
    "#008796",
    "#D2B4F0",
    "#FF1E69",
    "#5A5AA5",
    "#B4C387",
    "#A5782D",
    "#009600",
    "#69D2A5",
    "#B46969",
    "#D29669",
    "#E10096",
    "#FF87FF",
    "#9669B4",
    "#007869",
    "#FFA5C3",
    "#3C87FF",
    "#96B4FF",
)
#: Phases beyond this many share colours; the diagram also labels phases in place.
DISTINCT = len(PALETTE)


def phase_color(k: int) -> str:
    """Palette entry ``k`` (for things drawn by position, with no name)."""
    return PALETTE[int(k) % len(PALETTE)]


def name_slot(name: str) -> int:
    """The palette slot a phase name asks for: a stable hash (CRC-32 of its UTF-8), the same in every
    process and session."""
    return zlib.crc32(str(name).encode("utf-8")) % len(PALETTE)


def phase_colors(names: Iterable[str], known: Mapping[str, str] | None = None) -> list[str]:
    """The one rule for phase colours, used by every view of a workload (its diagram, the stacked
    panels, the roofline, the Explorer, the static figure): each name its ``name_slot``, or the next
    free slot when another name of the workload holds it (names in slot order, then by name, so the
    outcome depends on the names, not on their order); repeats only beyond ``DISTINCT`` phases.

    ``known`` (name → colour, from the earlier panels of a stack) lets a panel give a phase the colour
    an earlier panel gave it, where that colour is not another phase's here; else it keeps its own.
    """
    names = [str(n) for n in names]
    n = len(PALETTE)
    own: list[str] = [""] * len(names)
    taken: set[int] = set()
    for i in sorted(range(len(names)), key=lambda i: (name_slot(names[i]), names[i])):
        slot = name_slot(names[i])
        if len(taken) < n:
            while slot in taken:
                slot = (slot + 1) % n
        taken.add(slot)
        own[i] = PALETTE[slot]
    if not known:
        return own
    by_name = [known.get(name, color) for name, color in zip(names, own)]
    # A known name's colour may be another phase's own colour here: then, rather than two phases of
    # one panel in one colour, the panel keeps its own.
    return by_name if len(set(by_name)) >= len(set(own)) else own
