"""The DAG picture: standalone SVG, laid out in layers, every node and edge drawn once."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from tests.factories import chain, delay_node, email_node, sms_node, throttle_node
from workflows.diagram import NODE_HEIGHT, NODE_WIDTH, workflow_diagram_svg

SVG = "{http://www.w3.org/2000/svg}"

BRANCHING = {
    "entry_node_id": "start",
    "nodes": [
        delay_node("start", delay_ms=0),
        sms_node("pro"),
        email_node("vip"),
        sms_node("basic"),
        email_node("end"),
    ],
    "edges": [
        {"from": "start", "to": "pro", "when": 'payload.plan == "pro"'},
        {"from": "start", "to": "vip", "when": "payload.vip"},
        {"from": "start", "to": "basic"},
        {"from": "pro", "to": "end"},
        {"from": "start", "to": "end"},
    ],
}


def boxes(svg: str) -> dict[str, tuple[float, float]]:
    root = ET.fromstring(svg)
    found = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "dag-node":
            rect = group.find(f"{SVG}rect")
            assert rect is not None
            found[str(group.get("data-node-id"))] = (float(rect.get("x")), float(rect.get("y")))
    return found


def test_svg_is_well_formed_and_draws_every_node_and_edge_once():
    svg = workflow_diagram_svg(BRANCHING, title="branching")
    root = ET.fromstring(svg)  # raises on malformed XML

    assert set(boxes(svg)) == {"start", "pro", "vip", "basic", "end"}
    edges = [p for p in root.iter(f"{SVG}path") if p.get("class") == "dag-edge"]
    assert sorted((e.get("data-from"), e.get("data-to")) for e in edges) == sorted(
        (e["from"], e["to"]) for e in BRANCHING["edges"]
    )


def test_layers_follow_the_longest_path_from_the_entry():
    placed = boxes(workflow_diagram_svg(BRANCHING))

    assert placed["start"][1] < placed["pro"][1] == placed["vip"][1] == placed["basic"][1]
    # "end" follows "pro", so it sits a layer lower even though "start" also points at it.
    assert placed["end"][1] > placed["pro"][1]


def test_no_two_nodes_overlap():
    placed = list(boxes(workflow_diagram_svg(BRANCHING)).values())
    for i, (x1, y1) in enumerate(placed):
        for x2, y2 in placed[i + 1 :]:
            assert abs(x1 - x2) >= NODE_WIDTH or abs(y1 - y2) >= NODE_HEIGHT


def test_conditions_and_edge_order_label_the_edges():
    svg = workflow_diagram_svg(BRANCHING)
    labels = re.findall(r'<g class="dag-edge-label">.*?<text[^>]*>(.*?)</text>', svg)

    assert "1. payload.plan == &quot;pro&quot;" in labels
    assert "2. payload.vip" in labels
    assert "3. otherwise" in labels


def labels_of(definition: dict) -> dict[tuple[str, str], str]:
    """Each edge's label by (from, to): the label follows its edge's path in the SVG."""
    svg = workflow_diagram_svg(definition)
    found = re.findall(
        r'<path class="dag-edge" data-from="([^"]+)" data-to="([^"]+)"[^>]*/>'
        r'(?:<g class="dag-edge-label">.*?<text[^>]*>(.*?)</text>)?',
        svg,
    )
    return {(a, b): label for a, b, label in found}


def test_an_edge_without_when_is_otherwise_only_after_conditional_ones():
    definition = chain(email_node("a"), sms_node("b"))
    definition["nodes"].append(email_node("c"))
    definition["edges"].append({"from": "a", "to": "c", "when": "payload.vip"})

    # The first edge has no condition and comes first: it is always taken, not "otherwise".
    assert labels_of(definition) == {("a", "b"): "", ("a", "c"): "2. payload.vip"}
    definition["edges"].reverse()
    assert labels_of(definition) == {("a", "c"): "1. payload.vip", ("a", "b"): "2. otherwise"}


def test_a_throttles_edge_without_when_is_the_way_on_for_the_runs_that_passed():
    definition = chain(throttle_node("cap"), email_node("mail"))
    definition["nodes"].append(sms_node("note"))
    definition["edges"].append({"from": "cap", "to": "note", "when": "vars.throttle_cap.throttled"})

    assert labels_of(definition) == {
        ("cap", "mail"): "passed",
        ("cap", "note"): "2. vars.throttle_cap.throttled",
    }


def test_template_text_is_escaped():
    svg = workflow_diagram_svg(chain(email_node("x", to="<script>alert(1)</script>")))

    assert "<script>" not in svg and "&lt;script&gt;" in svg
    ET.fromstring(svg)
