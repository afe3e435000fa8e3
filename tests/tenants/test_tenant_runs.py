"""What a run of a tenant sees and decides (docs/tenants.md): its templates read `tenant.name`
and `tenant.properties`; the tenant's default locale comes after the recipient's and before the
workflow's in the locale chain; the tenant's catalog of a locale is consulted before the shared
one; the person's preferences for the tenant come before their own, which come before the
tenant's category defaults, which come before the category's. Run by the engine in-process
(tests/tenants/test_tenants_e2e.py runs one in a worker)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from content.services import catalog_put
from recipients.models import Category, Recipient, RecipientTenantPreferences
from recipients.preferences import preference_resolve
from tenants.selectors import TENANTS
from tenants.services import tenant_delete, tenant_put
from tests.factories import chain, delay_node, email_node, sms_node
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog
from workers.services.engine import step_execute
from workflows.locales import locale_chain
from workflows.semantics import execution_context, node_render

pytestmark = pytest.mark.django_db

PAYLOAD = {"email": "ada@example.com", "phone": "+15550100", "name": "Ada"}


@pytest.fixture(autouse=True)
def locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def step(definition: dict, **fields) -> TriggerInstance:
    trigger = due_trigger(definition, payload=PAYLOAD, **fields)
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


# --- templates -----------------------------------------------------------------------------------


def test_a_template_reads_the_tenants_name_and_properties(acme):
    definition = chain(
        email_node(
            "mail",
            subject="News from {{ tenant.name }}",
            body="<img src='{{ tenant.properties.logo_url }}'> for {{ tenant.id }}",
        )
    )
    trigger = step(definition, tenant="acme")
    assert trigger.status == "completed", trigger.last_error
    [sent] = mail.outbox
    assert sent.subject == "News from Acme Corp"
    assert sent.body == "<img src='https://acme.example/logo.png'> for acme"
    log = StepExecutionLog.objects.get(trigger=trigger)
    assert log.input["tenant"]["name"] == "Acme Corp"


def test_a_run_without_a_tenant_has_none_and_a_template_reading_it_fails(acme):
    trigger = step(chain(email_node("mail", subject="{{ tenant.name }}")))
    assert trigger.status == "failed"
    assert "tenant" in trigger.last_error


def test_a_run_whose_tenant_was_deleted_reads_an_empty_one(acme):
    definition = chain(email_node("mail", subject="Hi{{ tenant.name }}"))
    trigger = due_trigger(definition, payload=PAYLOAD, tenant="acme")
    tenant_delete(tenant_id="acme")
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    assert [m.subject for m in mail.outbox] == ["Hi"]


def test_a_step_of_a_run_without_a_tenant_asks_nothing_of_tenants(acme):
    trigger = due_trigger(chain(delay_node("wait", duration="1h")), payload=PAYLOAD)
    with CaptureQueriesContext(connection) as queries:
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
    assert not [q for q in queries if '"tenant' in q["sql"] or "tenant_change" in q["sql"]]


def test_a_step_of_a_run_with_a_tenant_reads_this_processs_copy(acme):
    trigger = due_trigger(chain(delay_node("wait", duration="1h")), payload=PAYLOAD, tenant="acme")
    TENANTS.value()  # this process's copy, as any step after the first finds it
    with CaptureQueriesContext(connection) as queries:
        step_execute(trigger_id=str(trigger.pk), worker_id="w")
    # At most the change log's largest id (once per RECHECK_SECONDS), never the tenant's row.
    assert not [q for q in queries if 'FROM "tenant"' in q["sql"]]


# --- the locale chain ----------------------------------------------------------------------------


def test_the_tenants_locale_comes_after_the_recipients_and_before_the_workflows():
    assert locale_chain(recipient_locale="pt-BR", tenant_locale="fr", default_locale="de") == (
        "pt-BR",
        "pt",
        "fr",
        "de",
        "en",
    )
    assert locale_chain(tenant_locale="fr", default_locale="de") == ("fr", "de", "en")


def test_a_run_of_a_tenant_translates_in_its_locale_before_the_workflows(catalogs, acme):
    definition = {**chain(email_node("mail", subject='{{ "welcome.subject" | t: name: "Al" }}'))}
    trigger = step(definition, tenant="acme")
    assert trigger.status == "completed", trigger.last_error
    assert [m.subject for m in mail.outbox] == ["Bienvenue, Al"]
    log = StepExecutionLog.objects.get(trigger=trigger)
    assert log.input["locales"] == ["fr", "en"]


# --- catalogs per tenant -------------------------------------------------------------------------


def test_a_tenants_catalog_is_consulted_before_the_shared_one(catalogs, acme):
    catalog_put(locale="fr", tenant="acme", messages={"welcome": {"subject": "Salut {{ name }}"}})
    subject = email_node("mail", subject='{{ "welcome.subject" | t: name: "Al" }}')
    greeting = email_node("mail", subject='{{ "welcome.greeting" | t: name: "Al" }}')

    def rendered(node: dict, tenant: dict | None) -> str:
        context = execution_context(
            payload={"email": "a@example.com", "name": "Al"},
            vars={},
            trigger={},
            workflow={},
            now=datetime.now(UTC),
            recipient={"id": "al", "locale": "fr"},
            tenant=tenant,
        )
        return str(node_render(node, context)["subject"])

    acme_context = {"id": "acme", "name": "Acme", "properties": {}}
    assert rendered(subject, acme_context) == "Salut Al"
    assert rendered(subject, None) == "Bienvenue, Al"  # the shared catalog
    assert rendered(subject, {"id": "globex", "name": "", "properties": {}}) == "Bienvenue, Al"
    assert rendered(greeting, acme_context) == "Bonjour Al !"  # not overridden: the shared one


def test_deleting_a_tenant_deletes_its_catalogs_with_a_version(acme):
    catalog_put(locale="fr", tenant="acme", messages={"a": "b"})
    from content.models import TranslationCatalog, TranslationCatalogVersion

    assert tenant_delete(tenant_id="acme") == {"translation_catalogs": 1}
    assert not TranslationCatalog.objects.filter(tenant="acme").exists()
    numbers = TranslationCatalogVersion.objects.filter(tenant="acme").order_by("number")
    assert [v.messages for v in numbers] == [{"a": "b"}, None]


# --- preferences ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tenant_preferences", "own", "tenant_defaults", "defaults", "expected"),
    [
        # The person's preferences for the tenant beat their own...
        (
            {"channels": {"email": True}},
            {"channels": {"email": False}},
            {},
            {},
            (True, "tenants.acme.channels.email"),
        ),
        # ...their own beat the tenant's defaults...
        (
            {},
            {"categories": {"news": {"email": True}}},
            {"email": False},
            {},
            (True, "categories.news.email"),
        ),
        # ...the tenant's defaults beat the category's...
        ({}, {}, {"email": True}, {"email": False}, (True, "tenants.acme.defaults.news.email")),
        ({}, {}, {"email": False}, {"email": True}, (False, "tenants.acme.defaults.news.email")),
        # ...which decide when nothing else does.
        ({}, {}, {"sms": False}, {"email": False}, (False, "defaults.news.email")),
        ({"workflows": {"digest": False}}, {}, {}, {}, (False, "tenants.acme.workflows.digest")),
        ({}, {}, {}, {}, (True, "")),
    ],
)
def test_the_order_is_tenant_preferences_own_tenant_defaults_category_defaults(
    tenant_preferences, own, tenant_defaults, defaults, expected
):
    decision = preference_resolve(
        own,
        workflow="digest",
        category="news",
        channel="email",
        defaults=defaults,
        tenant="acme",
        tenant_preferences=tenant_preferences,
        tenant_defaults=tenant_defaults,
    )
    assert (decision.send, decision.decided_by) == expected


def test_without_a_tenant_its_defaults_and_preferences_are_not_asked():
    decision = preference_resolve(
        {}, workflow="w", category="news", channel="email", defaults={"email": False}
    )
    assert (decision.send, decision.decided_by) == (False, "defaults.news.email")


def test_a_run_skips_a_send_the_tenants_defaults_turn_off_and_the_persons_own_turn_on(acme):
    Category.objects.create(slug="news", defaults={})
    tenant_put(
        tenant_id="acme",
        fields={"name": "Acme", "preferences": {"news": {"email": False, "sms": False}}},
    )
    Recipient.objects.create(key="ada", preferences={"channels": {"sms": True}})
    definition = {**chain(email_node("mail"), sms_node("text")), "preference_category": "news"}
    trigger = due_trigger(definition, payload=PAYLOAD, recipient="ada", tenant="acme")
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    mail_log = StepExecutionLog.objects.get(trigger=trigger, node_id="mail")
    assert mail_log.output["preference"] == "tenants.acme.defaults.news.email"
    assert mail.outbox == []
    TriggerInstance.objects.filter(pk=trigger.pk).update(available_at=trigger.created_at)
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    text_log = StepExecutionLog.objects.get(trigger=trigger, node_id="text")
    assert "skipped" not in text_log.output  # the person's own channels.sms: true


def test_a_persons_preferences_for_the_tenant_decide_before_their_own(acme):
    Category.objects.create(slug="news")
    person = Recipient.objects.create(key="ada", preferences={"channels": {"email": False}})
    RecipientTenantPreferences.objects.create(
        recipient=person, tenant=acme, preferences={"categories": {"news": {"email": True}}}
    )
    definition = {**chain(email_node("mail")), "preference_category": "news"}
    trigger = step(definition, recipient="ada", tenant="acme")
    assert trigger.status == "completed"
    assert [m.to for m in mail.outbox] == [["ada@example.com"]]
    # The same person, another run without the tenant: their own preferences turn it off.
    mail.outbox.clear()
    plain = step(definition, recipient="ada")
    log = StepExecutionLog.objects.get(trigger=plain, node_id="mail")
    assert log.output["preference"] == "channels.email" and mail.outbox == []
