"""One map of an SDFG as the loop nest of single-element accesses its tasklets run (for the local view)."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkloadError, short_repr
from ...model.einsum import Einsum
from ...model.expr import evaluate, parse
from .._common import error
from ._expressions import linear, linear_text, parses, substitute
from ._model import ELEMENT_BYTES
from ._program import extract_sdfg, given_params, params_hint


@dataclass(frozen=True)
class SDFGMap:
    """One map of an SDFG as the loop nest its tasklets run: each memlet crossing the map's entry
    (a read) or exit (the write) is one access per iteration, its subset's start the index expression.

    ``params``: the map's parameters, outermost first; ``starts``/``steps``: each one's range start and
    step; ``sizes``: its iteration count at the symbol values (None where a symbol has no value).
    ``einsum``: the accesses as an ``Einsum`` whose loop indices run from 0 (index ``i`` stands for
    ``start + step·i``), reads in the file's memlet order, then the write; ``element_bytes``: per
    container; ``unused``: parameters no memlet uses (left out of the loop nest); ``notes``: what the
    trace takes as given (write-conflict resolution, dynamic memlets)."""

    path: str
    phase: str
    params: tuple
    starts: dict
    steps: dict
    sizes: dict
    einsum: object
    element_bytes: dict
    unused: tuple = ()
    notes: tuple = ()

    @property
    def loop_order(self) -> list:
        """The map's parameters that index some memlet, outermost first."""
        return [p for p in self.params if p not in self.unused]


class _Map:
    """The map being traced: where it is, the symbols' values, and errors that name both."""

    def __init__(self, program, phase: str, m: dict, values: dict):
        self.path, self.phase, self.m, self.values = program.path, phase, m, values
        self.names = list(m["params"])

    def fail(self, message: str):
        return error(self.path, f"map {self.phase!r}: {message}")

    def number(self, text: str, what: str) -> int:
        try:
            value = evaluate(text, self.values)
        except WorkloadError as failure:
            missing = sorted(parse(text).names - set(self.values)) if parses(text) else []
            if missing:
                raise self.fail(f"{what} {text!r} needs values for {missing}: pass {params_hint(missing)}") from None
            raise self.fail(f"{what} {text!r}: {failure}") from None
        if int(value) != value:
            raise self.fail(f"{what} {text!r} = {value} is not whole")
        return int(value)

    def ranges(self) -> tuple[dict, dict, dict]:
        """Each parameter's range start, step and iteration count (None where a symbol has no value)."""
        starts, steps, sizes = {}, {}, {}
        for name, (start, end, step) in zip(self.names, self.m["ranges"]):
            starts[name] = self.number(start, f"the range start of {short_repr(name)}")
            steps[name] = self.number(step, f"the range step of {short_repr(name)}")
            if steps[name] < 1:
                raise self.fail(f"{short_repr(name)} has step {step!r}; the local view traces maps with positive steps")
            try:
                sizes[name] = (self.number(end, f"the range end of {short_repr(name)}") - starts[name]) // steps[
                    name
                ] + 1
            except WorkloadError:
                sizes[name] = None  # the view takes local sizes; the full size is for information
        return starts, steps, sizes

    def index(self, memlet: dict, side: str, shift: dict) -> tuple:
        """A single-element memlet's index expressions, in the loop indices that run from 0."""
        subset = memlet["subset"]
        what = f"the {side} of {memlet['data']!r} ({memlet['where']})"
        if not subset:
            raise self.fail(f"{what} has no subset")
        out = []
        for start, end, _ in subset:
            a, b = linear(start, {}), linear(end, {})
            if not (a == b if a is not None and b is not None else start.strip() == end.strip()):
                shown = ", ".join(a if a == b else f"{a}:{b}" for a, b, _ in subset)
                raise self.fail(
                    f"{what} moves {memlet['data']}[{shown}], a range, not one element: the local "
                    "view traces maps whose memlets are single-element accesses"
                )
            text = substitute(start, {**shift, **{k: str(v) for k, v in self.values.items() if k not in self.names}})
            loose = sorted((parse(text).names if parses(text) else set()) - set(self.names))
            if loose:
                raise self.fail(
                    f"{what}: index {start!r} uses {loose}, which have no values: pass {params_hint(loose)}"
                )
            out.append(linear_text(text, self.names))
        return tuple(out)

    def widths(self, containers, element_bytes) -> dict:
        widths = {}
        dtypes = self.m["dtypes"]
        for container in containers:
            if isinstance(element_bytes, int) and not isinstance(element_bytes, bool):
                widths[container] = element_bytes
            elif isinstance(element_bytes, dict) and container in element_bytes:
                widths[container] = int(element_bytes[container])
            elif dtypes.get(container) in ELEMENT_BYTES:
                widths[container] = ELEMENT_BYTES[dtypes[container]]
            else:
                raise self.fail(
                    f"container {container!r} has dtype={short_repr(dtypes.get(container))}; pass "
                    f"element_bytes={{{container!r}: ...}}"
                )
        return widths

    def uses(self, texts) -> tuple:
        """The map's parameters the index expressions name, in first-use order."""
        return tuple(dict.fromkeys(n for x in texts if parses(x) for n in self.names if n in parse(x).names))


def map_accesses(path, phase: str, *, params=None, element_bytes=None) -> SDFGMap:
    """The map named ``phase`` (as ``read_sdfg`` names the phase: its label, ``#2`` … when repeated) of an
    SDFG file as a loop nest of single-element accesses (``SDFGMap``), for ``LocalView.from_sdfg``.

    ``params``: values of the SDFG's symbols that the map's ranges or its memlets' index expressions
    use (the SDFG's constants fill in the rest). ``element_bytes``: an int for every container or
    ``{container: bytes}``; default each container's ``dtype``. A memlet that moves a range rather
    than one element, a map writing several memlets, or a symbol without a value raise a
    ``WorkloadFileError`` naming the file, the phase, the memlet and the value.
    """
    program = extract_sdfg(path, element_bytes=element_bytes)
    m = _the_map(program, phase, params)
    values = {**program.constants, **dict(params or {})}
    trace = _Map(program, phase, m, values)
    names = trace.names
    starts, steps, sizes = trace.ranges()
    shift = {
        n: (f"{steps[n]}*{n}" if steps[n] != 1 else n) + (f" + {starts[n]}" if starts[n] else "")
        for n in names
        if starts[n] or steps[n] != 1
    }
    if not m["writes"]:
        raise trace.fail("writes nothing the view could trace")
    if len(m["writes"]) > 1:
        shown = [f"{w['data']} ({w['where']})" for w in m["writes"]]
        raise trace.fail(
            f"writes {len(shown)} memlets {shown}; the local view traces maps with one written element per iteration"
        )
    reads = [(r["data"], trace.index(r, "read", shift)) for r in m["reads"]]
    write = m["writes"][0]
    out_exprs = trace.index(write, "write", shift)
    einsum = Einsum(
        phase,
        write["data"],
        trace.uses(out_exprs),
        tuple((t, trace.uses(xs)) for t, xs in reads if t != write["data"]),
        None,
        tuple(reads),
        out_exprs,
    )
    widths = trace.widths(dict.fromkeys([t for t, _ in reads] + [write["data"]]), element_bytes)
    used = set(trace.uses([x for _, xs in [*reads, (write["data"], out_exprs)] for x in xs]))
    unused = tuple(n for n in names if n not in used)
    return SDFGMap(
        path=program.path,
        phase=phase,
        params=tuple(names),
        starts=starts,
        steps=steps,
        sizes=sizes,
        einsum=einsum,
        element_bytes=widths,
        unused=unused,
        notes=tuple(_notes(m, write, shift, names, unused)),
    )


def _the_map(program, phase: str, params) -> dict:
    maps = [p.name for p in program.phases if p.map is not None]
    found = [p for p in program.phases if p.name == phase]
    if not found:
        raise error(program.path, f"the SDFG has no phase {short_repr(phase)}; its maps: {maps}")
    p = found[0]
    if p.map is None:
        raise error(program.path, f"phase {short_repr(phase)} is a {p.kind}, not a map; its maps: {maps}")
    given_params(program, params)
    m = p.map
    if "error" in m:
        raise error(program.path, f"map {short_repr(phase)} cannot be traced: {m['error']}")
    if len(m["ranges"]) != len(m["params"]):
        raise error(
            program.path,
            f"map {short_repr(phase)}: {len(m['params'])} parameters {list(m['params'])} but {len(m['ranges'])} ranges "
            f"({m['where']})",
        )
    return m


def _notes(m: dict, write: dict, shift: dict, names: list, unused: tuple) -> list[str]:
    """What the trace takes as given."""
    notes = []
    if write.get("wcr"):
        notes.append(
            f"{write['data']}: written with write-conflict resolution ({short_repr(write['wcr'])}): one access "
            "per iteration, as any write"
        )
    for r in [*m["reads"], write]:
        if r["dynamic"]:
            notes.append(f"{r['data']} ({r['where']}): a dynamic memlet, traced as one access per iteration")
    if shift:
        notes.append(
            "the loop indices run from 0: "
            + ", ".join(f"the map's {n} is {linear_text(shift[n], names)}" for n in shift)
        )
    if unused:
        notes.append(f"parameters {list(unused)} index no memlet: the traced loop nest leaves them out")
    return notes
