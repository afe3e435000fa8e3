"""The demo workflow `make run` loads: valid, and its SMS edge only when there is a phone."""

import pytest
from django.core.management import call_command

from workflows.models import Workflow
from workflows.templating import condition_holds
from workflows.validation import workflow_validate


@pytest.mark.django_db
def test_demo_workflow_loads_valid_and_is_idempotent():
    call_command("load_demo_workflow")
    call_command("load_demo_workflow")
    workflow = Workflow.objects.get(key="welcome")
    assert workflow.version == 1 and workflow_validate(workflow.definition) == []


@pytest.mark.parametrize(
    ("payload", "sends_sms"),
    [
        ({"phone": "+15550100"}, True),
        ({}, False),
        ({"phone": ""}, False),
        ({"phone": None}, False),
    ],
)
def test_demo_sends_sms_only_with_a_phone(payload, sends_sms):
    from workflows.management.commands.load_demo_workflow import DEMO_DEFINITION

    (edge,) = [e for e in DEMO_DEFINITION["edges"] if e["to"] == "welcome_sms"]
    assert condition_holds(edge["when"], {"payload": payload, "vars": {}}) is sends_sms
