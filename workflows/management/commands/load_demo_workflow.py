from django.core.management.base import BaseCommand

from workflows.models import Workflow
from workflows.services import workflow_create, workflow_update

DEMO_KEY = "welcome"
DEMO_DEFINITION = {
    "entry_node_id": "welcome_email",
    "nodes": [
        {
            "id": "welcome_email",
            "type": "email",
            "to": "{{ payload.email }}",
            "subject": "Welcome to Acme, {{ payload.name }}!",
            "body": "Hi {{ payload.name }},\n\nThanks for signing up ({{ workflow.key }} v{{ workflow.version }}).",
            "html": "<p>Hi <b>{{ payload.name }}</b>, thanks for signing up.</p>",
        },
        {"id": "wait", "type": "delay", "duration": "5s"},
        {
            "id": "welcome_sms",
            "type": "sms",
            "to": "{{ payload.phone }}",
            "body": "Hi {{ payload.name }}, your welcome email is {{ vars.email_welcome_email.message_id }}",
        },
    ],
    "edges": [
        {"from": "welcome_email", "to": "wait"},
        {"from": "wait", "to": "welcome_sms", "when": 'payload.phone and payload.phone != ""'},
    ],
}


class Command(BaseCommand):
    help = "Create (or bring up to date) the demo workflow 'welcome': email -> delay 5s -> sms."

    def handle(self, *args, **options):
        workflow = Workflow.objects.filter(key=DEMO_KEY).first()
        if workflow is None:
            workflow = workflow_create(
                key=DEMO_KEY,
                name="Welcome a new user",
                description="Demo: welcome email, a short pause, then an SMS if we have a phone.",
                definition=DEMO_DEFINITION,
                actor="load_demo_workflow",
            )
        else:
            workflow = workflow_update(
                workflow=workflow,
                definition=DEMO_DEFINITION,
                active=True,
                actor="load_demo_workflow",
            )
        self.stdout.write(f"Demo workflow {workflow.key!r} is at version {workflow.version}.")
