"""How different two colours look: CIEDE2000 colour difference (ΔE00) between sRGB colours.

Sharma, Wu & Dalal, "The CIEDE2000 color-difference formula: implementation notes" (2005): sRGB →
linear RGB → XYZ (D65) → CIELAB, then ΔE00 with kL = kC = kH = 1. ΔE00 ≈ 1 is the smallest difference
a viewer sees side by side; two phase colours should differ by far more (docs/views/index.md#phase-colours).

>>> round(delta_e2000("#000000", "#ffffff"), 1)
100.0
>>> delta_e2000("#0072b2", "#0072b2")
0.0
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_M = np.array(  # linear sRGB → XYZ, D65
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
_WHITE = np.array([0.95047, 1.0, 1.08883])


def lab(colours: Sequence[str]) -> np.ndarray:
    """(n, 3) CIELAB (D65) of ``#rrggbb`` colours."""
    rgb = np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in colours], dtype=np.float64) / 255.0
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = linear @ _M.T / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


def delta_e2000_lab(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ΔE00 between CIELAB rows ``a`` and ``b`` (broadcast)."""
    L1, a1, b1 = np.moveaxis(np.asarray(a, float), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(b, float), -1, 0)
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cm**7 / (Cm**7 + 25.0**7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(C1p * C2p == 0, 0.0, dh)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lpm, Cpm = (L1 + L2) / 2, (C1p + C2p) / 2
    hsum = h1p + h2p
    hpm = np.where(
        C1p * C2p == 0,
        hsum,
        np.where(np.abs(h1p - h2p) <= 180, hsum / 2, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2)),
    )
    T = (
        1
        - 0.17 * np.cos(np.radians(hpm - 30))
        + 0.24 * np.cos(np.radians(2 * hpm))
        + 0.32 * np.cos(np.radians(3 * hpm + 6))
        - 0.20 * np.cos(np.radians(4 * hpm - 63))
    )
    d_theta = 30 * np.exp(-(((hpm - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cpm**7 / (Cpm**7 + 25.0**7))
    Sl = 1 + 0.015 * (Lpm - 50) ** 2 / np.sqrt(20 + (Lpm - 50) ** 2)
    Sc = 1 + 0.045 * Cpm
    Sh = 1 + 0.015 * Cpm * T
    Rt = -np.sin(np.radians(2 * d_theta)) * Rc
    return np.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh))


def delta_e2000(first: str, second: str) -> float:
    """ΔE00 between two ``#rrggbb`` colours."""
    a, b = lab([first, second])
    return float(delta_e2000_lab(a, b))


def closest_pair(colours: Sequence[str]) -> tuple[float, int, int]:
    """The smallest ΔE00 between two of ``colours`` and their indices."""
    L = lab(colours)
    d = delta_e2000_lab(L[:, None, :], L[None, :, :])
    d[np.diag_indices(len(colours))] = np.inf
    i, j = np.unravel_index(int(np.argmin(d)), d.shape)
    return float(d[i, j]), int(i), int(j)
