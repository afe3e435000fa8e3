"""A picture of a workflow's DAG as standalone SVG, laid out here: no Graphviz, no CDN, no JS.

A small Sugiyama-style layout: nodes go into layers by their longest path from a source (the
entry node is one), edges that skip layers get invisible bend points in the layers between, a few
barycentre sweeps order each layer to reduce crossings, then layers are drawn top to bottom.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from html import escape
from typing import Any

from workflows.nodes import node_type_of

NODE_WIDTH, NODE_HEIGHT = 200, 56
BEND_WIDTH = 24  # the room a bend point of a long edge takes in its layer
GAP_X, GAP_Y = 36, 78  # GAP_Y leaves room for edge conditions between layers
MARGIN = 28
SWEEPS = 4

_UNKNOWN_STYLE = ("#f2f2f2", "#777777")


@dataclass
class _Point:
    key: str
    layer: int
    width: float
    x: float = 0.0
    y: float = 0.0
    order: float = 0.0


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _summary(node: dict[str, Any]) -> str:
    """The box's second line, as the node's type describes it (workflows.nodes)."""
    node_type = node_type_of(node)
    return node_type.summary(node) if node_type else str(node.get("type"))


def _layers(ids: list[str], edges: list[tuple[str, str]], entry: str | None) -> dict[str, int]:
    """Longest path from a source; on a cycle (never stored, but drawn anyway) the rest go last."""
    incoming = {node_id: 0 for node_id in ids}
    outgoing: dict[str, list[str]] = {node_id: [] for node_id in ids}
    for source, target in edges:
        incoming[target] += 1
        outgoing[source].append(target)
    sources = [n for n in ids if incoming[n] == 0]
    if entry in sources:  # the entry first, so it lands leftmost in the top layer
        sources.remove(entry)
        sources.insert(0, entry)
    layer = dict.fromkeys(sources, 0)
    queue = list(sources)
    while queue:
        node_id = queue.pop(0)
        for child in outgoing[node_id]:
            layer[child] = max(layer.get(child, 0), layer[node_id] + 1)
            incoming[child] -= 1
            if incoming[child] == 0:
                queue.append(child)
    deepest = max(layer.values(), default=-1)
    for node_id in ids:
        if node_id not in layer:
            deepest += 1
            layer[node_id] = deepest
    return layer


def _order(rows: list[list[_Point]], links: list[tuple[_Point, _Point]]) -> None:
    """Barycentre heuristic: sort each layer by the mean position of its neighbours."""
    for row in rows:
        for index, point in enumerate(row):
            point.order = index
    ups: dict[str, list[_Point]] = {}
    downs: dict[str, list[_Point]] = {}
    for upper, lower in links:
        ups.setdefault(lower.key, []).append(upper)
        downs.setdefault(upper.key, []).append(lower)
    for sweep in range(SWEEPS):
        downward = sweep % 2 == 0
        sequence = rows[1:] if downward else list(reversed(rows[:-1]))
        neighbours = ups if downward else downs
        for row in sequence:
            for point in row:
                near = neighbours.get(point.key)
                if near:
                    point.order = sum(p.order for p in near) / len(near)
            row.sort(key=lambda p: p.order)
            for index, point in enumerate(row):
                point.order = index


def _place(rows: list[list[_Point]]) -> tuple[float, float]:
    widths = [sum(p.width for p in row) + GAP_X * max(len(row) - 1, 0) for row in rows]
    total = max(widths, default=NODE_WIDTH)
    for row, width in zip(rows, widths, strict=True):
        x = MARGIN + (total - width) / 2
        for point in row:
            point.x = x + point.width / 2
            point.y = MARGIN + 18 + point.layer * (NODE_HEIGHT + GAP_Y) + NODE_HEIGHT / 2
            x += point.width + GAP_X
    height = MARGIN * 2 + 18 + len(rows) * NODE_HEIGHT + max(len(rows) - 1, 0) * GAP_Y
    return total + 2 * MARGIN, height


def _curve(points: list[tuple[float, float]]) -> str:
    path = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
    for (x1, y1), (x2, y2) in itertools.pairwise(points):
        middle = (y1 + y2) / 2
        path += f" C{x1:.1f},{middle:.1f} {x2:.1f},{middle:.1f} {x2:.1f},{y2:.1f}"
    return path


def _port(point: _Point, towards: _Point, routes: list[list[_Point]], end: int) -> float:
    """Where an edge leaves (end=0) or enters (end=-1) a node: spread along its side by the
    position of the other end, so a fan of edges does not start from one point."""
    others = sorted({r[1 if end == 0 else -2].x for r in routes if r[end] is point and len(r) > 1})
    if len(others) < 2:
        return point.x
    share = (NODE_WIDTH * 0.7) / (len(others) - 1)
    return point.x - NODE_WIDTH * 0.35 + share * others.index(towards.x)


def _edge_label(
    edge: dict[str, Any],
    edges: list[dict[str, Any]],
    by_id: dict[str, dict[str, Any]],
    rank: int,
    siblings: int,
) -> str:
    """What an edge's label says: its condition, numbered in the order the engine tries a node's
    edges when there are several. An edge without `when` is "otherwise" only as the fallback
    after conditional ones; before them, it says what the node type says of it (a throttle's:
    "passed", a throttled run follows only conditional edges), else nothing (it is always
    taken)."""
    when = str(edge.get("when") or "")
    if siblings <= 1:
        return when
    if when:
        return f"{rank}. {when}"
    earlier = [e for e in edges if e["from"] == edge["from"]][: rank - 1]
    if any(e.get("when") for e in earlier):
        return f"{rank}. otherwise"
    node_type = node_type_of(by_id.get(edge["from"], {}))
    return node_type.otherwise_label if node_type else ""


def _label(
    text: str,
    tooltip: str,
    coords: list[tuple[float, float]],
    placed: list[tuple[float, float, float, float]],
) -> str:
    """A condition label on the first stretch of its edge, moved down until it overlaps none."""
    (x1, y1), (x2, y2) = coords[0], coords[1]
    text = _clip(text, 34)
    width, height = 6.4 * len(text) + 10, 17.0
    x, y = (x1 + x2) / 2 - width / 2, y1 + min(28.0, (y2 - y1) / 2) - height / 2
    while any(
        x < px + pw and px < x + width and y < py + ph and py < y + height
        for px, py, pw, ph in placed
    ):
        y += height + 2
    placed.append((x, y, width, height))
    return (
        f'<g class="dag-edge-label"><title>{escape(tooltip)}</title>'
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.0f}" rx="8" '
        'fill="#fff" stroke="#bbb"/>'
        f'<text x="{x + width / 2:.1f}" y="{y + 12.5:.1f}" text-anchor="middle" fill="#333" '
        f'font-size="11">{escape(text)}</text></g>'
    )


def workflow_diagram_svg(definition: dict[str, Any], *, title: str = "workflow") -> str:
    """The definition's DAG as an SVG document (a string safe to inline in HTML).

    Node ids, types and recipients appear in the boxes; an edge's `when` and, where a node has
    several outgoing edges, their order (the first that holds is taken) label the edge.
    """
    nodes = [
        n
        for n in definition.get("nodes") or []
        if isinstance(n, dict) and isinstance(n.get("id"), str)
    ]
    by_id = {n["id"]: n for n in nodes}
    ids = list(by_id)
    edges = [
        e
        for e in definition.get("edges") or []
        if isinstance(e, dict) and e.get("from") in by_id and e.get("to") in by_id
    ]
    entry = definition.get("entry_node_id")
    layer = _layers(ids, [(e["from"], e["to"]) for e in edges], entry if entry in by_id else None)

    points = {n: _Point(n, layer[n], NODE_WIDTH) for n in ids}
    rows: list[list[_Point]] = [[] for _ in range(max(layer.values(), default=-1) + 1)]
    for node_id in ids:
        rows[layer[node_id]].append(points[node_id])
    links: list[tuple[_Point, _Point]] = []
    routes: list[list[_Point]] = []
    for index, edge in enumerate(edges):
        route = [points[edge["from"]]]
        for depth in range(layer[edge["from"]] + 1, layer[edge["to"]]):
            bend = _Point(f"~{index}~{depth}", depth, BEND_WIDTH)
            rows[depth].append(bend)
            route.append(bend)
        route.append(points[edge["to"]])
        links.extend(itertools.pairwise(route))
        routes.append(route)
    _order(rows, links)
    width, height = _place(rows)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="workflow-dag" role="img" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'aria-label="{escape(title)}: {len(ids)} nodes, {len(edges)} edges" '
        'font-family="-apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="12">',
        '<defs><marker id="dag-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
    ]
    outgoing_count: dict[str, int] = {}
    for edge in edges:
        outgoing_count[edge["from"]] = outgoing_count.get(edge["from"], 0) + 1
    rank: dict[str, int] = {}
    placed: list[tuple[float, float, float, float]] = []
    for edge, route in zip(edges, routes, strict=True):
        rank[edge["from"]] = rank.get(edge["from"], 0) + 1
        start, end = route[0], route[-1]
        coords = [(_port(start, route[1], routes, 0), start.y + NODE_HEIGHT / 2)]
        coords += [(p.x, p.y) for p in route[1:-1]]
        coords.append((_port(end, route[-2], routes, -1), end.y - NODE_HEIGHT / 2 - 2))
        out.append(
            f'<path class="dag-edge" data-from="{escape(edge["from"])}" '
            f'data-to="{escape(edge["to"])}" d="{_curve(coords)}" fill="none" stroke="#555" '
            'stroke-width="1.4" marker-end="url(#dag-arrow)"/>'
        )
        label = _edge_label(edge, edges, by_id, rank[edge["from"]], outgoing_count[edge["from"]])
        if label:
            out.append(_label(label, str(edge.get("when") or ""), coords, placed))
    for node_id in ids:
        node, point = by_id[node_id], points[node_id]
        node_type = node_type_of(node)
        fill, stroke = node_type.colours if node_type else _UNKNOWN_STYLE
        left, top = point.x - NODE_WIDTH / 2, point.y - NODE_HEIGHT / 2
        is_entry = node_id == entry
        out.append(
            f'<g class="dag-node" data-node-id="{escape(node_id)}" '
            f'data-type="{escape(str(node.get("type")))}">'
            f"<title>{escape(node_id)}: {escape(_summary(node))}</title>"
            f'<rect x="{left:.1f}" y="{top:.1f}" width="{NODE_WIDTH}" height="{NODE_HEIGHT}" '
            f'rx="8" fill="{fill}" stroke="{stroke}" stroke-width="{2.6 if is_entry else 1.4}"/>'
            f'<text x="{point.x:.1f}" y="{top + 22:.1f}" text-anchor="middle" font-weight="bold" '
            f'fill="#222">{escape(_clip(node_id, 26))}</text>'
            f'<text x="{point.x:.1f}" y="{top + 41:.1f}" text-anchor="middle" fill="#555" '
            f'font-size="11">{escape(_clip(_summary(node), 30))}</text></g>'
        )
        if is_entry:
            out.append(
                f'<text class="dag-entry" x="{point.x:.1f}" y="{top - 8:.1f}" '
                f'text-anchor="middle" fill="{stroke}" font-size="11">▼ entry</text>'
            )
    out.append("</svg>")
    return "".join(out)
