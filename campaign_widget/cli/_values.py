"""The types of the flags' values: each checks its text and says, in one line, what it wanted (argparse
reports it as a usage error, exit status 2)."""

from __future__ import annotations

import argparse
import math
import re

from ..errors import WorkloadError, short_repr
from ..model.presets import machine as preset_machine
from ..model.presets import unknown_preset

_SI = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


def peak(text: str) -> float:
    """A peak: a finite number > 0, optionally with an SI suffix (``51.2T``, ``3.35e12``)."""
    match = re.fullmatch(
        r"\s*([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?|[-+]?(?:nan|inf|infinity))\s*([kKMGTPE]?)\s*", text, flags=re.IGNORECASE
    )
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 51.2e12 or 51.2T)")
    try:
        value = float(match.group(1)) * _SI.get(match.group(2), 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 51.2e12 or 51.2T)") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number > 0")
    return value


def checked(convert, kind: str, ok, requirement: str):
    """An argparse type: ``convert`` the text, then require ``ok(value)``; errors say which."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {kind}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be {requirement}")
        return value

    return parse


whole = checked(int, "a whole number", lambda v: v >= 1, ">= 1")
threshold = checked(float, "a number", lambda v: 0 < v <= 1, "in (0, 1]")


def preset(text: str):
    try:
        return preset_machine(text)
    except WorkloadError:
        raise argparse.ArgumentTypeError(f"{unknown_preset(text)} (see --list-machines)") from None


def _assignment(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise argparse.ArgumentTypeError(f"{short_repr(text)} is not NAME=VALUE (e.g. N=1024)")
    return key, value.strip()


def param(text: str) -> tuple[str, object]:
    key, value = _assignment(text)
    number = option_value(value)
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise argparse.ArgumentTypeError(f"{short_repr(text)}: the value of a size must be a number")
    return key, number


def option(text: str) -> tuple[str, object]:
    key, value = _assignment(text)
    return key, option_value(value)


def option_value(text: str):
    """A reader option's value from the command line: true/false/none, a number, a comma-separated
    list of those, or else the text itself."""
    if "," in text:
        return tuple(option_value(part.strip()) for part in text.split(","))
    words = {"true": True, "false": False, "none": None}
    if text.lower() in words:
        return words[text.lower()]
    for convert in (int, float):
        try:
            value = convert(text)
        except ValueError:
            continue
        if convert is float and not math.isfinite(value):
            break
        return value
    return text


def category_names(text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"{short_repr(text)} names no category (e.g. kernel,gpu_memcpy)")
    return names
