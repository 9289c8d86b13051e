"""The apply flow of ``LocalView``: the workload with the phase's bytes predicted for the view's
cache, loop order and layouts, the diagrams that show it (``link``), and the note that a control
changed since (``apply_pending``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..cache import Cache
from ..errors import WorkloadError, WrongTypeError

if TYPE_CHECKING:
    from ..model.workload import Workload
    from .diagram import CampaignDiagram


class ApplyToWorkload:
    """``LocalView``'s apply, link and pending note (the view's traits and observers are its own)."""

    def apply(self, *, mode: str = "ratio", write_back: bool = False) -> Workload:
        """The workload with this phase's bytes predicted for the current cache, loop order and layouts
        (``campaign_widget.cache.with_predicted_traffic``; ``mode="ratio"`` scales the local miss ratios
        to the workload's sizes, ``"exact"`` simulates at them). Callbacks registered with ``on_apply``
        receive it (e.g. to show it in a campaign diagram); it is also kept in ``applied``."""
        if self._phase is None or self._workload is None:
            raise WorkloadError("LocalView.apply: this view was opened on an Einsum, not on a phase of a workload")
        from ..cache import with_predicted_traffic

        workload = with_predicted_traffic(
            self._workload,
            self._phase,
            self.cache,
            local_sizes=self._sizes,
            layouts=self._layout_objects(),
            loop_order=self.loop_order,
            mode=mode,
            write_back=write_back,
        )
        self.applied = workload
        before = phase_bytes(self._workload, self._phase)
        after = phase_bytes(workload, self._phase)
        self.message = (
            f"applied to phase {self._phase!r}: {before:,.0f} B logical → {after:,.0f} B predicted "
            f"({self.cache.describe()}, loops {','.join(self.loop_order)}, {mode})"
        )
        for callback in list(self._apply_callbacks):
            callback(workload)
        if self._linked:
            self.message += f"; shown in {len(self._linked)} linked diagram{'s' if len(self._linked) > 1 else ''}"
        self._applied_with = (self._apply_controls(), self.message, after)
        self.set_trait("apply_pending", False)
        return workload

    def _apply_controls(self) -> dict[str, Any]:
        """The controls ``apply()`` reads, by the words the pending note uses for them."""
        return {
            "cache line": self.line,
            "capacity": self.capacity,
            "ways": self.ways,
            "loop order": tuple(self.loop_order),
            "layouts": repr(sorted(self.layouts.items())),
        }

    def _note_apply_pending(self) -> None:
        """After an apply, a control change leaves the phase with the bytes of the old controls: the
        message says so, and what the phase shows, until the next apply (or until the controls are
        back where they were). Applying at every step instead would redraw linked diagrams as a
        slider moves, which ``link`` promises not to do."""
        if not self._ready or self._applied_with is None:
            return
        controls, applied_message, shown = self._applied_with
        changed = [name for name, value in self._apply_controls().items() if controls[name] != value]
        if not changed:
            if self.apply_pending:
                self.message = applied_message
            self.set_trait("apply_pending", False)
            return
        old = Cache(line=controls["cache line"], lines=controls["capacity"], ways=controls["ways"])
        what = changed[0] if len(changed) == 1 else ", ".join(changed[:-1]) + " and " + changed[-1]
        self.message = (
            f"{what} changed — press Apply to update phase {self._phase!r} (it shows {shown:,.0f} B predicted "
            f"for {old.describe()}, loops {','.join(controls['loop order'])})"
        )
        self.set_trait("apply_pending", True)

    def on_apply(self, callback: Callable[[Workload], object], remove: bool = False) -> None:
        """Call ``callback(workload)`` with each workload ``apply()`` (or the view's button) makes."""
        if remove:
            self._apply_callbacks.remove(callback)
        else:
            self._apply_callbacks.append(callback)

    def link(self, diagram: CampaignDiagram) -> ApplyToWorkload:
        """Show each applied workload in ``diagram``: ``apply()`` and the view's button call
        ``diagram.set_workload(applied)``, so the phase's bar takes its predicted bytes (its controls —
        tiles, policy, peaks — stay). Nothing changes until the next apply. Returns the view, so
        ``LocalView(...).link(diagram)`` can end a cell. ``unlink(diagram)`` undoes it."""
        from .diagram import CampaignDiagram

        if not isinstance(diagram, CampaignDiagram):
            raise WrongTypeError(
                f"LocalView.link takes a campaign_widget.CampaignDiagram, got {type(diagram).__name__}"
            )
        if self._phase is None or self._workload is None:
            raise WorkloadError(
                "LocalView.link: this view was opened on an Einsum, not on a phase of a workload; "
                "open it as LocalView(workload, phase_name, local_sizes) to apply to a diagram"
            )
        if self._phase not in diagram.phase_names:
            raise WorkloadError(
                f"LocalView.link: the diagram has no phase {self._phase!r}; its phases: {list(diagram.phase_names)}"
            )
        if id(diagram) not in self._linked:
            self._linked[id(diagram)] = (diagram, diagram.set_workload)
            self.on_apply(self._linked[id(diagram)][1])
        return self

    def unlink(self, diagram: CampaignDiagram) -> None:
        """Stop showing applied workloads in ``diagram`` (a diagram not linked is an error naming it)."""
        if id(diagram) not in self._linked:
            raise WorkloadError(
                f"LocalView.unlink: {type(diagram).__name__} at {id(diagram):#x} is not linked to this view"
            )
        _, callback = self._linked.pop(id(diagram))
        self.on_apply(callback, remove=True)

    @property
    def linked(self) -> list[CampaignDiagram]:
        """The diagrams ``apply()`` updates, in the order they were linked."""
        return [diagram for diagram, _ in self._linked.values()]


def phase_bytes(workload: Workload, phase: str) -> float:
    return float(workload.arrays.bytes[workload.names.index(phase)])
