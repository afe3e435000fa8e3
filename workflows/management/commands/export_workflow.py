import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from workflows.models import Workflow
from workflows.selectors import workflow_export, workflow_list


class Command(BaseCommand):
    help = (
        "Export workflows as JSON for import_workflow in another environment (the same body "
        "also works for POST /api/workflows/). One key gives an object; --all a list."
    )

    def add_arguments(self, parser):
        parser.add_argument("keys", nargs="*", metavar="key")
        parser.add_argument("--all", action="store_true", help="every workflow")
        parser.add_argument("--output", "-o", help="write to this file instead of stdout")

    def handle(self, *args, keys, all, output, **options):
        if bool(keys) == bool(all):
            raise CommandError("give workflow keys or --all")
        workflows = list(workflow_list()) if all else []
        for key in keys:
            try:
                workflows.append(workflow_list().get(key=key))
            except Workflow.DoesNotExist as exc:
                raise CommandError(f"no workflow {key!r}") from exc
        documents = [workflow_export(workflow=w) for w in workflows]
        body = documents[0] if len(keys) == 1 else documents
        text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
        if output:
            Path(output).write_text(text)
            self.stderr.write(f"Exported {len(documents)} workflow(s) to {output}.")
        else:
            self.stdout.write(text, ending="")
