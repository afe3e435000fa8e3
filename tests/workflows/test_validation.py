"""The one validator: every rule of docs/design/domain.md's Workflow section, each error located."""

import pytest

from tests.factories import chain, delay_node, email_node, sms_node
from workflows.validation import workflow_validate


def fields(definition) -> list[str]:
    return [e.field for e in workflow_validate(definition)]


def test_valid_chain_has_no_errors():
    assert workflow_validate(chain(email_node(), delay_node(), sms_node())) == []


def test_cycle_is_rejected():
    definition = chain(email_node("a"), sms_node("b"))
    definition["edges"].append({"from": "b", "to": "a"})
    errors = workflow_validate(definition)
    assert any("cycle" in e.message for e in errors)


def test_unreachable_node_is_named():
    definition = chain(email_node("a"))
    definition["nodes"].append(sms_node("orphan"))
    (error,) = workflow_validate(definition)
    assert error.node == "orphan" and "unreachable" in error.message


def test_dangling_edge_names_the_edge_and_end():
    definition = chain(email_node("a"), sms_node("b"))
    definition["edges"].append({"from": "b", "to": "nowhere"})
    assert "edges[1].to" in fields(definition)


def test_duplicate_node_id():
    definition = chain(email_node("a"), sms_node("b"))
    definition["nodes"].append(sms_node("a"))
    assert "nodes[2].id" in fields(definition)


def test_unknown_node_type():
    definition = chain(email_node("a"))
    definition["nodes"][0]["type"] = "pigeon"
    (error,) = workflow_validate(definition)
    assert error.field == "nodes[0].type" and "pigeon" in error.message and error.node == "a"


@pytest.mark.parametrize(
    ("node", "missing"),
    [
        ({"id": "e", "type": "email", "to": "x@example.com", "body": "b"}, "nodes[0].subject"),
        ({"id": "e", "type": "email", "to": "x@example.com", "subject": "s"}, "nodes[0].body"),
        ({"id": "s", "type": "sms", "to": "+1"}, "nodes[0].body"),
    ],
)
def test_missing_required_field_is_named(node, missing):
    assert missing in fields(chain(node))


@pytest.mark.parametrize("to", [None, ""])
def test_a_send_node_without_to_is_valid_it_sends_to_the_run_recipient(to):
    """docs/design/recipients.md, "Recipients": the address falls back to recipient.email / .phone."""
    email = email_node("e", to=to or "")
    if to is None:
        del email["to"]
    sms = {"id": "s", "type": "sms", "body": "b", "skip_missing": True}
    assert fields(chain(email, sms)) == []
    assert "nodes[0].skip_missing" in fields(chain(email_node("e", skip_missing="yes")))


@pytest.mark.parametrize(
    "delay",
    [
        {},
        {"delay_ms": -5},
        {"duration": "soon"},
        {"delay_ms": "10"},
        {"delay_ms": 5, "duration": "5s"},
        {"duration": "400d"},
    ],
)
def test_bad_delay_is_rejected(delay):
    node = {"id": "wait", "type": "delay", **delay}
    errors = workflow_validate(chain(node))
    assert errors and all(e.node == "wait" for e in errors)


@pytest.mark.parametrize("duration", ["90s", "15m", "2h", "3d", "PT15M", "P1DT2H"])
def test_durations_accepted(duration):
    assert workflow_validate(chain(delay_node(duration=duration))) == []


def test_template_that_does_not_parse_is_named():
    (error,) = workflow_validate(chain(email_node("a", subject="Hi {{ payload.name ")))
    assert error.field == "nodes[0].subject" and error.node == "a"
    assert "template" in error.message


def test_condition_must_parse():
    definition = chain(email_node("a"), sms_node("b"))
    definition["edges"][0]["when"] = "payload.plan =="
    (error,) = workflow_validate(definition)
    assert error.field == "edges[0].when" and error.edge == 0


def test_condition_may_not_smuggle_tags():
    definition = chain(email_node("a"), sms_node("b"))
    definition["edges"][0]["when"] = "true %}{{ payload }}{% if true"
    assert fields(definition) == ["edges[0].when"]


def test_entry_node_must_exist():
    definition = chain(email_node("a"))
    definition["entry_node_id"] = "zzz"
    assert fields(definition) == ["entry_node_id"]


def test_every_problem_is_listed_at_once():
    definition = {
        "entry_node_id": "a",
        "nodes": [email_node("a", subject="{{ oops"), {"id": "a", "type": "sms"}, {"type": "x"}],
        "edges": [{"from": "a", "to": "ghost"}],
    }
    assert len(workflow_validate(definition)) >= 3


@pytest.mark.parametrize("garbage", [None, [], "x", {"nodes": "x"}, {"nodes": [], "edges": {}}])
def test_garbage_shapes_give_errors_not_exceptions(garbage):
    assert workflow_validate(garbage)


def test_node_id_must_be_plain():
    assert "nodes[0].id" in fields(chain(email_node("has space")))
