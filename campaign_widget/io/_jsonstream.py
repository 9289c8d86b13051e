"""An incremental reader for Chrome-trace JSON: yields the elements of ``traceEvents`` one at a time.

Memory stays at one read chunk plus the event being parsed, whatever the file's size. Each value is
parsed by the standard library's C scanner (``json.JSONDecoder.raw_decode``) from a sliding text
buffer; a value cut by the end of the buffer is retried with more text, and one cut by the end of the
file is reported as truncated, with the line where it starts.
"""

from __future__ import annotations

import codecs
import json
import re

from ..errors import TraceSyntaxError  # noqa: F401

CHUNK = 1 << 20
MAX_VALUE = 16 << 20  # one event larger than this (16 MiB) is refused rather than read whole
MAX_DEPTH = 64  # nesting inside one event
_WS = " \t\n\r"
_NOT_WS = re.compile(r"[^ \t\n\r]")


class _Buffer:
    def __init__(self, stream, chunk: int | None = None):
        self.stream = stream
        self.chunk = chunk or CHUNK
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # line number at self.counted
        self.counted = 0
        self.decode = json.JSONDecoder().raw_decode

    def line_at(self, pos: int) -> int:
        if pos > self.counted:
            self.line += self.buf.count("\n", self.counted, pos)
            self.counted = pos
        return self.line

    def fill(self, size: int | None = None) -> bool:
        """Append one more chunk (at least ``size`` bytes when given); False at the end of the file."""
        if self.eof:
            return False
        data = self.stream.read(max(self.chunk, size or 0))
        if not data:
            self.eof = True
            tail = self.decoder.decode(b"", final=True)
            self.buf += tail
            return bool(tail)
        text = self.decoder.decode(data)
        if self.pos > self.chunk:  # drop what was consumed, keeping line counts right
            self.line_at(self.pos)
            self.buf = self.buf[self.pos :]
            self.counted -= self.pos
            self.pos = 0
        self.buf += text
        return True

    def skip_ws(self) -> str:
        """The next non-blank character ('' at the end of the file), not consumed."""
        while True:
            found = _NOT_WS.search(self.buf, self.pos)
            if found is not None:
                self.pos = found.start()
                return self.buf[self.pos]
            self.line_at(len(self.buf))
            self.pos = len(self.buf)  # all blank: consumed (fill drops it)
            if not self.fill():
                return ""

    def value(self, event: int | None = None):
        """Parse one JSON value at the current position."""
        self.skip_ws()
        start_line = self.line_at(self.pos)
        while True:
            try:
                value, end = self.decode(self.buf, self.pos)
            except RecursionError:
                raise TraceSyntaxError(
                    f"the value starting on line {start_line} is nested too deeply", start_line, event
                ) from None
            except json.JSONDecodeError as e:
                # a value cut by the buffer's end fails at (or just before) the end, or as an unterminated
                # string; anything else is malformed wherever it is
                cut = e.pos >= len(self.buf) - 6 or e.msg.startswith("Unterminated string")
                pending = len(self.buf) - self.pos
                if cut and pending > MAX_VALUE:
                    raise TraceSyntaxError(
                        f"the value starting on line {start_line} is over {MAX_VALUE:,} "
                        "characters: the limit for one trace event",
                        start_line,
                        event,
                    ) from None
                if cut and self.fill(pending):  # read as much again: linear time however long the value
                    continue
                where = self.line_at(min(e.pos, len(self.buf)))
                truncated = self.eof and (e.pos >= len(self.buf.rstrip()) or e.msg.startswith("Unterminated string"))
                what = "truncated JSON: the file ends" if truncated else f"malformed JSON: {e.msg}"
                raise TraceSyntaxError(f"{what} (in the value starting on line {start_line})", where, event) from None
            except ValueError as e:  # e.g. an integer of over 4,300 digits
                raise TraceSyntaxError(
                    f"malformed JSON: {str(e)[:120]} (in the value starting on line {start_line})", start_line, event
                ) from None
            if end >= len(self.buf) and not self.eof and self.fill():
                continue  # a number cut by the buffer's end may continue in the next chunk
            if end - self.pos > MAX_VALUE:
                raise TraceSyntaxError(
                    f"the value starting on line {start_line} is over {MAX_VALUE:,} characters: "
                    "the limit for one trace event",
                    start_line,
                    event,
                )
            self.pos = end
            return value

    def expect(self, chars: str, what: str, event: int | None = None) -> str:
        c = self.skip_ws()
        if c == "":
            raise TraceSyntaxError(
                f"truncated JSON: the file ends where {what} was expected", self.line_at(self.pos), event
            )
        if c not in chars:
            raise TraceSyntaxError(f"malformed JSON: expected {what}, found {c!r}", self.line_at(self.pos), event)
        self.pos += 1
        return c


def iter_trace(stream, metadata: dict, notes: list):
    """Yield ``(index, line, event)`` for each element of the trace's event array.

    Handles both Chrome trace layouts: an object with a ``traceEvents`` array (other top-level keys go
    into ``metadata`` when they are scalars), and a bare array of events, whose closing ``]`` the format
    allows to be missing (then a note says so).
    """
    b = _Buffer(stream)
    first = b.skip_ws()
    if first == "":
        raise TraceSyntaxError("empty file: expected a JSON trace", 1)
    if first == "[":
        yield from _array(b, notes, closing_optional=True)
        _end(b)
        return
    if first != "{":
        raise TraceSyntaxError(f"malformed JSON: a trace starts with '{{' or '[', found {first!r}", b.line_at(b.pos))
    b.pos += 1
    found = False
    if b.skip_ws() == "}":
        b.pos += 1
    else:
        while True:
            key = b.value()
            if not isinstance(key, str):
                raise TraceSyntaxError(f"malformed JSON: object key {key!r} is not a string", b.line_at(b.pos))
            b.expect(":", "':' after a key")
            if key == "traceEvents":
                if b.skip_ws() != "[":
                    raise TraceSyntaxError("traceEvents must be an array of events", b.line_at(b.pos))
                found = True
                yield from _array(b, notes, closing_optional=False)
            else:
                value = b.value()
                if isinstance(value, (str, int, float, bool)) or value is None:
                    metadata[key] = value
            if b.expect(",}", "',' or '}' after a top-level value") == "}":
                break
    _end(b)
    if not found:
        raise TraceSyntaxError("no 'traceEvents' array in this JSON object: not a Chrome/PyTorch trace", 1)


def _array(b: _Buffer, notes: list, closing_optional: bool):
    b.pos += 1  # '['
    index = 0
    if b.skip_ws() == "]":
        b.pos += 1
        return
    while True:
        line = b.line_at(b.pos)
        event = b.value(index)
        yield index, line, event
        index += 1
        c = b.skip_ws()
        if c == "" and closing_optional:
            notes.append(
                f"the event array has no closing ']' after event #{index - 1} (line {line}); the "
                "Chrome trace format allows that for the JSON Array Format"
            )
            return
        if c == "":
            raise TraceSyntaxError(
                f"truncated JSON: the file ends after event #{index - 1} (line {line})", b.line_at(b.pos), index - 1
            )
        if c == "]":
            b.pos += 1
            return
        if c != ",":
            raise TraceSyntaxError(
                f"malformed JSON: expected ',' or ']' after event #{index - 1}, found {c!r}",
                b.line_at(b.pos),
                index - 1,
            )
        b.pos += 1
        if b.skip_ws() == "]" and closing_optional:  # a trailing comma before ']'
            b.pos += 1
            return


def _end(b: _Buffer) -> None:
    c = b.skip_ws()
    if c != "":
        raise TraceSyntaxError(f"malformed JSON: extra data after the trace ({c!r})", b.line_at(b.pos))
