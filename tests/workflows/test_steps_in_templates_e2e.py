"""`steps.<id>.delivery` in a template on the real stack (gunicorn, Celery workers, SMTP): a
worker renders it as conditions read it, the preview of the same definition agrees (issue 44:
it used to fail the step with `'steps' is undefined`)."""

from __future__ import annotations

import pytest

from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.workers.helpers import fire, wait_terminal
from workflows.preview import workflow_preview

pytestmark = pytest.mark.e2e


def test_a_worker_renders_steps_in_a_template_as_the_preview_does(api, e2e, smtp_server):
    follow = email_node("follow", subject="Your welcome was {{ steps.welcome.delivery }}")
    workflow = WorkflowFactory(definition=chain(email_node("welcome"), follow))
    address = f"steps-{unique()}@example.com"

    trigger_id = fire(api, workflow, {"email": address, "name": "Ann"})

    trigger = wait_terminal(trigger_id)
    assert trigger.status == "completed", trigger.last_error
    subjects = sorted(mail.subject for mail in smtp_server.handler.to(address))
    assert subjects == ["Hello Ann", "Your welcome was sent"]
    preview = workflow_preview(
        definition=workflow.definition,
        payload={"email": address, "name": "Ann"},
        workflow={"key": workflow.key, "name": workflow.name, "version": 1},
    )
    assert preview.nodes[1].value("subject") == "Your welcome was sent"
