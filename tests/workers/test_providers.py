"""Named providers (workers/providers; docs/design/channels.md, "Providers"): the settings they come from,
the provider of each attempt, and a rate limit's put-back, in process."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
import redis
from django.conf import settings as django_settings

from tests.factories import chain, email_node, sms_node
from tests.support.stack import ROOT
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.channels import node_unrunnable, worker_capabilities
from workers.models import SendLedger, StepExecutionLog
from workers.providers import ProviderConfigError, channel_providers, provider_for_attempt
from workers.services.engine import step_execute
from workers.services.provider_rates import provider_token_take
from workflows.validation import workflow_validate


@pytest.fixture
def two_email_providers(settings):
    settings.NOTIFLOW_EMAIL_PROVIDERS = ["ses", "backup"]
    settings.NOTIFLOW_PROVIDER_SETTINGS = {
        "backup": {"backend": "smtp", "options": {"host": "127.0.0.1", "port": 2525}},
    }
    settings.NOTIFLOW_PROVIDER_RATE_LIMITS = "ses=14/s"
    return settings


def test_names_are_aliases_or_name_their_backend(two_email_providers):
    ses, backup = channel_providers("email")
    assert (ses.name, ses.backend, ses.rate) == (
        "ses",
        "anymail.backends.amazon_ses.EmailBackend",
        (14, 1),
    )
    # Django's SMTP backend, pipelined where the relay offers it (workers/providers/smtp.py).
    assert backup.backend == "workers.providers.smtp.EmailBackend"
    assert backup.options == {"host": "127.0.0.1", "port": 2525} and backup.rate is None
    assert worker_capabilities().providers["email"] == "ses,backup"


def test_without_names_a_channel_has_the_one_provider_of_the_older_settings(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.NOTIFLOW_SMS_BACKEND = "twilio"
    (email,) = channel_providers("email")
    (sms,) = channel_providers("sms")
    assert (email.name, sms.name, sms.backend) == ("smtp", "twilio", "twilio")
    assert email.backend == "workers.providers.smtp.EmailBackend"
    settings.NOTIFLOW_SMS_BACKEND = "none"
    assert channel_providers("sms") == ()


@pytest.mark.parametrize(
    ("names", "configured", "rates", "message"),
    [
        (["nowhere"], {}, "", "email provider 'nowhere': unknown backend 'nowhere'"),
        (["smtp", "smtp"], {}, "", "NOTIFLOW_EMAIL_PROVIDERS names one twice"),
        (["Bad-Name"], {}, "", "provider name 'bad-name'"),
        (["smtp"], {}, "smtp=fast", "NOTIFLOW_PROVIDER_RATE_LIMITS: 'smtp=fast'"),
        (["smtp"], {"smtp": {"backend": "", "options": [1]}}, "", "OPTIONS: not a JSON object"),
    ],
)
def test_provider_settings_that_cannot_work_are_refused_naming_the_setting(
    settings, names, configured, rates, message
):
    settings.NOTIFLOW_EMAIL_PROVIDERS = names
    settings.NOTIFLOW_PROVIDER_SETTINGS = configured
    settings.NOTIFLOW_PROVIDER_RATE_LIMITS = rates
    with pytest.raises(ProviderConfigError, match=message.replace("(", r"\(")):
        channel_providers("email")


def test_each_failed_attempt_moves_to_the_next_provider_round_robin(two_email_providers):
    picks = [provider_for_attempt("email", named="", attempts=n).name for n in range(4)]
    assert picks == ["ses", "backup", "ses", "backup"]
    named = [provider_for_attempt("email", named="backup", attempts=n).name for n in range(3)]
    assert named == ["backup", "ses", "backup"]
    with pytest.raises(LookupError, match="provider 'sendgrid' is not one of this worker's"):
        provider_for_attempt("email", named="sendgrid", attempts=0)


@pytest.mark.django_db
def test_a_node_naming_a_provider_this_worker_lacks_is_not_runnable_here(two_email_providers):
    assert node_unrunnable(email_node("mail", provider="backup")) is None
    assert node_unrunnable(email_node("mail", provider="postmark")) == (
        "no_handler_registered: node 'mail' names provider 'postmark', which this worker does "
        "not have (email providers: ses, backup)"
    )


def test_the_validator_names_a_provider_that_is_not_a_name():
    definition = chain(email_node("mail", provider="Not A Name"), sms_node("text", provider=3))
    errors = {(e.field, e.message[:25]) for e in workflow_validate(definition)}
    assert errors == {
        ("nodes[0].provider", "must be a provider's name"),
        ("nodes[1].provider", "must be a provider's name"),
    }


@pytest.mark.django_db
def test_a_send_without_a_token_is_put_back_for_its_slot_without_counting(settings):
    provider = f"rated{uuid.uuid4().hex[:8]}"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.NOTIFLOW_EMAIL_PROVIDERS = [provider]
    settings.NOTIFLOW_PROVIDER_SETTINGS = {provider: {"backend": "locmem", "options": {}}}
    settings.NOTIFLOW_PROVIDER_RATE_LIMITS = f"{provider}=1/m"
    (rated,) = channel_providers("email")
    assert provider_token_take(rated, idempotency_key="someone-else:mail") is None  # the burst
    trigger = due_trigger(chain(email_node("mail")))

    assert step_execute(trigger_id=str(trigger.pk), worker_id="w") == "enqueued"

    trigger = TriggerInstance.objects.get(pk=trigger.pk)
    assert (trigger.current_node_id, trigger.attempts, trigger.last_error) == ("mail", 0, "")
    assert 50 < (trigger.available_at - trigger.updated_at).total_seconds() <= 61
    assert not StepExecutionLog.objects.filter(trigger=trigger).exists()
    ledger = SendLedger.objects.get(trigger=trigger)
    assert (ledger.status, ledger.send_count, ledger.providers) == ("sending", 0, [])
    # Its slot is reserved: asked again before it, the wait is the rest, and nobody else's.
    slot_key = f"notiflow:provider-rate:{provider}:slot:{trigger.pk}:mail"
    client = redis.Redis.from_url(django_settings.NOTIFLOW_REDIS_URL)
    assert client.exists(slot_key)
    client.delete(f"notiflow:provider-rate:{provider}", slot_key)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"NOTIFLOW_EMAIL_PROVIDERS": "nowhere"}, "email provider 'nowhere': unknown backend"),
        (
            {"NOTIFLOW_EMAIL_PROVIDERS": "a", "NOTIFLOW_PROVIDER_A_OPTIONS": "{port: 1}"},
            "NOTIFLOW_PROVIDER_A_OPTIONS is not JSON",
        ),
    ],
)
def test_a_process_refuses_to_start_with_provider_settings_that_cannot_work(env, message):
    result = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "check"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_DEBUG": "1", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert message in result.stderr
