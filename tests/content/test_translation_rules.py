"""Translations (docs/translations.md): the locale chain, the plural rules of the CLDR (English,
French, Russian, Arabic), the `t` filter and the formatting filters in the run's locale, and the
rule that a workflow's templates may only translate keys its default locales have."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.core import mail
from django.test import override_settings
from rest_framework.test import APIClient

from content.services import catalog_put
from recipients.models import Recipient
from tests.factories import WorkflowFactory, chain, email_node
from tests.workers.helpers import due_trigger
from triggers.api_keys import api_key_create
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog
from workers.services.engine import step_execute
from workflows.locales import locale_chain, plural_category
from workflows.semantics import execution_context
from workflows.services import WorkflowInvalid
from workflows.templating import TemplateError, template_render
from workflows.translation import MAX_NESTING

pytestmark = pytest.mark.django_db


def context(
    *, recipient_locale: str = "", trigger_locale: str = "", default_locale: str = ""
) -> dict[str, Any]:
    """A run's context for a recipient in `recipient_locale` (Asia/Tokyo), as the engine and the
    preview build it."""
    return execution_context(
        payload={"n": 0},
        vars={},
        trigger={},
        workflow={},
        now=datetime(2026, 3, 1, tzinfo=UTC),
        recipient={
            "id": "ada",
            "name": "Ada",
            "locale": recipient_locale,
            "timezone": "Asia/Tokyo",
        },
        trigger_locale=trigger_locale,
        default_locale=default_locale,
    )


@pytest.fixture
def admin_api() -> APIClient:
    _, key = api_key_create(name="translations-admin", scope="admin")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api


# --- the chain -------------------------------------------------------------------------------


def test_the_chain_is_trigger_recipient_language_workflow_then_installation():
    assert locale_chain(trigger_locale="pt-BR", recipient_locale="fr-ca", default_locale="de") == (
        "pt-BR",
        "fr-CA",
        "fr",
        "de",
        "en",
    )


@override_settings(NOTIFLOW_DEFAULT_LOCALE="fr")
def test_the_chain_names_each_locale_once_and_leaves_out_unknown_ones():
    assert locale_chain(recipient_locale="fr", default_locale="xx-YY") == ("fr",)
    assert locale_chain() == ("fr",)


def test_the_first_locale_of_the_chain_with_the_key_wins(catalogs):
    greeting = '{{ "welcome.greeting" | t: name: recipient.name }}'
    # fr-CA has no catalog: its language's (fr) comes next, before the defaults.
    assert template_render(greeting, context(recipient_locale="fr-CA")) == "Bonjour Ada !"
    # The trigger's locale comes before the recipient's.
    assert template_render(greeting, context(recipient_locale="fr", trigger_locale="en")) == (
        "Hello Ada!"
    )
    # A key the recipient's catalog lacks comes from further down the chain.
    assert template_render('{{ "only_en" | t }}', context(recipient_locale="fr")) == (
        "English only"
    )
    # The workflow's default comes before the installation's.
    assert template_render(greeting, context(default_locale="fr")) == "Bonjour Ada !"


def test_a_key_in_no_locale_of_the_chain_fails_naming_key_and_chain(catalogs):
    with pytest.raises(TemplateError) as caught:
        template_render('{{ "welcome.gone" | t }}', context(recipient_locale="fr-CA"))
    assert str(caught.value) == (
        "translation 'welcome.gone' is in no catalog of the locale chain fr-CA -> fr -> en"
    )


# --- plurals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "counts"),
    [
        ("en", {0: "other", 1: "one", 2: "other", 5: "other"}),
        ("fr", {0: "one", 1: "one", 2: "other", 5: "other"}),
        ("ru", {1: "one", 2: "few", 5: "many", 21: "one", 22: "few", 1.5: "other"}),
        ("ar", {0: "zero", 1: "one", 2: "two", 3: "few", 11: "many", 100: "other"}),
    ],
)
def test_plural_categories_follow_the_cldr_rule_of_the_locale(locale, counts):
    assert {count: plural_category(locale, count) for count in counts} == counts


def test_count_chooses_the_plural_form_by_the_rule_of_the_catalogs_locale(catalogs):
    items = '{{ "cart.items" | t: count: payload.n }}'
    french, english = context(recipient_locale="fr"), context(recipient_locale="en")
    assert template_render(items, french) == "0 article"  # French 0 is `one`
    assert template_render(items, english) == "0 items"  # English 0 is `other`
    french["payload"]["n"] = 2
    assert template_render(items, french) == "2 articles"


def test_a_form_the_catalog_lacks_is_its_other(catalogs):
    catalog_put(
        locale="ru",
        messages={"cart": {"items": {"one": "{{ count }} товар", "other": "{{ count }} товара"}}},
    )
    rendered = template_render('{{ "cart.items" | t: count: 5 }}', context(recipient_locale="ru"))
    assert rendered == "5 товара"  # `many`, absent: `other`


def test_a_plural_message_without_a_count_is_an_error_saying_so(catalogs):
    with pytest.raises(TemplateError, match=r"'cart.items' \(en\) has plural forms"):
        template_render('{{ "cart.items" | t }}', context())
    with pytest.raises(TemplateError, match="count must be a number"):
        template_render('{{ "cart.items" | t: count: "many" }}', context())


# --- the filter ------------------------------------------------------------------------------


def test_a_message_renders_with_the_run_context_and_the_arguments(catalogs):
    catalog_put(locale="de", messages={"hi": "Hallo {{ who }} ({{ payload.n }}, {{ locales[0] }})"})
    assert template_render('{{ "hi" | t: who: "Ada" }}', context(trigger_locale="de")) == (
        "Hallo Ada (0, de)"
    )


def test_in_an_html_field_what_a_message_inserts_is_escaped_once(catalogs):
    run = context()
    run["payload"]["name"] = "<b>Ada</b>"
    source = '{{ "welcome.greeting" | t: name: payload.name }}'
    assert template_render(source, run, html=True) == "Hello &lt;b&gt;Ada&lt;/b&gt;!"


def test_a_message_that_translates_itself_stops_at_the_nesting_limit(catalogs):
    catalog_put(locale="de", messages={"loop": '{{ "loop" | t }}'})
    with pytest.raises(TemplateError, match=f"over {MAX_NESTING} deep"):
        template_render('{{ "loop" | t }}', context(trigger_locale="de"))


# --- formatting ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "locale", "expected"),
    [
        ("{{ 1234.5 | number }}", "en", "1,234.5"),
        ("{{ 1234.5 | number }}", "fr", "1\u202f234,5"),
        ('{{ "42.5" | money: "EUR" }}', "de", "42,50\xa0€"),
        ('{{ 42.5 | money: "USD" }}', "en", "$42.50"),
        ('{{ "2026-03-01" | date: "long" }}', "fr", "1 mars 2026"),
        ('{{ "2026-03-01" | date: "long" }}', "en", "March 1, 2026"),
        # In the recipient's time zone (Asia/Tokyo, +9): 20:00 UTC is the next day there.
        ('{{ "2026-03-01T20:00:00Z" | date: "short" }}', "en", "3/2/26"),
        ('{{ "2026-03-01T20:00:00Z" | datetime: "short" }}', "fr", "02/03/2026 05:00"),
        # Liquid's own `date` still takes a strftime format.
        ('{{ "2026-03-01" | date: "%Y/%m" }}', "fr", "2026/03"),
    ],
)
def test_numbers_money_and_dates_are_formatted_in_the_runs_locale(source, locale, expected):
    assert template_render(source, context(trigger_locale=locale)) == expected


def test_a_currency_that_is_not_one_is_an_error_naming_it():
    with pytest.raises(TemplateError, match="'EURO' is not an ISO 4217 currency code"):
        template_render('{{ 1 | money: "EURO" }}', context())


# --- saving a workflow -----------------------------------------------------------------------


def test_saving_a_workflow_whose_key_its_default_locales_lack_is_refused_naming_node_field_key(
    catalogs,
):
    definition = chain(
        email_node(
            "mail", subject='{{ "welcome.subject" | t: name: "x" }}', body='{{ "nope" | t }}'
        )
    )
    with pytest.raises(WorkflowInvalid) as caught:
        WorkflowFactory(definition=definition)
    [error] = caught.value.errors
    assert (error.field, error.node) == ("nodes[0].body", "mail")
    assert (
        error.message
        == "translation key 'nope' is in no catalog of the workflow's default locales (en)"
    )


def test_the_api_answers_that_400_with_node_field_and_key(catalogs, admin_api):
    body = {
        "key": "translated",
        "name": "Translated",
        "default_locale": "fr",
        "nodes": [email_node("mail", subject='{{ "only_fr" | t }}')],
    }
    response = admin_api.post("/api/workflows/", body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "field": "nodes[0].subject",
            "node": "mail",
            "message": "translation key 'only_fr' is in no catalog of the workflow's default "
            "locales (fr -> en)",
        }
    ]
    catalog_put(locale="fr", messages={"only_fr": "Seulement en français"})
    created = admin_api.post("/api/workflows/", body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["default_locale"] == "fr"


def test_a_default_locale_that_is_not_one_is_refused(admin_api):
    body = {"key": "x", "name": "X", "default_locale": "xx-YY", "nodes": [email_node("mail")]}
    response = admin_api.post("/api/workflows/", body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"field": "default_locale", "message": "'xx-YY' is not a locale Babel (the CLDR) knows"}
    ]


# --- the engine ------------------------------------------------------------------------------


@override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_a_run_sends_in_its_recipients_language_and_logs_the_chain(catalogs):
    definition = chain(
        email_node(
            "mail",
            subject='{{ "welcome.subject" | t: name: payload.name }}',
            body='{{ "cart.items" | t: count: payload.n }}',
        )
    )
    trigger = due_trigger(definition, payload={"email": "a@example.com", "name": "Al", "n": 0})
    Recipient.objects.create(key="ada-fr", locale="fr-CA")
    TriggerInstance.objects.filter(pk=trigger.pk).update(recipient="ada-fr")

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "completed"
    [sent] = mail.outbox
    assert (sent.subject, sent.body) == ("Bienvenue, Al", "0 article")
    log = StepExecutionLog.objects.get(trigger=trigger)
    assert log.input["locales"] == ["fr-CA", "fr", "en"]


def test_a_run_whose_key_is_in_no_catalog_of_its_chain_fails_permanently(catalogs):
    definition = chain(email_node("mail", subject='{{ "only_en" | t }}'))
    trigger = due_trigger(definition, payload={"email": "a@example.com", "name": "Al"})
    catalog_put(locale="en", messages={"welcome": {"subject": "x"}})  # only_en gone

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "failed"
    trigger.refresh_from_db()
    assert trigger.last_error.endswith(
        "translation 'only_en' is in no catalog of the locale chain en"
    )
