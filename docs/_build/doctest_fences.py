"""A griffe extension: the doctest runs in our docstrings (``>>>`` lines and their output) are fenced
as Python console code, so the API pages show them as code and Markdown reads nothing inside them
(``[1, 2][0]`` is a list, not a link)."""

from __future__ import annotations

import re

import griffe

_PROMPT = re.compile(r"^(\s*)>>> ")
# doctest's directives ("# doctest: +SKIP") steer the test run; a reader copying the line needs none
_DIRECTIVE = re.compile(r"\s*#\s*doctest:\s*[+-]\w+(?:\s*,\s*[+-]\w+)*\s*$")


def fence_doctests(text: str) -> str:
    """Wrap each run of lines that starts with ``>>>`` (up to the next blank line) in a fence, without
    doctest's directives (``# doctest: +SKIP``)."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        match = _PROMPT.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        indent = match.group(1)
        block = []
        while i < len(lines) and lines[i].strip():
            line = lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i].lstrip()
            block.append(_DIRECTIVE.sub("", line))
            i += 1
        out += ["", f"{indent}```pycon", *(indent + line for line in block), f"{indent}```", ""]
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None and ">>> " in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
