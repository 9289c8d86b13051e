"""``Workload.schedule`` for the configurations of one sweep, reusing what they share."""

from __future__ import annotations

from ..model import schedule as _schedule
from ..model.settings import Settings
from ..model.workload import Workload
from ._axes import SETTING_AXES


class _Engine:
    """``Workload.schedule`` for the configurations of one sweep, reusing what they share: the
    settings resolved and checked once per distinct ``(tiles, pipeline, policy, depth)``, the
    dependency graph and the wavefront's tile order once per ``(tiles, depth)`` (``schedule.Plans``),
    and, for configurations with the same settings (other peaks or size parameters), one wavefront
    run for all of them (``schedule.build_schedules``). Every workload scheduled here is the sweep's
    workload re-derived: the same phases, dependencies, fusion groups and settings; only durations
    differ. Each schedule is the one ``Workload.schedule`` gives, bit for bit."""

    def __init__(self, workload: Workload):
        self.settings = workload.settings
        self.plans = _schedule.Plans()
        self._resolved: dict = {}

    def _chosen(self, key):
        chosen = self._resolved.get(key)
        if chosen is None:
            chosen = Settings.resolve(self.settings, dict(zip(SETTING_AXES, key))).as_dict()
            if chosen["pipeline"] and chosen["stepping"] == "lockstep":
                chosen = False  # not the wavefront: nothing to reuse
            self._resolved[key] = chosen
        return chosen

    def schedule(self, w: Workload, tiles, pipeline, policy, depth):
        """The schedule of ``w`` with these settings (None: the workload's own, else the defaults)."""
        chosen = self._chosen((tiles, pipeline, policy, depth))
        if chosen is False:
            return w.schedule(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)
        return _schedule.build_schedule(w, **chosen, _plans=self.plans)

    def schedules(self, workloads: list[Workload], tiles, pipeline, policy, depth) -> list:
        """The schedules of several workloads with the same settings, at once where it pays."""
        chosen = self._chosen((tiles, pipeline, policy, depth))
        if chosen is False or len(workloads) == 1:
            return [self.schedule(w, tiles, pipeline, policy, depth) for w in workloads]
        return _schedule.build_schedules(workloads, **chosen, plans=self.plans)
