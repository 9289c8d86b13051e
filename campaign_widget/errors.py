"""Every error and warning the package raises, in one family.

``CampaignWidgetError`` is the base: it is a ``ValueError``, so code that catches ``ValueError``
keeps working. Messages name what was wrong, where, and with what value (``short_repr`` keeps the
value's part bounded).
"""

from __future__ import annotations

import reprlib


class CampaignWidgetError(ValueError):
    """The base of every error the package raises on bad input."""


class WorkloadError(CampaignWidgetError):
    """A workload, phase or machine description that cannot be used as given."""


class ScheduleError(CampaignWidgetError):
    """Schedule settings that cannot be honoured for this workload."""


class ExpressionError(WorkloadError):
    """An expression that is not allowed, names unknown parameters, or has a value out of bounds."""


class CacheModelError(WorkloadError):
    """Bad input to the cache model; the message names the field and the value."""


class SceneTooLargeError(CampaignWidgetError):
    """Stacking the schedule would make more pieces than a diagram can hold."""


class ArgumentError(CampaignWidgetError):
    """An argument with a value the call does not take (``group_by="x"``, ``mode="a"``): the message names both."""


class WrongTypeError(ArgumentError, TypeError):
    """An argument of the wrong type (a string where a ``Workload`` belongs): a ``TypeError`` too, so code
    that catches either keeps working."""


class FigureError(CampaignWidgetError):
    """Figure parameters (size, dpi, panels, palette) with which nothing can be drawn."""


class FigureTooLargeError(FigureError):
    """A static figure whose canvas (size × dpi) is beyond the bound in pixels."""


class SweepError(CampaignWidgetError):
    """A sweep that cannot start as given (the message names the axis, the value and a configuration), or a
    question its results cannot answer yet."""


class ConfigurationIndexError(SweepError, IndexError):
    """A configuration index past a sweep's configurations (``baseline=``, ``result.row(i)``): an
    ``IndexError`` too, so code that catches either keeps working."""


class SweepFailed(CampaignWidgetError, RuntimeError):
    """Some configurations have no result after every retry.

    ``partial`` is the :class:`SweepResult` with what was computed (NaN makespan where missing);
    ``missing`` lists the configurations (dicts of axis values) without a result.
    """

    def __init__(self, message: str, partial, missing: list[dict]):
        super().__init__(message)
        self.partial = partial
        self.missing = missing


class WorkloadFileError(WorkloadError):
    """A workload file that cannot be read; the message starts with ``file:line:`` where known.

    ``path``, ``line`` (1-based, or None) and ``field`` (e.g. ``phases[2].ops`` or a CSV column,
    or None) say where.
    """

    def __init__(self, message: str, *, path=None, line: int | None = None, field: str | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        self.reason = message
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        if field is not None:
            message = f"{field}: {message}"
        super().__init__(where + message)


class TraceSyntaxError(CampaignWidgetError):
    """Malformed JSON in a profiler trace, at ``line`` (and in event number ``event`` where known)."""

    def __init__(self, message: str, line: int, event: int | None = None):
        self.line, self.event = line, event
        super().__init__(message)


class CommandLineError(CampaignWidgetError):
    """What stops a ``campaign-widget`` command: said in one line on standard error, with an exit status."""


class UsageError(CommandLineError):
    """A bad command line (unknown option, bad option value): exit status 2."""


class InputError(CommandLineError):
    """A bad input file or setting, or an output that cannot be written: exit status 1."""


class OutputClosed(CommandLineError):
    """Standard output is closed: nothing can be printed; exit status 1 with a line on stderr."""


class UtilizationAboveOneWarning(UserWarning):
    """A measured phase uses more than 100% of a resource: the peaks or the counters are off."""


class MeasurementWarning(UserWarning):
    """A host measurement that contradicts itself (a memory hierarchy that is not monotone, repeats that
    disagree beyond their spread) even after it was measured again."""


class MeasurementError(CampaignWidgetError):
    """A host measurement too self-contradictory to become a ``Machine`` (a hierarchy not monotone)."""


def phase_field_error(phase: str, field: str, value, why: str) -> WorkloadError:
    return WorkloadError(f"phase {short_repr(phase)}: {field}={short_repr(value)} {why}")


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlong = 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6
_REPR.maxlevel = 3


def short_repr(value: object) -> str:
    """A bounded repr for messages: never formats a whole huge (or deeply nested) value, and never
    raises (a hostile ``__repr__`` or an integer too long to print gives ``<type>``)."""
    try:
        return _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__, an integer too long to convert
        return f"<{type(value).__name__}>"


def check_flag(value: object, what: str, error: type[CampaignWidgetError] = WrongTypeError) -> bool:
    """An on/off argument as given: True or False (numpy's too), never a truthy stand-in such as
    ``'yes'``, ``'false'`` or 1, which ``bool()`` would read. ``what`` names the argument where it
    stands (``"pipeline"``, ``"phase 'A': tileable"``). A ``WrongTypeError`` (a ``TypeError`` too),
    unless the caller's family of errors is another (``error``: a schedule setting raises a ``ScheduleError``)."""
    import numpy as np  # here, not at the top: the only part of the error family that needs numpy

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise error(f"{what}={short_repr(value)} must be True or False")
