"""factory_boy factories. Workflows are created through the service, as users create them."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import factory

from workflows.models import Workflow
from workflows.services import workflow_create


def email_node(node_id: str = "email", to: str = "{{ payload.email }}", **fields: Any) -> dict:
    return {
        "id": node_id,
        "type": "email",
        "to": to,
        "subject": "Hello {{ payload.name }}",
        "body": "Body for {{ payload.name }}",
        **fields,
    }


def sms_node(node_id: str = "sms", to: str = "{{ payload.phone }}", **fields: Any) -> dict:
    return {"id": node_id, "type": "sms", "to": to, "body": "Hi {{ payload.name }}", **fields}


def webpush_node(node_id: str = "browser", **fields: Any) -> dict:
    return {
        "id": node_id,
        "type": "webpush",
        "title": "Hi {{ payload.name }}",
        "body": "Your order {{ payload.order }} shipped",
        "url": "/orders/{{ payload.order }}",
        **fields,
    }


def push_node(node_id: str = "phone", **fields: Any) -> dict:
    return {
        "id": node_id,
        "type": "push",
        "title": "Hi {{ payload.name }}",
        "body": "Your order {{ payload.order }} shipped",
        **fields,
    }


def slack_node(node_id: str = "chat", **fields: Any) -> dict:
    return {"id": node_id, "type": "slack", "text": "Hi {{ payload.name }}", **fields}


def teams_node(node_id: str = "team", **fields: Any) -> dict:
    text = {} if "card" in fields else {"text": "Hi {{ payload.name }}"}
    return {"id": node_id, "type": "teams", **text, **fields}


def delay_node(node_id: str = "wait", **fields: Any) -> dict:
    return {"id": node_id, "type": "delay", **(fields if fields else {"delay_ms": 100})}


WEEKDAYS = ["mon", "tue", "wed", "thu", "fri"]


def window_node(node_id: str = "hours", **fields: Any) -> dict:
    """Office hours in the payload's zone."""
    return {
        "id": node_id,
        "type": "window",
        "timezone": "{{ payload.tz }}",
        "days": WEEKDAYS,
        "start": "09:00",
        "end": "18:00",
        **fields,
    }


def throttle_node(node_id: str = "cap", **fields: Any) -> dict:
    return {
        "id": node_id,
        "type": "throttle",
        "key": "{{ payload.user }}",
        "limit": 3,
        "window": "1h",
        **fields,
    }


def digest_node(node_id: str = "batch", **fields: Any) -> dict:
    return {"id": node_id, "type": "digest", "key": "{{ payload.user }}", "window": "10m", **fields}


def chain(*nodes: dict) -> dict:
    """A definition that runs `nodes` one after another."""
    return {
        "entry_node_id": nodes[0]["id"],
        "nodes": list(nodes),
        "edges": [{"from": a["id"], "to": b["id"]} for a, b in itertools.pairwise(nodes)],
    }


class WorkflowFactory(factory.Factory):
    class Meta:
        model = Workflow

    key = factory.LazyFunction(lambda: f"wf-{uuid.uuid4().hex[:10]}")
    name = factory.LazyAttribute(lambda o: f"Workflow {o.key}")
    definition = factory.LazyFunction(lambda: chain(email_node(), sms_node()))
    active = True

    @classmethod
    def _create(cls, model_class, **kwargs):
        return workflow_create(**kwargs, actor="tests")
