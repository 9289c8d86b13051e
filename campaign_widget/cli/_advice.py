"""A reader's error in the command line's words: keyword-argument advice (``pass params={...}``) in
flags (``--param N=...``), by one table (``_reader_flags``)."""

from __future__ import annotations

import ast
import re

from ..errors import WorkloadFileError
from ..model.presets import MACHINES
from ._arguments import TRANSFORMER_PASS
from ._reader_flags import READER_FLAGS, READER_OPTIONS

_KEYWORD = re.compile(r"(?<![\w.\-=])([A-Za-z_][A-Za-z0-9_]*)=(?!=)")
_CLOSING = {"{": "}", "[": "]", "(": ")"}


# advice a Python caller can follow and a command-line user cannot, and what the command line offers instead
_PYTHON_ONLY = (
    (
        re.compile(r"\(e\.g\. campaign_widget\.Machine\.measure\(\) for a CPU trace, or a preset for a GPU\)"),
        "(a preset for a GPU; for a CPU trace, any preset with --peak-compute X --peak-bandwidth Y, the CPU's peaks)",
    ),
)


def for_command_line(message: str) -> str:
    """A reader's message with its keyword-argument advice (``pass params={'N': ...}``) in flags
    (``pass --param N=...``): keywords in ``READER_FLAGS`` always, any other keyword where the message
    tells the caller to pass it; advice only Python can follow is replaced by what the flags offer."""
    for python, flags in _PYTHON_ONLY:
        message = python.sub(flags, message)
    out, done = [], 0
    for m in _KEYWORD.finditer(message):
        if m.start() < done:
            continue
        name, end = m.group(1), _value_end(message, m.end())
        value = message[m.end() : end]
        if name in READER_FLAGS:
            text = _flag(name, value, message)
        elif re.search(r"\bpass\b[^;]*$", message[: m.start()]):
            text = f"--option {name}={_plain(value) or 'VALUE'}"
        else:
            continue
        out += [message[done : m.start()], text]
        done = end
    out.append(message[done:])
    return "".join(out)


def _value_end(text: str, start: int) -> int:
    """Where a Python value written at ``text[start:]`` ends (brackets and quotes balanced)."""
    if start >= len(text):
        return start
    first = text[start]
    if first in _CLOSING:
        depth, quote = 0, None
        for i in range(start, len(text)):
            ch = text[i]
            if quote:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch in _CLOSING:
                depth += 1
            elif ch in _CLOSING.values():
                depth -= 1
                if depth == 0:
                    return i + 1
        return len(text)
    if first in "'\"":
        close = text.find(first, start + 1)
        return len(text) if close < 0 else close + 1
    m = re.compile(r"[^\s,;)]*").match(text, start)
    return m.end()


def literal_text(value: str):
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _plain(value: str) -> str:
    """A Python value as the command line writes it: ``('a', 'b')`` → ``a,b``, ``'x'`` → ``x``."""
    parsed = literal_text(value) if value else None
    if isinstance(parsed, (tuple, list)):
        return ",".join(str(v) for v in parsed)
    if parsed is not None and not isinstance(parsed, dict):
        return str(parsed)
    return value


def _flag(name: str, value: str, message: str) -> str:
    flag = READER_FLAGS[name]
    if name == "machine":
        listed = all(key in message for key in MACHINES)
        return f"{flag} NAME" + ("" if listed else f" (presets: {', '.join(MACHINES)})")
    if name == "params":
        parsed = literal_text(value)
        if isinstance(parsed, dict) and parsed:
            pairs = [(k, "..." if v is Ellipsis else v) for k, v in parsed.items()]
        else:
            pairs = [(k, "...") for k in re.findall(r"['\"]([^'\"]+)['\"]\s*:", value)]
        return " ".join(f"{flag} {k}={v}" for k, v in pairs) if pairs else f"{flag} NAME=VALUE"
    if name == "percent":
        return flag
    metavar = next(o.metavar for o in READER_OPTIONS if o.keyword == name)
    return f"{flag} {_plain(value) or metavar}"


# a transformer's keyword (every flag of ``--transformer``) as the model's message writes it (``batch=0``,
# ``stage='decode'``, or the name a sentence is about: "kv_len is for ...", "needs new_tokens"), to be said as its flag
_PASS_NAMES = "|".join(sorted(TRANSFORMER_PASS, key=len, reverse=True))
_PASS_KEYWORD = re.compile(
    rf"(?<![\w.\-])({_PASS_NAMES})(?:=(['\"]?)([^\s,;)'\"]*)\2|(?= (?:is|must|has)\b))|(?<=needs )({_PASS_NAMES})\b"
)


def transformer_error(message: str) -> str:
    """A message of ``Workload.from_transformer`` in the command line's words: ``batch=0`` → ``--batch 0``,
    ``stage='decode'`` → ``--stage decode``, ``kv_len is for …`` → ``--kv-len is for …``."""

    def flag(m: re.Match) -> str:
        name = "--" + (m.group(1) or m.group(4)).replace("_", "-")
        return name if m.group(3) is None else f"{name} {m.group(3)}"

    return _PASS_KEYWORD.sub(flag, message)


def reader_error(e: Exception) -> str:
    """A reader's error in the command line's words (its field too, when the field is an option)."""
    if type(e) is WorkloadFileError:
        field = e.field
        if field is not None:
            field = READER_FLAGS.get(field, field)
        return str(WorkloadFileError(for_command_line(e.reason), path=e.path, line=e.line, field=field))
    return for_command_line(str(e))
