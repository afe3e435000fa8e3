"""An email in its layout, with partials (docs/layouts.md): the chain that picks the layout, the
HTML and text parts, escaping, the render budget and depth limit on `{% render %}`, and the
versions a step log keeps of what it rendered with."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.core import mail
from django.test import override_settings

from content.services import catalog_patch, layout_put, partial_put
from tests.factories import chain, email_node
from tests.support.catalogs import catalogs  # noqa: F401 (fixture)
from tests.support.layouts import layouts  # noqa: F401 (fixture)
from tests.workers.helpers import due_trigger
from workers.models import StepExecutionLog
from workers.services.engine import step_execute
from workflows.layouts import layout_key_for
from workflows.nodes.base import RenderError
from workflows.partials import MAX_DEPTH
from workflows.rendered_with import rendered_with_recorded
from workflows.semantics import execution_context, node_render, workflow_context

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("layouts")]

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def context(payload: dict[str, Any] | None = None, default_layout: str = "") -> dict[str, Any]:
    return execution_context(
        payload=payload or {"name": "Ada <3"},
        vars={},
        trigger={"id": "t", "idempotency_key": "k", "created_at": NOW.isoformat()},
        workflow=workflow_context(key="w", name="W", version=1, default_layout=default_layout),
        now=NOW,
    )


def node(**fields: Any) -> dict[str, Any]:
    return {
        "id": "mail",
        "type": "email",
        "to": "a@example.com",
        "subject": "Hi",
        "body": "Line one\nfor {{ payload.name }}",
        **fields,
    }


def test_the_node_html_goes_into_the_layout_and_the_body_into_its_text():
    rendered = node_render(node(layout="brand", html="<p>{{ payload.name }}</p>"), context())
    assert rendered["html"] == (
        "<html><body><h1>Example</h1><p>Ada &lt;3</p><small>Example Inc.</small></body></html>"
    )
    assert rendered["body"] == "Line one\nfor Ada <3\n-- \nExample Inc."


def test_without_html_the_body_is_escaped_with_its_line_breaks_kept():
    rendered = node_render(node(layout="brand"), context())
    assert "<h1>Example</h1>Line one<br>\nfor Ada &lt;3<small>" in rendered["html"]


def test_a_layout_without_text_sends_the_body_alone():
    layout_put(key="bare", name="Bare", html="<div>{{ content }}</div>", text="")
    rendered = node_render(node(layout="bare"), context())
    assert (rendered["html"], rendered["body"]) == (
        "<div>Line one<br>\nfor Ada &lt;3</div>",
        "Line one\nfor Ada <3",
    )


def test_the_layout_sees_the_payload_escaped_and_tenant_as_nothing_yet():
    layout_put(
        key="scoped",
        name="Scoped",
        html="{{ payload.brand }}|{{ tenant | default: 'none' }}|{{ content }}",
    )
    rendered = node_render(node(layout="scoped"), context({"name": "A", "brand": "<b>"}))
    assert rendered["html"].startswith("&lt;b&gt;|none|Line one")


def test_the_chain_is_node_then_tenant_then_workflow_then_the_setting():
    assert layout_key_for(node={"layout": "a"}, tenant={"layout": "b"}, default_layout="c") == (
        "a",
        "node",
    )
    assert layout_key_for(node={}, tenant={"layout": "b"}, default_layout="c") == ("b", "tenant")
    assert layout_key_for(node={}, tenant=None, default_layout="c") == ("c", "workflow")
    with override_settings(NOTIFLOW_DEFAULT_LAYOUT="d"):
        assert layout_key_for(node={}, default_layout="") == ("d", "NOTIFLOW_DEFAULT_LAYOUT")
    assert layout_key_for(node={}) == ("", "")


def test_the_workflow_default_and_the_setting_lay_out_a_node_without_its_own():
    layout_put(key="plain", name="Plain", html="[{{ content }}]")
    assert node_render(node(), context(default_layout="plain"))["html"].startswith("[Line one")
    with override_settings(NOTIFLOW_DEFAULT_LAYOUT="plain"):
        assert node_render(node(), context())["html"].startswith("[Line one")
        assert node_render(node(layout="brand"), context())["html"].startswith("<html>")
    assert "html" not in node_render(node(), context())  # no layout: as the node writes it


def test_a_layout_gone_since_fails_the_render_naming_it_and_who_named_it():
    with override_settings(NOTIFLOW_DEFAULT_LAYOUT="gone"), pytest.raises(RenderError) as failed:
        node_render(node(), context())
    assert str(failed.value) == (
        "node 'mail': layout 'gone' (named by the NOTIFLOW_DEFAULT_LAYOUT) does not exist"
    )


def test_a_partial_renders_with_the_context_and_its_arguments():
    partial_put(key="hello", content="Hi {{ who }} from {{ payload.name }}")
    body = '{% render "hello", who: "you" %}'
    assert node_render(node(body=body), context())["body"] == "Hi you from Ada <3"


def test_a_partial_gone_since_fails_the_render_naming_it():
    with pytest.raises(RenderError, match="partial 'nowhere' does not exist"):
        node_render(node(body='{% render "nowhere" %}'), context())


def test_partials_rendering_themselves_stop_at_the_depth_limit():
    partial_put(key="again", content='x{% render "again" %}')
    with pytest.raises(RenderError, match=f"partials render partials over {MAX_DEPTH} deep"):
        node_render(node(body='{% render "again" %}'), context())
    partial_put(key="d1", content='1{% render "d2" %}')
    partial_put(key="d2", content="2")
    assert node_render(node(body='{% render "d1" %}'), context())["body"] == "12"


@override_settings(NOTIFLOW_TEMPLATE_MAX_ITERATIONS=1000)
def test_a_partial_spends_the_render_budget_of_the_node_that_renders_it():
    partial_put(key="loop", content="{% for i in (1..600) %}.{% endfor %}")
    assert len(node_render(node(body='{% render "loop" %}'), context())["body"]) == 600
    # Each alone within the budget, together over it: one budget for the node and its partials.
    with pytest.raises(RenderError, match="NOTIFLOW_TEMPLATE_MAX_ITERATIONS"):
        node_render(node(body='{% render "loop" %}{% render "loop" %}'), context())


@override_settings(NOTIFLOW_TEMPLATE_MAX_OUTPUT_CHARS=1000)
def test_a_layout_renders_within_the_output_budget():
    layout_put(key="wide", name="Wide", html="{{ content }}" + "x" * 990)
    with pytest.raises(RenderError, match="NOTIFLOW_TEMPLATE_MAX_OUTPUT_CHARS"):
        node_render(node(layout="wide", body="y" * 20), context())


def test_the_versions_rendered_with_are_recorded():
    layout_put(key="brand", name="Brand v2", html="<main>{{ content }}{% render 'footer' %}</main>")
    with rendered_with_recorded() as used:
        node_render(node(layout="brand", body='{% render "greeting" %}'), context())
    assert used == {
        "layouts": {"brand": 2},
        "partials": {"greeting": 1, "footer": 1},
        "catalogs": {"en": 2},  # put by tests.support.catalogs, patched with footer.legal
    }


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_a_step_log_records_the_versions_it_rendered_with():
    catalog_patch(locale="fr", messages={"hi": "Salut"}, actor="tests")  # fr version 3
    definition = {
        **chain(email_node("mail", body='{{ "hi" | t }} {% render "greeting" %}')),
        "default_layout": "brand",
        "default_locale": "fr",
    }
    trigger = due_trigger(definition, payload={"email": "a@example.com", "name": "Zoé"})
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    log = StepExecutionLog.objects.get(trigger=trigger)
    assert log.success, log.error
    assert log.input["content"] == {
        "catalogs": {"fr": 3},
        "partials": {"greeting": 1, "footer": 1},
        "layouts": {"brand": 1},
    }
    (sent,) = mail.outbox
    assert sent.body == "Salut Hello Zoé,\n-- \nExemple SA"
    ((html, kind),) = sent.alternatives
    assert kind == "text/html" and "<small>Exemple SA</small>" in html


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_a_step_without_content_records_none():
    trigger = due_trigger(chain(email_node("mail")))
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    assert "content" not in StepExecutionLog.objects.get(trigger=trigger).input


def test_the_bench_renders_the_same_email_inline_and_through_content():
    # bench/content_cost.py's A/B is fair only if both sides send the same message.
    from bench.content_cost import CONTENT_DEFINITION, INLINE_DEFINITION, content_install
    from bench.fixtures import PAYLOAD

    content_install()
    inline, laid_out = (
        node_render(definition["nodes"][0], context(PAYLOAD))
        for definition in (INLINE_DEFINITION, CONTENT_DEFINITION)
    )
    assert laid_out == inline
    assert "Example Inc." in inline["html"] and "Hello Ann,<br>" in inline["html"]
