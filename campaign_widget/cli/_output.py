"""What the command prints, for a person: escaped, in the terminal's encoding, lines bounded, numbers with SI
prefixes, aligned tables; and the last resort when standard output or standard error goes away."""

from __future__ import annotations

import math
import os
import sys
import unicodedata

from ..errors import OutputClosed
from ..formatting import shorten_middle, shorten_names

PROG = "campaign-widget"
MAX_LINE = 600  # characters a printed line is kept to by shortening its long names (never its advice)
NAME_WIDTH = 60  # characters of a name in a table (longer ones keep their start and end)
EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2  # the exit statuses: done, bad input, bad usage


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush finds no broken pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):  # no real file behind stdout (tests capture it)
        pass


def say(line: str, stream=None) -> None:
    stream = stream or sys.stderr
    if stream is None:  # standard error closed too: the exit status says it
        return
    try:
        _write(stream, " ".join(str(line).split("\n")))
    except OSError:
        pass


_ESCAPED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def printable(text: str) -> str:
    """``text`` safe for a terminal: control, format (bidi overrides), surrogate and unassigned
    characters are shown as escapes (``\\x1b``, ``\\u202e``), so a name in a file cannot clear the
    screen, retitle the terminal or reorder what is printed; a backslash stays a backslash."""
    text = str(text)
    if text.isprintable() and text.isascii():
        return text
    out = []
    for ch in text:
        if ch == " " or (ch.isprintable() and unicodedata.category(ch) not in _ESCAPED_CATEGORIES):
            out.append(ch)
        else:
            out.append(ascii(ch)[1:-1])
    return "".join(out)


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: the start and the end kept, an ellipsis between (the end
    of a long kernel name is what tells it from its neighbours): ``formatting.shorten_middle``."""
    return shorten_middle(text, max(width, 3))


def _bounded(text: str) -> str:
    """A line of at most MAX_LINE characters where it can be made so without losing a word of advice:
    the longest words (a kernel's name, a path, a list run together) are shortened in the middle, one at a
    time, down to NAME_WIDTH; words of prose are never cut, so a longer line is printed whole."""
    if len(text) <= MAX_LINE:
        return text
    words = text.split(" ")
    for i in sorted(range(len(words)), key=lambda k: -len(words[k])):
        if len(words[i]) <= NAME_WIDTH or sum(map(len, words)) + len(words) - 1 <= MAX_LINE:
            break
        words[i] = shorten_middle(words[i], NAME_WIDTH)
    return " ".join(words)


# characters a terminal's encoding may lack, spelled in ASCII; any other is written as an escape
_SPELLED = {"µ": "u", "×": "x", "…": "...", "—": "-", "–": "-", "·": "*", "≥": ">=", "≤": "<=", "→": "->"}


def _encodable(text: str, encoding: str) -> str:
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:
        return text
    out = []
    for ch in text:
        try:
            ch.encode(encoding)
            out.append(ch)
        except UnicodeEncodeError:
            spelled = _SPELLED.get(ch, ascii(ch)[1:-1])
            out.append(spelled if all(ord(c) < 128 for c in spelled) else "?")
    return "".join(out)


def _write(stream, line: str) -> None:
    """One line for a person: escaped, its long names shortened (``_bounded``), in the stream's encoding."""
    text = _bounded(printable(line))
    stream.write(_encodable(text, getattr(stream, "encoding", None) or "utf-8") + "\n")


def print_line(line: str) -> None:
    if sys.stdout is None:
        raise OutputClosed
    _write(sys.stdout, line)


# -- text formatting ---------------------------------------------------------------------------------

_PREFIXES = {
    -24: "y",
    -21: "z",
    -18: "a",
    -15: "f",
    -12: "p",
    -9: "n",
    -6: "µ",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
    21: "Z",
    24: "Y",
}
_ATTACHED = {"s", "B", "b", "FLOP", "op", "ops", "Hz", "W", "J"}


def si(value, unit: str = "", digits: int = 4) -> str:
    """``3.35e12, "B/s"`` → ``3.35 TB/s``; units that are not SI-like get a spaced prefix (``1.5 k cycles``)."""
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if unit.startswith("×"):  # normalized machines: fractions of peak, no prefixes
        return f"{num(value, digits)} {unit}"
    if value == 0 or math.isinf(value):
        return f"{num(value, digits)} {unit}".strip()
    exp = max(-24, min(24, int(math.floor(math.log10(abs(value)) / 3)) * 3))
    text = f"{value / 10**exp:.{digits}g}"
    if abs(float(text)) >= 1000 and exp < 24:
        exp += 3
        text = f"{value / 10**exp:.{digits}g}"
    prefix = _PREFIXES[exp]
    if not unit:
        return f"{text}{prefix}"
    if not prefix:
        return f"{text} {unit}"
    attached = unit.split("/")[0] in _ATTACHED
    return f"{text} {prefix}{unit}" if attached else f"{text} {prefix} {unit}"


def num(value, digits: int = 4) -> str:
    value = float(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}g}"


def pct(fraction) -> str:
    fraction = float(fraction)
    return "n/a" if math.isnan(fraction) else f"{100 * fraction:.1f}%"


def table(header, rows, right=(), indent="") -> list[str]:
    """Aligned columns; a cell longer than NAME_WIDTH (a kernel's name) keeps its start and end."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"  # widths as the terminal will show them

    def cell(text):
        return _encodable(printable(text), encoding)

    # each column's cells shortened by the one rule, names that would shorten alike told apart (#1, #2);
    # the last column (guidance, a note) is prose and stays whole
    columns = list(zip(*rows)) if rows else []
    shortened = [shorten_names(col, NAME_WIDTH) if c < len(columns) - 1 else list(col) for c, col in enumerate(columns)]
    lines = [[cell(text) for text in header]] if header else []
    lines += [[cell(text) for text in row] for row in zip(*shortened)]
    widths = [max(len(str(r[c])) for r in lines) for c in range(len(lines[0]))]
    out = []
    for row in lines:
        cells = [str(cell).rjust(widths[c]) if c in right else str(cell).ljust(widths[c]) for c, cell in enumerate(row)]
        out.append(indent + "  ".join(cells).rstrip())
    return out
