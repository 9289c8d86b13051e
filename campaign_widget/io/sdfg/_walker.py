"""Walking an SDFG: its control flow in execution order, each state's top-level scopes and copies as phases,
their ops (tasklets, library nodes, nested SDFGs, times each map's iterations) and their memlets' bytes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...errors import WorkloadError, WorkloadFileError, short_repr
from ...model.expr import parse
from ...model.graph import topological_order
from . import _reasons as reason
from ._control import block_order, trip_count
from ._doc import Doc, dig, join
from ._expressions import nest_count, paren, product, subset_ranges, subset_sizes, substitute
from ._model import ELEMENT_BYTES, SDFGPhase, dtype_of
from ._nest import NestedSum
from ._ops import LIBRARY_OPS, count_tasklet_ops, library_formula
from ._scope import ENTRY_TYPES, EXIT_TYPES, StateGraph

MAX_NESTING = 32  # nested SDFGs within nested SDFGs
REGIONS = ("ControlFlowRegion", "FunctionCallRegion", "NamedRegion", "UnstructuredControlFlow")
EMPTY_BLOCKS = ("BreakBlock", "ContinueBlock", "ReturnBlock")
KNOWN_BLOCKS = "SDFGState, LoopRegion, ConditionalBlock, " + ", ".join(REGIONS + EMPTY_BLOCKS)
_KINDS = {"Tasklet": "tasklet", "LibraryNode": "library", "Reduce": "library", "NestedSDFG": "nested"}


@dataclass
class _Walk:
    """What the walk of one SDFG builds, in execution order."""

    arrays: dict
    depth: int
    ops_only: bool
    phases: list = field(default_factory=list)
    names: Counter = field(default_factory=Counter)
    versions: dict = field(default_factory=dict)  # container -> versions written so far
    current: dict = field(default_factory=dict)  # container -> its tensor now
    tensors: dict = field(default_factory=dict)  # tensor -> container
    assigned: set = field(default_factory=set)  # names set by the control flow (loop variables, assignments)
    assignments: dict = field(default_factory=dict)  # name -> the values interstate edges give it
    guards: tuple = ()  # the branch conditions around the block being walked


@dataclass
class _Units:
    """A state's access nodes (views resolved to what they view) and phases, with the edges among them."""

    access: list  # top-level access nodes, file order
    data_of: dict  # access node -> container
    phase_keys: list  # top-level scope nodes, then ("copy", edge index) keys
    unit_in: dict
    unit_out: dict
    reads: dict  # phase key -> [(access, edge, where)]
    writes: dict
    copies: dict  # copy key -> (from access, to access, where, edge)


def _unique(items):
    return list(dict.fromkeys(items))


def _times(factor: str, term):
    return term.times(factor) if isinstance(term, NestedSum) else product(factor, term)


def _guarded(term, guards: tuple):
    return term.within((), guards) if isinstance(term, NestedSum) else NestedSum(term, (), guards)


def _in_maps(term, dims: tuple):
    """A term of one iteration inside the map dimensions ``dims``: an expression when the nest has a
    closed form and no conditions, else the nest itself (summed at the symbols' values)."""
    nest = term.within(dims) if isinstance(term, NestedSum) else NestedSum(term, tuple(dims))
    if not nest.dims and not nest.guards:
        return nest.text
    if not nest.guards and not (_names(nest.text) & {d[0] for d in nest.dims}):
        count = nest_count(list(nest.dims))
        if count is not None:
            return product(count, nest.text)
    return nest


def _shape(arrays, data) -> list[str] | None:
    """The shape of container ``data`` as expressions (None when its descriptor gives none)."""
    desc = arrays.get(data) if isinstance(arrays, dict) and isinstance(data, str) else None
    shape = dig(desc, "attributes").get("shape") if isinstance(desc, dict) else None
    if not isinstance(shape, list) or not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in shape):
        return None
    return [str(x) for x in shape]


def _at_most(text: str, bound: str) -> str:
    """``min(text, bound)``, written out only when the two differ."""
    if text.strip() == bound.strip():
        return text
    if text.strip().isdigit() and bound.strip().isdigit():
        return str(min(int(text), int(bound)))
    return f"min({text}, {bound})"


def _names(text: str) -> set:
    try:
        return set(parse(text).names)
    except WorkloadError:
        return set()


class Walker:
    def __init__(self, doc: Doc, element_bytes):
        self.doc = doc
        self.element_bytes = element_bytes
        self.issues: list[tuple[str, str]] = []  # (reason, where): left out of the sums
        self.bounds: list[str] = []  # dynamic memlets, counted as their subset's size (an upper bound)
        self.branches: list[str] = []  # conditional blocks, every branch counted (an upper bound)

    def issue(self, why: str, where: str):
        self.issues.append((why, where))

    # descriptors ----------------------------------------------------------------------------------
    def elem_bytes(self, arrays, data: str, where: str) -> int | None:
        eb = self.element_bytes
        if isinstance(eb, dict) and data in eb:
            return int(eb[data])
        if eb is not None and not isinstance(eb, dict):
            return int(eb)
        dtype = dtype_of(arrays.get(data))
        if dtype in ELEMENT_BYTES:
            return ELEMENT_BYTES[dtype]
        self.issue(reason.UNKNOWN_DTYPE, f"{where}: container {data!r} has dtype={short_repr(dtype)}")
        return None

    @staticmethod
    def is_view(arrays, data) -> bool:
        desc = arrays.get(data)
        return isinstance(desc, dict) and isinstance(desc.get("type"), str) and desc["type"].endswith("View")

    # memlets --------------------------------------------------------------------------------------
    def memlet(self, edge, where) -> dict:
        attrs = self.doc.get(edge, "attributes", dict, where)
        data = self.doc.get(attrs, "data", dict, join(where, "attributes"))
        return self.doc.get(data, "attributes", dict, join(where, "attributes.data"), default={})

    def volume(self, memlet, where: str, describe: str, arrays=None) -> str | None:
        """The memlet's volume as an expression. A dynamic memlet (its count known only at run time) counts
        its volume, the most it moves, or where the file gives none (0) its subset's size: an upper bound
        either way (recorded in ``bounds``), clipped to the array it reads or writes (``arrays``: the
        descriptors; a map's outer subset may run a plane past its array); None (reported) without either."""
        key = "volume" if "volume" in memlet else "num_accesses"
        text = self.doc.expr(memlet, key, join(where, "attributes.data.attributes"), default="0")
        if memlet.get("dynamic") is not True and text.strip() != "-1":
            return text
        shape = _shape(arrays, memlet.get("data"))
        if text.strip() not in ("0", "-1"):  # dace's own bound on a dynamic memlet's count
            self.bounds.append(describe)
            return _at_most(text, product(*shape)) if shape else text
        sizes = self.sizes(memlet, where)
        if not sizes:
            self.issue(reason.DYNAMIC, f"{describe}: volume={text!r} and no subset")
            return None
        self.bounds.append(describe)
        if shape and len(shape) == len(sizes):
            sizes = [_at_most(size, extent) for size, extent in zip(sizes, shape)]
        return product(*sizes)

    def sizes(self, memlet, where):
        return subset_sizes(self.doc, memlet.get("subset"), join(where, "attributes.data.attributes.subset"))

    # control flow -----------------------------------------------------------------------------------
    def sdfg(self, sdfg, where: str, depth: int = 0, *, ops_only: bool = False):
        """The walk of one SDFG: its phases in execution order, its tensors, the names its control flow assigns."""
        doc = self.doc
        if depth > MAX_NESTING:
            raise doc.fail(where or "nodes", f"nested SDFGs deeper than {MAX_NESTING} levels")
        attrs = doc.get(sdfg, "attributes", dict, where)
        arrays = doc.get(attrs, "_arrays", dict, join(where, "attributes"), default={})
        walk = _Walk(arrays, depth, ops_only)
        self.region(sdfg, where, walk, "1", [])
        return walk

    def region(self, region, where: str, walk: _Walk, mult: str, entering: list) -> list:
        """Walk the blocks of one control-flow region (an SDFG, a loop's body, a branch) in execution order;
        the phases after it depend on the returned ones."""
        doc = self.doc
        blocks = doc.get(region, "nodes", list, where)
        ids = {}
        for i, block in enumerate(blocks):
            bw = join(join(where, "nodes"), i)
            doc.get(block, "type", str, bw)
            key = str(doc.get(block, "id", (int, str), bw, default=i))
            if key in ids:
                raise doc.fail(join(bw, "id"), f"{key!r} is the id of two blocks")
            ids[key] = i
        succ, conditions = self.interstate_edges(region, where, ids, walk)
        start = self.start_block(region, where, succ)
        order = block_order(len(blocks), succ, start)
        preds = [[] for _ in blocks]
        for s, ds in enumerate(succ):
            for d in ds:
                if (s, d) not in order.back:
                    preds[d].append(s)
        heads = {e[1] for e in order.events if e[0] == "loop end"}
        exits: dict[int, list] = {}
        for event in order.events:
            if event[0] == "loop end":  # what follows a loop runs after its last iteration
                _, head, latches = event
                exits[head] = _unique(exits[head] + [p for latch in latches for p in exits.get(latch, [])])
                continue
            index = event[1]
            came = _unique(p for pred in preds[index] for p in exits.get(pred, []))
            if index == start or not preds[index]:
                came = _unique(entering + came)
            bw = join(join(where, "nodes"), index)
            guard = self.branch_condition(index, preds, succ, heads, conditions)
            outer, walk.guards = walk.guards, walk.guards + ((guard,) if guard else ())
            exits[index] = self.block(blocks[index], bw, walk, mult, came, index in order.looped)
            walk.guards = outer
        for i, targets in enumerate(succ):  # a state whose conditions choose a branch (not a loop's test)
            if len(set(targets)) > 1 and i not in heads and not walk.ops_only:
                label = str(blocks[i].get("label", "")) if isinstance(blocks[i], dict) else ""
                self.branches.append(
                    f"state {short_repr(label)} ({join(join(where, 'nodes'), i)}) and the branches after it"
                )
        ends = [i for i in range(len(blocks)) if not succ[i]] or [e[1] for e in order.events if e[0] == "block"][-1:]
        return _unique(p for i in ends for p in exits.get(i, [])) or entering

    def start_block(self, region, where: str, succ: list[list[int]]) -> int:
        """The block a region starts at, by DaCe's rule: its one source block (no edge into it), whatever
        ``start_block`` says (DaCe's serializer wrote stale values); ``start_block``, an index into the
        region's blocks, only chooses among several sources (or none)."""
        entered = {d for ds in succ for d in ds}
        sources = [i for i in range(len(succ)) if i not in entered]
        if len(sources) == 1:
            return sources[0]
        field = "start_block" if "start_block" in region else "start_state"
        start = region.get(field)
        if start is None:
            return sources[0] if sources else 0
        if isinstance(start, str) and start.isascii() and start.isdigit() and len(start) < 20:
            start = int(start)
        index = start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else None
        if index is None or index >= len(succ):
            raise self.doc.fail(
                join(where, field),
                f"{short_repr(start)} names no block of this region, and it has {len(sources)} source blocks",
            )
        return index

    @staticmethod
    def branch_condition(index: int, preds, succ, heads: set, conditions: dict) -> str | None:
        """The condition under which a block runs, when its one predecessor chooses among branches."""
        if len(preds[index]) != 1:
            return None
        (p,) = preds[index]
        if p in heads or len(set(succ[p])) < 2:
            return None
        return conditions.get((p, index))

    def interstate_edges(self, region, where: str, ids: dict, walk: _Walk) -> tuple[list[list[int]], dict]:
        """Each block's successors, and the condition of each edge that has one (not ``1``)."""
        doc = self.doc
        succ = [[] for _ in ids]
        conditions = {}
        for k, e in enumerate(doc.get(region, "edges", list, where, default=[])):
            ew = join(join(where, "edges"), k)
            src, dst = str(doc.get(e, "src", (int, str), ew)), str(doc.get(e, "dst", (int, str), ew))
            for key, end in (("src", src), ("dst", dst)):
                if end not in ids:
                    raise doc.fail(join(ew, key), f"{end!r} is not the id of a state")
            succ[ids[src]].append(ids[dst])
            data = dig(e, "attributes", "data", "attributes")
            condition = dig(data, "condition").get("string_data")
            if isinstance(condition, str) and condition.strip() not in ("1", "True", "(1)"):
                conditions[(ids[src], ids[dst])] = condition
            if isinstance(data.get("assignments"), dict):
                for key, value in data["assignments"].items():
                    walk.assigned.add(str(key))
                    walk.assignments.setdefault(str(key), set()).add(str(value))
        return succ, conditions

    def block(self, block, where: str, walk: _Walk, mult: str, entering: list, looped: bool) -> list:
        """Walk one block; the phases that what follows it depends on."""
        kind = block["type"]
        if kind == "SDFGState":
            state = StateGraph(self.doc, block, where)
            executions = self.executions(block, state.label, looped, where, mult)
            made, sinks = self.state(state, walk, executions, entering)
            return sinks if made else entering
        if kind == "LoopRegion":
            return self.loop(block, where, walk, mult, entering)
        if kind == "ConditionalBlock":
            return self.conditional(block, where, walk, mult, entering)
        if kind in REGIONS:
            return self.region(block, where, walk, mult, entering)
        if kind in EMPTY_BLOCKS:
            return entering
        raise self.doc.unknown(join(where, "type"), f"the control-flow block {short_repr(kind)}", KNOWN_BLOCKS)

    def loop(self, block, where: str, walk: _Walk, mult: str, entering: list) -> list:
        """A dace 2.x ``LoopRegion``: its body runs the trip count its init, condition and update give."""
        attrs = self.doc.get(block, "attributes", dict, where, default={})
        variable = attrs.get("loop_variable")
        parts = [dig(attrs, key).get("string_data") for key in ("init_statement", "loop_condition", "update_statement")]
        trips = None
        if isinstance(variable, str) and all(isinstance(p, str) for p in parts):
            walk.assigned.add(variable)
            trips = trip_count(variable, *parts)
        label = str(block.get("label", ""))
        if trips is None:
            self.issue(
                reason.LOOP_EXECUTIONS,
                f"loop {short_repr(label)} ({where}): its trip count is not a simple range; counted once",
            )
            trips = "1"
        elif attrs.get("inverted") is True:  # a do-while loop runs its body at least once
            trips = f"max(1, {trips})"
        return self.region(block, where, walk, product(mult, paren(trips)), entering)

    def conditional(self, block, where: str, walk: _Walk, mult: str, entering: list) -> list:
        """A dace 2.x ``ConditionalBlock``: every branch is walked, as if it ran (an upper bound)."""
        branches = self.doc.get(block, "branches", list, where)
        out, before, earlier = [], len(walk.phases), []
        for k, branch in enumerate(branches):
            bw = join(join(where, "branches"), k)
            if not isinstance(branch, list) or len(branch) != 2 or not isinstance(branch[1], dict):
                raise self.doc.fail(bw, f"{short_repr(branch)} is not a [condition, region] pair")
            condition = dig(branch, 0).get("string_data") if isinstance(branch[0], dict) else None
            runs = tuple(f"not ({c})" for c in earlier) + ((condition,) if isinstance(condition, str) else ())
            outer, walk.guards = walk.guards, walk.guards + runs  # a branch runs when no earlier one did
            out.extend(self.region(branch[1], join(bw, 1), walk, mult, entering))
            walk.guards = outer
            if isinstance(condition, str):
                earlier.append(condition)
        if len(walk.phases) > before and not walk.ops_only:
            self.branches.append(f"conditional {str(block.get('label', ''))!r} ({where})")
        return _unique(out) or entering

    def executions(self, block, label: str, in_loop: bool, where: str, mult: str) -> str:
        attrs = block.get("attributes") if isinstance(block.get("attributes"), dict) else {}
        ex = attrs.get("executions")
        dynamic = attrs.get("dynamic_executions", ex is None)
        if ex is not None and not isinstance(ex, (str, int)):
            raise self.doc.fail(join(where, "attributes.executions"), f"{short_repr(ex)} is not an expression")
        if ex is not None and not dynamic:
            return str(ex)  # propagated by dace: the state's total count, enclosing loops included
        if in_loop and block.get("nodes"):
            if ex is None:
                self.issue(
                    reason.LOOP_EXECUTIONS,
                    f"state {short_repr(label)}: counted once (save the SDFG after "
                    "dace.sdfg.propagation.propagate_states to record its executions)",
                )
            else:
                self.issue(
                    reason.DYNAMIC_EXECUTIONS, f"state {short_repr(label)}: executions={ex!r} is a bound; counted once"
                )
        return mult

    # a state ----------------------------------------------------------------------------------------
    def state(self, st: StateGraph, walk: _Walk, mult: str, entering: list):
        """The phases of one state in dataflow order, and those no other phase of the state depends on."""
        units = self.units(st, walk.arrays)
        order = self.dataflow_order(st, units)
        tensor_of, extra_writes = self.versions(order, units, walk)
        made, phase_keys = {}, set(units.phase_keys)
        for u in order:
            if u in units.copies:
                made[u] = self.copy_phase(st, u, units, walk, mult, tensor_of, extra_writes)
            elif u in phase_keys:
                made[u] = self.scope_phase(st, u, units, walk, mult, tensor_of, extra_writes)
        self.dependencies(made, units, entering)
        phases = [made[u] for u in order if u in made]
        walk.phases.extend(phases)
        return phases, self.sinks(order, made, units)

    def units(self, st: StateGraph, arrays) -> _Units:
        access = [nid for nid in st.nodes if st.type(nid) == "AccessNode" and st.owner(nid) == nid]
        data_of = {nid: self.doc.get(st.attrs(nid), "data", str, st.field(nid, "attributes")) for nid in access}
        tops = [nid for nid in st.nodes if st.owner(nid) == nid and nid not in data_of]
        alias = {}  # views are the container they view: view -> viewed access node
        for _, _, src, dst, _ in st.edges:
            if src in data_of and dst in data_of:
                if self.is_view(arrays, data_of[dst]) and dst not in alias:
                    alias[dst] = src
                elif self.is_view(arrays, data_of[src]) and src not in alias:
                    alias[src] = dst

        def resolve(nid):
            seen = 0
            while nid in alias and seen <= len(alias):
                nid, seen = alias[nid], seen + 1
            return nid

        units = _Units([a for a in access if resolve(a) == a], data_of, list(tops), {}, {}, {}, {}, {})

        def link(a, b):
            units.unit_out.setdefault(a, []).append(b)
            units.unit_in.setdefault(b, []).append(a)

        for k, ew, src, dst, e in st.edges:
            so, do = st.owner(src), st.owner(dst)
            if so == do:
                continue
            if so in data_of and do in data_of:
                a, b = resolve(so), resolve(do)
                if a == b or alias.get(so) == do or alias.get(do) == so:
                    continue
                key = ("copy", k)  # never equal to a node id
                units.copies[key] = (a, b, ew, e)
                units.phase_keys.append(key)
                link(a, key)
                link(key, b)
            elif so in data_of:
                units.reads.setdefault(do, []).append((resolve(so), e, ew))
                link(resolve(so), do)
            elif do in data_of:
                units.writes.setdefault(so, []).append((resolve(do), e, ew))
                link(so, resolve(do))
            else:
                link(so, do)
                self.issue(reason.DIRECT_EDGE, f"{st.describe(so)} → {st.describe(do)}: a dependency only")
        return units

    def dataflow_order(self, st: StateGraph, units: _Units) -> list:
        keys = units.access + units.phase_keys
        label = {u: (f"copy {u[1]}" if isinstance(u, tuple) else f"node {u}") for u in keys}
        try:
            order = topological_order(
                [label[u] for u in keys], [tuple(label[p] for p in units.unit_in.get(u, [])) for u in keys]
            )
        except WorkloadError:
            raise self.doc.fail(st.where, "the dataflow graph of this state has a cycle") from None
        return [keys[i] for i in order.tolist()]

    def versions(self, order, units: _Units, walk: _Walk):
        """Each access node's tensor: a container written again gets a new version (``A@2``), so that every
        tensor has one producer; an access node with several writers gives each a version."""
        tensor_of, extra_writes = {}, {}
        for u in order:
            if u not in units.data_of:
                continue
            data = units.data_of[u]
            writers = units.unit_in.get(u, [])
            if not writers:
                if data not in walk.current:
                    walk.versions[data] = 1
                    walk.current[data] = data
                    walk.tensors[data] = data
                tensor_of[u] = walk.current[data]
                continue
            for i, w in enumerate(writers):
                walk.versions[data] = walk.versions.get(data, 0) + 1
                name = data if walk.versions[data] == 1 else f"{data}@{walk.versions[data]}"
                walk.tensors[name] = data
                if i == 0:
                    tensor_of[u] = name
                else:
                    extra_writes[(u, w)] = name
            walk.current[data] = tensor_of[u]
        return tensor_of, extra_writes

    def copy_phase(self, st, key, units: _Units, walk: _Walk, mult, tensor_of, extra_writes) -> SDFGPhase:
        a, b, ew, e = units.copies[key]
        label = f"copy {units.data_of[a]} → {units.data_of[b]}"
        phase = SDFGPhase(self.unique(walk.names, label), "copy", st.label, ew)
        if walk.ops_only:
            return phase
        memlet = self.memlet(e, ew)
        vol = self.volume(memlet, ew, f"{phase.name} ({ew})", walk.arrays)
        for side, target, store in (
            (a, tensor_of[a], phase.reads),
            (b, extra_writes.get((b, key), tensor_of[b]), phase.writes),
        ):
            eb = self.elem_bytes(walk.arrays, units.data_of[side], phase.name)
            if vol is not None and eb is not None:
                store.setdefault(target, []).append((product(vol, str(eb), mult), ew))
        return phase

    def scope_phase(self, st, u, units: _Units, walk: _Walk, mult, tensor_of, extra_writes) -> SDFGPhase:
        kind = st.type(u)
        phase = SDFGPhase(
            self.unique(walk.names, self.label(st, u)),
            ENTRY_TYPES.get(kind, _KINDS.get(kind, "node")),
            st.label,
            st.field(u),
        )
        phase.ops = [(_times(mult, t), w) for t, w in self.scope_ops(st, u, walk.arrays, walk.depth)]
        if walk.ops_only and walk.guards:  # inside a map of the SDFG that nests this one: summed per iteration
            phase.ops = [(_guarded(t, walk.guards), w) for t, w in phase.ops]
        if walk.ops_only:
            return phase
        if kind == "MapEntry":
            try:
                phase.map = self.map_memlets(st, u, walk.arrays)
            except WorkloadFileError as error:  # only the local view needs these: the import goes on
                phase.map = {"error": f"{error.field}: {error.reason}" if error.field else error.reason}
        for store, edges, side in (
            (phase.reads, units.reads.get(u, []), "read"),
            (phase.writes, units.writes.get(u, []), "write"),
        ):
            for acc, e, ew in edges:
                memlet = self.memlet(e, ew)
                if memlet.get("data") is None:
                    continue  # an empty memlet: a dependency only
                data = units.data_of[acc]
                vol = self.volume(memlet, ew, f"{phase.name} {side} of {data!r} ({ew})", walk.arrays)
                eb = self.elem_bytes(walk.arrays, data, f"{phase.name} ({ew})")
                tensor = tensor_of[acc] if side == "read" else extra_writes.get((acc, u), tensor_of[acc])
                if vol is not None and eb is not None:
                    store.setdefault(tensor, []).append((product(vol, str(eb), mult), ew))
        return phase

    @staticmethod
    def dependencies(made: dict, units: _Units, entering: list) -> None:
        """Each phase runs after the writers of what it reads and the phases linked to it directly; one
        with neither runs after the phases that end the states before."""
        for u, phase in made.items():
            after = []
            for a in units.unit_in.get(u, []):
                if a in units.data_of:
                    after.extend(made[w].name for w in units.unit_in.get(a, []) if w in made)
                elif a in made:
                    after.append(made[a].name)
            phase.after = _unique(n for n in (after or entering) if n != phase.name)

    @staticmethod
    def sinks(order: list, made: dict, units: _Units) -> list:
        """The phases from which no path leads to another phase of the state (in reverse dataflow order,
        so each unit is visited once)."""
        reaches = {}
        for u in reversed(order):
            reaches[u] = any(v in made or reaches.get(v, False) for v in units.unit_out.get(u, []))
        return [made[u].name for u in order if u in made and not reaches[u]]

    @staticmethod
    def unique(names: Counter, label: str) -> str:
        names[label] += 1
        return label if names[label] == 1 else f"{label}#{names[label]}"

    def label(self, st: StateGraph, nid) -> str:
        attrs = st.attrs(nid)
        n = st.node(nid)
        for value in (attrs.get("label"), attrs.get("name"), n.get("label")):
            if isinstance(value, str) and value:
                return value
        return f"{n['type']} {nid}"

    def map_memlets(self, st: StateGraph, entry, arrays) -> dict:
        """A map's ``params``, ``ranges`` ([start, end, step] texts) and the memlets inside it that cross
        its entry (``reads``) and its exit (``writes``), in file order: {data, subset ([start, end, step]
        per dimension), wcr, dynamic, where}; ``dtypes``: each container's dtype (None if not given)."""
        params, ranges = self.map_range(st, entry)
        exits = [
            nid for nid in st.nodes if st.type(nid) in EXIT_TYPES and str(st.node(nid).get("scope_entry")) == entry
        ]

        def memlets(edges):
            out = []
            for _, ew, _, _, e in edges:
                memlet = self.memlet(e, ew)
                if memlet.get("data") is None:
                    continue  # an empty memlet: a dependency only
                subset = subset_ranges(self.doc, memlet.get("subset"), join(ew, "attributes.data.attributes.subset"))
                out.append(
                    {
                        "data": str(memlet["data"]),
                        "where": ew,
                        "subset": subset,
                        "wcr": memlet.get("wcr"),
                        "dynamic": memlet.get("dynamic") is True,
                    }
                )
            return out

        reads = memlets(st.out_edges[entry])
        writes = memlets([item for x in exits for item in st.in_edges[x]])
        dtypes = {}
        for m in reads + writes:
            dtypes[m["data"]] = dtype_of(arrays.get(m["data"]))
        return {
            "params": params,
            "ranges": ranges,
            "reads": reads,
            "writes": writes,
            "dtypes": dtypes,
            "where": st.field(entry),
        }

    def map_range(self, st: StateGraph, entry) -> tuple[list, list]:
        """A map's parameters and its ranges ([start, end, step] texts), as written."""
        attrs = st.attrs(entry)
        body = attrs.get("map") if isinstance(attrs.get("map"), dict) else attrs
        body = body.get("attributes", body) if isinstance(body.get("attributes"), dict) else body
        where = st.field(entry, "attributes")
        params = [str(x) for x in self.doc.get(body, "params", list, where, default=[])]
        rng = self.doc.get(body, "range", dict, where)
        return params, subset_ranges(self.doc, rng, join(where, "range")) or []

    # ops ------------------------------------------------------------------------------------------
    def scope_ops(self, st: StateGraph, nid, arrays, depth) -> list[tuple[str, str]]:
        """Ops terms of one top-level node and everything in its scope, each times its maps' iterations."""
        return [(_in_maps(t, dims), where) for t, where, dims in self.node_ops(st, nid, arrays, depth)]

    def node_ops(self, st: StateGraph, nid, arrays, depth) -> list[tuple[str, str, tuple]]:
        """Ops terms of one node and everything in its scope: (per-iteration expression, where, the map
        dimensions ``(param, start, end, step)`` it runs in, outermost first)."""
        kind = st.type(nid)
        where = st.field(nid)
        if kind in ENTRY_TYPES:
            inner = [term for child in st.children(nid) for term in self.node_ops(st, child, arrays, depth)]
            if kind == "ConsumeEntry":
                if inner:
                    self.issue(
                        reason.NOT_UNDERSTOOD,
                        f"{st.describe(nid)}: a consume scope runs a data-dependent number of times; its "
                        "contents are counted once",
                    )
                return inner
            params, ranges = self.map_range(st, nid)
            params = params if len(params) == len(ranges) else [f"?{i}" for i in range(len(ranges))]
            dims = tuple((p, *r) for p, r in zip(params, ranges))
            merged = Counter()  # whole-number terms at the same depth summed into one
            whole = [t for t, _, d in inner if isinstance(t, str) and t.isdigit() and not d]
            merged[()] = sum(int(t) for t in whole)
            out = [(str(merged[()]), where, dims)] if merged[()] else []
            out += [(t, w, dims + d) for t, w, d in inner if not (isinstance(t, str) and t.isdigit() and not d)]
            return out
        terms: list[tuple[str, str]] = []
        if kind == "Tasklet":
            terms.extend(self.tasklet_ops(st, nid))
        elif kind in ("LibraryNode", "Reduce"):  # "Reduce": the 2019 serializer's reduction node
            terms.extend(self.library_ops(st, nid))
        elif kind == "NestedSDFG":
            terms.extend(self.nested_ops(st, nid, depth))
        elif kind != "AccessNode":
            self.issue(reason.UNKNOWN_NODE, f"{st.describe(nid)}: ops not counted")
        # write-conflict resolution: one op per element written
        for _, ew, _, _, e in st.out_edges[nid]:
            memlet = self.memlet(e, ew)
            if memlet.get("wcr") and memlet.get("data") is not None:
                vol = self.volume(memlet, ew, f"{st.describe(nid)} reduction ({ew})")
                if vol is not None:
                    terms.append((vol, ew))
        return [(t, w, ()) for t, w in terms]

    def tasklet_ops(self, st: StateGraph, nid):
        attrs = st.attrs(nid)
        code = attrs.get("code")
        where = st.field(nid, "attributes.code")
        if not isinstance(code, dict):
            raise self.doc.fail(where, f"{short_repr(code)} is not a code block")
        language = code.get("language", "Python")
        text = code.get("string_data", "")
        if not isinstance(text, str):
            raise self.doc.fail(join(where, "string_data"), f"{short_repr(text)} is not text")
        if language != "Python":
            self.issue(reason.NOT_PYTHON, f"{st.describe(nid)}: language={language!r}; ops not counted")
            return []
        try:
            count, unknown = count_tasklet_ops(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            self.issue(
                reason.NOT_UNDERSTOOD,
                f"{st.describe(nid)}: the code does not parse ({type(e).__name__}); ops not counted",
            )
            return []
        for name in unknown:
            self.issue(reason.UNKNOWN_FUNCTION, f"{st.describe(nid)}: {name}() counted as 0 ops")
        return [(str(count), where)] if count else []

    def library_ops(self, st: StateGraph, nid):
        node = st.node(nid)
        classpath = node.get("classpath")
        if isinstance(classpath, str):
            kind = classpath.rsplit(".", 1)[-1]
        else:
            kind = str(node.get("type")) if node.get("type") in LIBRARY_OPS else str(node.get("label", ""))
        sides = {
            "in": {e[4].get("dst_connector"): (e[4], e[1]) for e in st.in_edges[nid]},
            "out": {e[4].get("src_connector"): (e[4], e[1]) for e in st.out_edges[nid]},
        }

        def dims(side, connector):
            table = sides[side]
            if connector is None:  # any (the first) connector
                connector = next(iter(table), None)
            if connector not in table:
                return None
            e, ew = table[connector]
            return self.sizes(self.memlet(e, ew), ew)

        formula = library_formula(kind, st.attrs(nid), dims)
        if formula is None:
            why = "no formula for this library node" if kind not in LIBRARY_OPS else "its memlets lack subsets"
            self.issue(reason.UNKNOWN_LIBRARY, f"{st.describe(nid)}: {kind} ({why}); ops not counted")
            return []
        return [] if formula == "0" else [(formula, st.field(nid))]

    def nested_ops(self, st: StateGraph, nid, depth):
        attrs = st.attrs(nid)
        where = st.field(nid, "attributes")
        inner = self.doc.get(attrs, "sdfg", dict, where)
        mapping = self.doc.get(attrs, "symbol_mapping", dict, where, default={})
        mapping = {str(k): str(v) for k, v in mapping.items() if isinstance(v, (str, int))}
        phases = self.sdfg(inner, join(where, "sdfg"), depth + 1, ops_only=True).phases
        return [
            (t.substituted(mapping) if isinstance(t, NestedSum) else substitute(t, mapping), w)
            for p in phases
            for t, w in p.ops
        ]
