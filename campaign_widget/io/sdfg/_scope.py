"""One state's dataflow graph: its nodes and memlet edges, and the scope (map, consume) each node is in."""

from __future__ import annotations

from collections import defaultdict

from ._doc import Doc, join

EXIT_TYPES = ("MapExit", "ConsumeExit", "PipelineExit")
ENTRY_TYPES = {"MapEntry": "map", "ConsumeEntry": "consume", "PipelineEntry": "map"}


class StateGraph:
    """One state's nodes and edges, with each node's scope."""

    def __init__(self, doc: Doc, state, where: str):
        self.doc, self.where = doc, where
        self.label = str(state.get("label", "")) if isinstance(state, dict) else ""
        nodes = doc.get(state, "nodes", list, where, default=[])
        edges = doc.get(state, "edges", list, where, default=[])
        self.nodes = {}  # id -> (index, node)
        for i, n in enumerate(nodes):
            nw = f"{where}.nodes[{i}]"
            doc.get(n, "type", str, nw)
            doc.get(n, "attributes", dict, nw, default={})
            nid = str(doc.get(n, "id", (int, str), nw, default=i))
            if nid in self.nodes:
                raise doc.fail(join(nw, "id"), f"{nid!r} is the id of two nodes")
            self.nodes[nid] = (i, n)
        self.edges = []  # (index, where, src, dst, edge)
        self.out_edges = defaultdict(list)
        self.in_edges = defaultdict(list)
        for k, e in enumerate(edges):
            ew = f"{where}.edges[{k}]"
            src, dst = str(doc.get(e, "src", (int, str), ew)), str(doc.get(e, "dst", (int, str), ew))
            for key, end in (("src", src), ("dst", dst)):
                if end not in self.nodes:
                    raise doc.fail(join(ew, key), f"{end!r} is not the id of a node in this state")
            for key in ("src_connector", "dst_connector"):
                doc.get(e, key, str, ew, default=None, allow_none=True)
            item = (k, ew, src, dst, e)
            self.edges.append(item)
            self.out_edges[src].append(item)
            self.in_edges[dst].append(item)
        self._owner = {}
        self._children = None

    def node(self, nid):
        return self.nodes[nid][1]

    def type(self, nid) -> str:
        return self.nodes[nid][1]["type"]

    def attrs(self, nid) -> dict:
        return self.nodes[nid][1].get("attributes") or {}

    def field(self, nid, key=None) -> str:
        w = f"{self.where}.nodes[{self.nodes[nid][0]}]"
        return join(w, key) if key else w

    def describe(self, nid) -> str:
        n = self.node(nid)
        return f"state {self.label!r}, node {nid} ({n['type']} {str(n.get('label', ''))[:60]!r})"

    def parent(self, nid):
        """The entry of the scope ``nid`` is in (an exit is in its own entry's scope), or None."""
        entry = self.node(nid).get("scope_entry")
        if entry is None:
            return None
        entry = str(entry)
        if entry not in self.nodes:
            raise self.doc.fail(self.field(nid, "scope_entry"), f"{entry!r} is not the id of a node in this state")
        return entry if entry != nid else None  # an exit's scope_entry is its own entry: it is in that scope

    def owner(self, nid):
        """The top-level node whose scope holds ``nid``."""
        if nid in self._owner:
            return self._owner[nid]
        chain, cur = [], nid
        while True:
            chain.append(cur)
            up = self.parent(cur)
            if up is None:
                break
            if len(chain) > len(self.nodes):
                raise self.doc.fail(self.field(nid, "scope_entry"), "scopes form a cycle")
            cur = up
        for c in chain:
            self._owner[c] = cur
        return cur

    def children(self, entry):
        """The nodes directly in the scope opened by ``entry`` (not its exit)."""
        if self._children is None:
            self._children = defaultdict(list)
            for nid in self.nodes:
                if self.type(nid) not in EXIT_TYPES:
                    self._children[self.parent(nid)].append(nid)
        return self._children.get(entry, [])
