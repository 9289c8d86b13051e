"""What ``LocalView`` draws per element, from its trace and stack distances: access counts and
reuse distances coloured (``heat``), fully associative misses for every capacity
(``capacity_table``), per-element misses when that table does not apply (``miss_map``), and the
clicked elements' related accesses, cache lines and distance histogram (``selected``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..cache import Trace
from ..figures.colour_scale import hex_colors, rgb, scale_range, severity, severity_rows
from ..figures.local import bar_ticks, colour_bar
from .buffers import cast

REUSE_STATS = ("min", "median", "max")
MAX_TABLE_ENTRIES = 2_000_000  # capacities × elements sent at once (~10 MB); beyond, each step asks the kernel
COLD_ONLY_RGB = (0x3A, 0x3A, 0x3A)  # reuse heatmap: accessed, never reused (only cold misses)
UNTOUCHED_RGB = (0xFF, 0xFF, 0xFF)  # never accessed
_COLD_ONLY, _UNTOUCHED = hex_colors([COLD_ONLY_RGB, UNTOUCHED_RGB])  # the swatches' CSS colours


class ElementArrays:
    """``LocalView``'s per-element arrays, from the trace ``_retrace`` made (the view's traits are its own)."""

    def _heat(self) -> None:
        """Access counts and reuse distances per element, coloured (flattened and reuse modes)."""
        s, info = severity(self._count, self.scaling), scale_range(self._count, self.scaling)
        stat = self._stats[:, REUSE_STATS.index(self.reuse_stat)]
        rs = severity(stat, self.scaling, zero_is_value=True)
        rinfo = scale_range(stat, self.scaling, zero_is_value=True)
        reuse_rgb = rgb(rs, self.palette)
        reuse_rgb[(self._count > 0) & np.isnan(stat)] = COLD_ONLY_RGB
        reuse_rgb[self._count == 0] = UNTOUCHED_RGB
        count_rgb = rgb(s, self.palette)
        count_rgb[self._count == 0] = UNTOUCHED_RGB
        stats = self._stats.astype(np.float32)
        self.heat = {
            "count": cast(self._count, "int32"),
            "count_rgb": cast(count_rgb, "uint8"),
            "cold": cast(self._cold, "int32"),
            "reuse": cast(stats, "float32"),
            "reuse_rgb": cast(reuse_rgb, "uint8"),
            "line": cast(self._line_of, "int32"),
            "bars": {
                "flattened": colour_bar(info, self.palette, "accesses per element"),
                "reuse": colour_bar(rinfo, self.palette, f"{self.reuse_stat} reuse distance", "lines"),
            },
            "swatches": {
                "flattened": [{"colour": _UNTOUCHED, "label": "never accessed"}],
                "reuse": [
                    {"colour": _COLD_ONLY, "label": "cold only (never reused)"},
                    {"colour": _UNTOUCHED, "label": "never accessed"},
                ],
                "misses": [{"colour": _UNTOUCHED, "label": "no miss"}],
                "related": [{"colour": _UNTOUCHED, "label": "not related"}],
            },
            # the colours that say "nothing here" and "cold only": a dark theme draws its own for them
            "neutral": {"untouched": _UNTOUCHED, "cold_only": _COLD_ONLY},
        }

    def _fa_per_tensor(self, capacity: int) -> np.ndarray:
        """Fully associative misses per tensor for ``capacity`` lines, from the per-tensor histograms."""
        ge = self._tensor_hist[:, min(capacity, self._tensor_hist.shape[1] - 1) :].sum(axis=1)
        return self._tensor_cold + ge

    def _capacity_table(self) -> None:
        """Fully associative misses for EVERY capacity 1 … capacity_max, from one pass over the
        distances: per tensor (readout) and per element (misses mode, as severities on a 255-colour
        palette), so the view redraws a capacity step at once, before the kernel answers."""
        D = self._distinct_lines + 1  # from here on only cold misses remain: the last row holds for all larger C
        n = int(self._counts.sum())
        d = self._distances.distance
        warm = d >= 0
        if D * n > MAX_TABLE_ENTRIES:
            self._table = None
            self.capacity_table = {}
            return
        capacities = np.arange(1, D + 1)
        # per tensor: cold + #{d >= C}
        suffix = np.cumsum(self._tensor_hist[:, ::-1], axis=1)[:, ::-1]  # suffix[t, c] = #{d >= c}
        width = suffix.shape[1]
        ge_t = np.where(capacities[None, :] < width, suffix[:, np.minimum(capacities, width - 1)], 0)
        fa_t = (self._tensor_cold[:, None] + ge_t).T  # (D, T)
        # per element: the same from a histogram per element
        W = int(d[warm].max()) + 2 if warm.any() else 1
        H = np.bincount(self._g[warm] * W + d[warm], minlength=n * W).reshape(n, W)
        suffix_e = np.cumsum(H[:, ::-1], axis=1)[:, ::-1]
        take = np.minimum(capacities, W - 1)
        ge_e = np.where(capacities[None, :] < W, suffix_e[:, take], 0)
        per_element = (self._cold[:, None] + ge_e).T  # (D, n)
        sev = np.full((D, n), 255, np.uint8)
        s, ranges = severity_rows(per_element, self.scaling)
        ok = np.isfinite(s)
        sev[ok] = np.round(s[ok] * 254).astype(np.uint8)
        lut = np.vstack([rgb(np.linspace(0, 1, 255), self.palette), [UNTOUCHED_RGB]]).astype(np.uint8)
        self._table = fa_t
        self.capacity_table = {
            "capacities": D,
            "tensor_misses": cast(fa_t, "int32"),
            "cold": [int(c) for c in self._tensor_cold],
            "accesses": [int(a) for a in self._tensor_accesses],
            "line": int(self.line),
            "element_misses": cast(per_element, "int32"),
            "severity": cast(sev, "uint8"),
            "lut": cast(lut, "uint8"),
            "ticks": [bar_ticks(r) for r in ranges],
            "bar": colour_bar({"method": self.scaling}, self.palette, "misses per element"),
        }

    def _send_miss_map(self, miss_access: np.ndarray) -> None:
        n = int(self._counts.sum())
        per_element = np.bincount(self._g, weights=miss_access, minlength=n).astype(np.int64)
        s, info = severity(per_element, self.scaling), scale_range(per_element, self.scaling)
        colours = rgb(s, self.palette)
        colours[per_element == 0] = UNTOUCHED_RGB
        self.miss_map = {
            "capacity": int(self.capacity),
            "ways": self.ways,
            "misses": cast(per_element, "int32"),
            "misses_rgb": cast(colours, "uint8"),
            "bar": colour_bar(info, self.palette, "misses per element"),
        }

    def _selected(self) -> None:
        """Related accesses, cache-line mask and distance histogram of the clicked elements."""
        n = int(self._counts.sum())
        sel = np.array(sorted(set(self.selection)), np.int64)
        g, tr, d = self._g, self._trace, self._distances.distance
        if sel.size:
            touched = np.isin(g, sel)
            weight = np.bincount(tr.point[touched], minlength=tr.points)
            related = np.bincount(g, weights=weight[tr.point], minlength=n).astype(np.int64)
            key = self._tensor_of.astype(np.int64) * (int(self._line_of.max()) + 1) + self._line_of
            line_mask = np.isin(key, key[sel])
            mine = d[touched]
            title = f"stack distances of {self._label(int(sel[0]))}" + (
                f" and {sel.size - 1} more" if sel.size > 1 else ""
            )
        else:
            related = np.zeros(n, np.int64)
            line_mask = np.zeros(n, bool)
            mine = d
            title = "stack distances of all accesses"
        warm = mine[mine >= 0]
        hist = np.bincount(warm) if warm.size else np.zeros(0, np.int64)
        s, info = severity(related, self.scaling), scale_range(related, self.scaling)
        colours = rgb(s, self.palette)
        colours[related == 0] = UNTOUCHED_RGB
        self.selected = {
            "related": cast(related, "int32"),
            "related_rgb": cast(colours, "uint8"),
            "line_mask": cast(line_mask, "uint8"),
            "hist": cast(hist, "int32"),
            "hist_cold": int(mine.size - warm.size),
            "hist_title": title,
            "bar": colour_bar(info, self.palette, "related accesses"),
        }

    def _label(self, g: int) -> str:
        k = int(self._tensor_of[g])
        idx = np.unravel_index(g - int(self._first[k]), self._shapes[k]) if self._shapes[k] else ()
        return f"{self._names[k]}[{','.join(str(int(i)) for i in idx)}]"

    def element_of(self, tensor: str, index: Sequence[int]) -> int:
        """The global element number (as in ``selection``) of ``tensor[index]``."""
        k = self._names.index(tensor)
        return int(self._first[k] + (np.ravel_multi_index(tuple(index), self._shapes[k]) if index else 0))


def element_lines(tr: Trace, counts: np.ndarray, line: int) -> np.ndarray:
    """Cache-line number of every element of every tensor (accessed or not), from the trace's layouts
    (docs/data-movement.md#layout: addr = base + byte_offset + elem_bytes·(offset + Σ e_d·stride_d)); 0-D tensors too."""
    bases = tr.bases_for(line)
    out = []
    for k, shape in enumerate(tr.shapes):
        flat = np.arange(int(counts[k]))
        offset = np.zeros_like(flat)
        if shape:
            for idx, stride in zip(np.unravel_index(flat, shape), tr.strides[k]):
                offset = offset + idx * stride
        out.append((bases[k] + tr.byte_offsets[k] + tr.elem_bytes[k] * (tr.offsets[k] + offset)) // line)
    return np.concatenate(out)


def per_element_stats(elements: np.ndarray, distances: np.ndarray, n: int) -> np.ndarray:
    """(n, 3) min, median, max of the finite distances of each element (NaN where it has none);
    the median of an even count is the mean of the two middle values (docs/data-movement.md#scalings)."""
    out = np.full((n, 3), np.nan)
    if elements.size == 0:
        return out
    order = np.lexsort((distances, elements))
    e, v = elements[order], distances[order].astype(np.float64)
    starts = np.flatnonzero(np.r_[True, e[1:] != e[:-1]])
    counts = np.diff(np.r_[starts, e.size])
    which = e[starts]
    out[which, 0] = v[starts]
    out[which, 2] = v[starts + counts - 1]
    out[which, 1] = (v[starts + (counts - 1) // 2] + v[starts + counts // 2]) / 2
    return out
