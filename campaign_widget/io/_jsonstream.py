"""Chrome-trace JSON read in batches of events by msgspec, with memory bounded by one batch.

``iter_batches(stream, metadata, notes)`` yields ``(first_index, first_line, events, typed)`` where
``events`` is a list of :class:`Event` (the fields a trace importer uses; every other field is skipped by
the parser without being built) when ``typed``; otherwise some of them are plain JSON values (events of
unexpected types) for the caller to check one by one.

How a batch is cut: the text read so far is cut after its last ``},`` and parsed as one JSON array. A cut
inside a string or inside an event cannot parse (its brackets or quotes do not close), so a batch that
parses is a run of whole events; one that does not is split exactly (:func:`_split`, a vectorized scan of
strings and brackets) and its events are parsed one at a time, which also finds the event and the line
of malformed JSON. The file's top level (an object with a ``traceEvents`` array, other scalar keys going
into ``metadata``, or a bare array whose closing ``]`` may be missing) is read with the same exact scan.

Bounds: one event (or top-level value) over ``MAX_VALUE`` bytes is refused, as is nesting deeper than
``MAX_DEPTH`` wherever the exact scan runs (msgspec bounds the depth of what it parses itself).
"""

from __future__ import annotations

import math
import re
from typing import Any, Union

import msgspec
import numpy as np

from ..errors import TraceSyntaxError

CHUNK = 4 << 20
MAX_VALUE = 16 << 20  # one event larger than this (16 MiB) is refused rather than read whole
MAX_DEPTH = 64  # nesting inside one event
KEPT_OBJECTS = ("distributedInfo",)  # top-level objects kept in the metadata: a job's rank and world size
_BLANK = b" \t\n\r"
_NOT_BLANK = re.compile(rb"[^ \t\n\r]")
_BYTE = re.compile(r"\(byte (\d+)\)")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(rb"[^\s,\]}]+")


class Args(msgspec.Struct, gc=False):
    """The ``args`` of an event, as far as the importer reads them."""

    external_id: Any = msgspec.field(name="External id", default=None)
    external_id_lower: Any = msgspec.field(name="external id", default=None)  # PyTorch 1.8-1.9
    correlation: Any = None
    input_dims: msgspec.Raw = msgspec.field(name="Input Dims", default=msgspec.Raw())
    input_type: msgspec.Raw = msgspec.field(name="Input type", default=msgspec.Raw())
    concrete_inputs: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=msgspec.Raw())
    flops: Any = None
    kernel_flop: Any = None
    dram_read: Any = msgspec.field(name="dram__bytes_read.sum", default=None)
    dram_write: Any = msgspec.field(name="dram__bytes_write.sum", default=None)
    bytes: Any = None


class Event(msgspec.Struct, tag_field="ph", tag="X", gc=False):
    """One complete event (``"ph": "X"``); a missing ``ts`` or ``dur`` is NaN."""

    cat: str | None = None
    name: str | None = None
    ts: int | float = math.nan
    dur: int | float = math.nan
    pid: int | float | str | None = None
    tid: int | float | str | None = None
    args: Args | None = None


# Events of every other phase the Chrome trace format defines are parsed into empty structs: only their
# phase is read (the parser skips the rest without building it).
PHASES = ("B", "E", "i", "I", "C", "b", "n", "e", "s", "t", "f", "P", "O", "N", "D", "M", "R", "c", "(", ")", "S", "T", "F", "p", "V", "v")  # fmt: skip
NOT_COMPLETE = tuple(msgspec.defstruct(f"Phase{k}", [], tag_field="ph", tag=p, gc=False) for k, p in enumerate(PHASES))
PHASE_OF = {cls: p for cls, p in zip(NOT_COMPLETE, PHASES)}
AnyEvent = Union[(Event, *NOT_COMPLETE)]  # noqa: UP007
_EVENTS = msgspec.json.Decoder(list[AnyEvent])
_EVENT = msgspec.json.Decoder(AnyEvent)
_ANY = msgspec.json.Decoder()


def as_event(value) -> Event | None:
    """A plain JSON value as an Event, or None when its fields have the wrong types."""
    try:
        return _EVENT.decode(msgspec.json.encode(value))
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None


class _Reader:
    def __init__(self, stream):
        self.stream = stream
        self.buf = bytearray(b" ")  # a spare byte before pos: the batch's '[' is written there
        self.pos = 1
        self.line = 1  # the line at self.pos
        self.eof = False
        self.first = True

    def fill(self, at_least: int = 0) -> bool:
        """Read one more chunk (dropping what was consumed); False at the end of the file."""
        if self.eof:
            return False
        data = self.stream.read(max(CHUNK, at_least))
        if self.first:
            self.first = False
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
        if not data:
            self.eof = True
            return False
        self.buf = bytearray().join((b" ", memoryview(self.buf)[self.pos :], data))
        self.pos = 1
        return True

    def advance(self, end: int) -> None:
        self.line += self.buf.count(b"\n", self.pos, end)
        self.pos = end

    def skip_blank(self) -> bytes:
        """The next non-blank byte (b'' at the end of the file), not consumed."""
        while True:
            found = _NOT_BLANK.search(self.buf, self.pos)
            if found is not None:
                self.advance(found.start())
                return self.buf[self.pos : self.pos + 1]
            self.advance(len(self.buf))
            if not self.fill():
                return b""

    def error(self, message: str, at: int | None = None, event: int | None = None) -> TraceSyntaxError:
        line = self.line if at is None else self.line + self.buf.count(b"\n", self.pos, at)
        return TraceSyntaxError(message, line, event)

    def value_end(self, event: int | None = None) -> int:
        """The end of the JSON value at ``pos`` (which is not blank), reading more as needed."""
        while True:
            c = self.buf[self.pos : self.pos + 1]
            if c in (b"{", b"["):
                window = 1 << 16  # most top-level values are short: scan a growing window, not the buffer
                while True:
                    seps, close, depth, complete = _split(self.buf, self.pos + 1, window)
                    if depth > MAX_DEPTH:
                        raise self.error(f"the value starting on line {self.line} is nested too deeply", event=event)
                    if close is not None:
                        return close + 1
                    if self.pos + 1 + window >= len(self.buf):
                        break
                    window *= 4
            elif c == b'"':
                m = _STRING.match(self.buf, self.pos)
                if m is not None:
                    return m.end()
            else:
                m = _SCALAR.match(self.buf, self.pos)
                if m is not None and (m.end() < len(self.buf) or self.eof):
                    return m.end()
            if len(self.buf) - self.pos > MAX_VALUE:
                raise self.error(
                    f"the value starting on line {self.line} is over {MAX_VALUE:,} characters: "
                    "the limit for one trace event",
                    event=event,
                )
            if not self.fill():
                raise self.error(
                    f"truncated JSON: the file ends (in the value starting on line {self.line})",
                    at=len(self.buf),
                    event=event,
                )

    def decode(self, end: int, event: int | None = None):
        try:
            return _ANY.decode(self.buf[self.pos : end])
        except RecursionError:
            raise self.error(f"the value starting on line {self.line} is nested too deeply", event=event) from None
        except msgspec.DecodeError as e:
            raise self._malformed(e, self.pos, event) from None

    def _malformed(self, e, start: int, event: int | None, offset: int = 0) -> TraceSyntaxError:
        m = _BYTE.search(str(e))
        at = start + int(m.group(1)) - offset if m else start
        reason = str(e).split(": ", 1)[-1]
        reason = _BYTE.sub("", reason).strip()
        line = self.line + self.buf.count(b"\n", self.pos, start)
        return self.error(f"malformed JSON: {reason} (in the value starting on line {line})", at=at, event=event)

    def expect(self, chars: bytes, what: str) -> bytes:
        c = self.skip_blank()
        if c == b"":
            raise self.error(f"truncated JSON: the file ends where {what} was expected")
        if c not in chars:
            raise self.error(f"malformed JSON: expected {what}, found {c.decode('latin-1')!r}")
        self.advance(self.pos + 1)
        return c


def iter_batches(stream, metadata: dict, notes: list):
    """Yield ``(first_index, first_line, events, typed)`` for the elements of the trace's event array.

    An object with a ``traceEvents`` array (other top-level keys go into ``metadata`` when they are
    scalars) or a bare array of events, whose closing ``]`` the format allows to be missing (a note then
    says so).
    """
    r = _Reader(stream)
    first = r.skip_blank()
    if first == b"":
        raise TraceSyntaxError("empty file: expected a JSON trace", 1)
    if first == b"[":
        r.advance(r.pos + 1)
        yield from _array(r, notes, closing_optional=True)
        _end(r)
        return
    if first != b"{":
        raise r.error(f"malformed JSON: a trace starts with '{{' or '[', found {first.decode('latin-1')!r}")
    r.advance(r.pos + 1)
    found = False
    if r.skip_blank() == b"}":
        r.advance(r.pos + 1)
    else:
        while True:
            if r.skip_blank() != b'"':
                raise r.error("malformed JSON: an object key must be a string")
            key = r.decode(r.value_end())
            r.advance(r.value_end())
            r.expect(b":", "':' after a key")
            if key == "traceEvents":
                if r.skip_blank() != b"[":
                    raise r.error("traceEvents must be an array of events")
                r.advance(r.pos + 1)
                found = True
                yield from _array(r, notes, closing_optional=False)
            else:
                r.skip_blank()
                end = r.value_end()
                if r.buf[r.pos : r.pos + 1] not in (b"{", b"[") or key in KEPT_OBJECTS:
                    value = r.decode(end)
                    if isinstance(value, (str, int, float, bool)) or value is None or key in KEPT_OBJECTS:
                        metadata[key] = value
                r.advance(end)
            if r.expect(b",}", "',' or '}' after a top-level value") == b"}":
                break
    _end(r)
    if not found:
        raise TraceSyntaxError("no 'traceEvents' array in this JSON object: not a Chrome/PyTorch trace", 1)


def _array(r: _Reader, notes: list, closing_optional: bool):
    """The events of an array whose '[' was consumed, in batches; consumes the closing ']'."""
    index = 0
    if r.skip_blank() == b"]":
        r.advance(r.pos + 1)
        return
    while True:
        if r.skip_blank() == b"" and closing_optional:  # '[' then nothing
            return
        buf = r.buf
        cut = buf.rfind(b"},", r.pos)
        if cut >= 0 and cut + 1 - r.pos <= MAX_VALUE:
            buf[r.pos - 1], buf[cut + 1] = 91, 93  # "[" before the batch, "]" for its comma after: no copy
            try:
                events = _EVENTS.decode(memoryview(buf)[r.pos - 1 : cut + 2])
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                events = None
                buf[cut + 1] = 44
            if events is not None:
                yield index, r.line, events, True
                index += len(events)
                r.advance(cut + 2)
                if not r.eof and len(r.buf) - r.pos < CHUNK:
                    r.fill()
                continue
        if not r.eof and len(r.buf) - r.pos < MAX_VALUE + CHUNK and cut < 0:
            r.fill(len(r.buf) - r.pos)  # no whole event yet: read as much again (linear however long)
            continue
        done, index = yield from _exact(r, index, notes, closing_optional)
        if done:
            return


def _exact(r: _Reader, index: int, notes: list, closing_optional: bool):
    """Split the pending text exactly into events and parse them one by one. Returns (array ended, index)."""
    seps, close, depth, complete = _split(r.buf, r.pos)
    if depth > MAX_DEPTH:
        raise r.error(f"an event is nested deeper than {MAX_DEPTH} levels", event=index)
    if close is not None and close > r.pos:  # the array's end is here: its events as one batch if they parse
        buf = r.buf
        buf[r.pos - 1] = 91
        try:
            events = _EVENTS.decode(memoryview(buf)[r.pos - 1 : close + 1])
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            events = None
        if events is not None and all(end - start <= MAX_VALUE for start, end in zip([r.pos, *seps], [*seps, close])):
            yield index, r.line, events, True
            r.advance(close + 1)
            return True, index + len(events)
    ends = list(seps) + ([close] if close is not None else [])
    if close is None and r.eof and closing_optional and complete:
        ends.append(len(r.buf))  # the bare array's last event without ']'
    out, start = [], r.pos
    batch_line, batch_index = r.line, index
    for end in ends:
        lead = len(r.buf[start:end]) - len(r.buf[start:end].lstrip(_BLANK))
        if start + lead == end:  # nothing between separators: "[,]" or a trailing comma
            if end == close and closing_optional and out:
                break
            raise r.error("malformed JSON: a missing value in the event array", at=end, event=index)
        if end - start > MAX_VALUE:
            raise r.error(
                f"the event starting on line {r.line} is over {MAX_VALUE:,} characters: the limit for one trace event",
                event=index,
            )
        text = r.buf[start:end]
        try:
            try:
                out.append(_EVENT.decode(text))
            except msgspec.ValidationError:  # fields of unexpected types: the caller counts it
                out.append(_ANY.decode(text))
        except RecursionError:
            raise r.error("an event is nested too deeply", at=start, event=index) from None
        except msgspec.DecodeError as e:
            if r.eof and end == len(r.buf):
                raise r.error("truncated JSON: the file ends (in the last event)", at=end, event=index) from None
            raise r._malformed(e, start, index) from None
        index += 1
        start = end + 1
    if out:
        yield batch_index, batch_line, out, False
    if close is not None:
        r.advance(close + 1)
        return True, index
    if r.eof:
        if closing_optional and (ends and ends[-1] == len(r.buf)):
            r.advance(len(r.buf))
            notes.append(
                f"the event array has no closing ']' after event #{index - 1}; the Chrome trace format "
                "allows that for the JSON Array Format"
            )
            return True, index
        if start >= len(r.buf) or not r.buf[start:].strip(_BLANK):
            raise r.error(f"truncated JSON: the file ends after event #{index - 1}", at=len(r.buf), event=index - 1)
        raise r.error("truncated JSON: the file ends", at=len(r.buf), event=index)
    r.advance(start if start <= len(r.buf) else len(r.buf))
    if len(r.buf) - r.pos > MAX_VALUE:
        raise r.error(
            f"the event starting on line {r.line} is over {MAX_VALUE:,} characters: the limit for one trace event",
            event=index,
        )
    r.fill(len(r.buf) - r.pos)
    return False, index


def _split(buf, start: int, limit: int | None = None):
    """Scan ``buf[start:]``, which starts outside any string inside a sequence (an array's or an object's
    content): ``(separators, close, depth, complete)`` — the positions of the commas at the sequence's own
    level, of the bracket that closes it (None when not in ``buf``), the deepest nesting seen, and whether
    the text after the last separator is outside any string."""
    count = len(buf) - start if limit is None else min(limit, len(buf) - start)
    a = np.frombuffer(buf, dtype=np.uint8, offset=start, count=count)
    quotes = np.flatnonzero(a == 34)
    if quotes.size:
        escaped = quotes[(quotes > 0) & (a[quotes - 1] == 92)]
        if escaped.size:
            drop = []
            for q in escaped.tolist():
                run = q - 1
                while run >= 0 and a[run] == 92:
                    run -= 1
                if (q - 1 - run) % 2:
                    drop.append(q)
            quotes = np.setdiff1d(quotes, drop, assume_unique=True)
    marks = np.flatnonzero((a == 44) | (a == 123) | (a == 125) | (a == 91) | (a == 93))
    if quotes.size:
        marks = marks[(np.searchsorted(quotes, marks) & 1) == 0]  # outside strings
    kind = a[marks]
    step = np.where((kind == 123) | (kind == 91), 1, np.where(kind == 44, 0, -1))
    depth = np.cumsum(step)
    closing = np.flatnonzero(depth < 0)
    if closing.size:
        last = closing[0]
        marks, kind, depth = marks[: last + 1], kind[: last + 1], depth[: last + 1]
        close = int(marks[last]) + start
    else:
        close = None
    seps = marks[(kind == 44) & (depth == 0)] + start
    deepest = int(depth.max(initial=0))
    tail_from = (int(seps[-1]) - start) if seps.size else 0
    complete = int(np.count_nonzero(quotes >= tail_from)) % 2 == 0 and (depth[-1] == 0 if depth.size else True)
    return seps.tolist(), close, deepest + 1, complete


def _end(r: _Reader) -> None:
    c = r.skip_blank()
    if c != b"":
        raise r.error(f"malformed JSON: extra data after the trace ({c.decode('latin-1')!r})")
