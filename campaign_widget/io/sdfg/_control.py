"""The state machine: blocks in execution order (loops whole, before what follows them), and the trip
count of a dace 2.x ``LoopRegion``.

The order is a weak topological order: strongly connected components of the block graph in dependency
order, each loop's head first, then its body ordered the same way without the edges back to the head.
Ties keep the file's order (the start block first), so the order never depends on hashing. Iterative:
no recursion, whatever the graph's shape.
"""

from __future__ import annotations

import ast
import heapq
from dataclasses import dataclass, field


@dataclass
class BlockOrder:
    """``events``: ``("block", i)`` in execution order, and ``("loop end", head, latches)`` after the last
    block of each loop (``latches``: the blocks with an edge back to ``head``). ``back``: those edges;
    ``looped``: the blocks inside some loop of this graph (they may run more than once)."""

    events: list = field(default_factory=list)
    back: set = field(default_factory=set)
    looped: set = field(default_factory=set)


def block_order(n: int, succ: list[list[int]], start: int) -> BlockOrder:
    """The blocks ``0..n-1`` of a graph (``succ[i]``: the successors of block ``i``) in execution order."""
    rank = [0] * n  # tie-break: the start block first, then file order
    for i in range(n):
        rank[i] = 0 if i == start else i + 1
    pred: list[list[int]] = [[] for _ in range(n)]
    for u in range(n):
        for v in succ[u]:
            pred[v].append(u)
    out = BlockOrder()
    work = [("order", list(range(n)))]
    while work:
        task = work.pop()
        if task[0] == "emit":
            out.events.append(("block", task[1]))
        elif task[0] == "end":
            out.events.append(("loop end", task[1], task[2]))
        else:
            members = set(task[1])
            pending = []
            for component in _components_in_order(task[1], members, succ, rank):
                head = component[0]
                if len(component) == 1 and head not in succ[head]:
                    pending.append(("emit", head))
                    continue
                inside = set(component)
                entries = [v for v in component if any(u not in inside for u in pred[v])]
                head = min(entries or component, key=rank.__getitem__)
                latches = sorted((u for u in component if head in succ[u]), key=rank.__getitem__)
                out.back.update((u, head) for u in latches)
                out.looped.update(component)
                pending.append(("emit", head))
                pending.append(("order", sorted(inside - {head}, key=rank.__getitem__)))
                pending.append(("end", head, latches))
            work.extend(reversed(pending))
    return out


def _components_in_order(nodes: list[int], members: set, succ, rank) -> list[list[int]]:
    """The strongly connected components of the graph induced by ``nodes`` (Tarjan's algorithm,
    iteratively), in dependency order with ties by ``rank``; each component sorted by rank."""
    index, low, on_stack, stack, component_of = {}, {}, set(), [], {}
    components: list[list[int]] = []
    counter = 0
    for root in sorted(nodes, key=rank.__getitem__):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter([v for v in succ[root] if v in members]))]
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter([v for v in succ[nxt] if v in members])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    component_of[x] = len(components)
                    component.append(x)
                    if x == node:
                        break
                components.append(sorted(component, key=rank.__getitem__))
    # the condensation in dependency order (Kahn's algorithm), ties by the components' first rank
    indegree = [0] * len(components)
    edges = [set() for _ in components]
    for u in nodes:
        for v in succ[u]:
            if v in members and component_of[u] != component_of[v] and component_of[v] not in edges[component_of[u]]:
                edges[component_of[u]].add(component_of[v])
                indegree[component_of[v]] += 1
    ready = [(rank[c[0]], k) for k, c in enumerate(components) if indegree[k] == 0]
    heapq.heapify(ready)
    ordered = []
    while ready:
        _, k = heapq.heappop(ready)
        ordered.append(components[k])
        for j in edges[k]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(ready, (rank[components[j][0]], j))
    return ordered


def trip_count(variable: str, init: str, condition: str, update: str) -> str | None:
    """How many times a ``LoopRegion`` runs its body, as an expression, from its init statement
    (``i = a``), condition (``i < b``, ``i <= b``, ``i > b``, ``i >= b``) and update (``i = i + s``,
    ``i += s``, ``i = i - s``); None for any other form."""
    start = _assigned(variable, init)
    step = _step(variable, update)
    bound = _bound(variable, condition)
    if start is None or step is None or bound is None:
        return None
    op, end = bound
    if op in ("<", "<=") and step > 0:
        span = f"({end}) - ({start})" + (" + 1" if op == "<=" else "")
    elif op in (">", ">=") and step < 0:
        span = f"({start}) - ({end})" + (" + 1" if op == ">=" else "")
    else:
        return None
    s = abs(step)
    return f"max(0, {span})" if s == 1 else f"max(0, ceiling(({span})/{s}))"


def _statement(text: str):
    try:
        tree = ast.parse(str(text).strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree.body[0] if len(tree.body) == 1 else None


def _assigned(variable: str, text: str) -> str | None:
    node = _statement(text)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == variable:
            return ast.unparse(node.value)
    return None


def _step(variable: str, text: str) -> int | None:
    node = _statement(text)
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == variable:
        sign, amount = {ast.Add: 1, ast.Sub: -1}.get(type(node.op)), node.value
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        value = node.value
        if node.targets[0].id != variable or not isinstance(value, ast.BinOp):
            return None
        if not (isinstance(value.left, ast.Name) and value.left.id == variable):
            return None
        sign, amount = {ast.Add: 1, ast.Sub: -1}.get(type(value.op)), value.right
    else:
        return None
    if sign is None or not isinstance(amount, ast.Constant) or type(amount.value) is not int or amount.value == 0:
        return None
    return sign * amount.value


_FLIP = {ast.Lt: ">", ast.LtE: ">=", ast.Gt: "<", ast.GtE: "<="}
_SAME = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def _bound(variable: str, text: str):
    node = _statement(text)
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Compare):
        return None
    compare = node.value
    if len(compare.ops) != 1 or type(compare.ops[0]) not in _SAME:
        return None
    left, right = compare.left, compare.comparators[0]
    if isinstance(left, ast.Name) and left.id == variable:
        return _SAME[type(compare.ops[0])], ast.unparse(right)
    if isinstance(right, ast.Name) and right.id == variable:
        return _FLIP[type(compare.ops[0])], ast.unparse(left)
    return None
