from django.core.management.base import BaseCommand, CommandError

from common.cli import progress
from workflows.cli import existing_workflow_key
from workflows.models import Workflow, WorkflowVersion
from workflows.validation import workflow_validate


class Command(BaseCommand):
    help = (
        "Check every stored version of every workflow with the validator (e.g. after upgrading "
        "Notiflow or Liquid). Exits 1 if any version is invalid."
    )

    def add_arguments(self, parser):
        parser.add_argument("--workflow", help="only this workflow (its key)")

    def handle(self, *args, workflow, **options):
        workflow = existing_workflow_key(workflow)
        versions = WorkflowVersion.objects.select_related("workflow").order_by(
            "workflow__key", "number"
        )
        if workflow:
            versions = versions.filter(workflow__key=workflow)
        total = versions.count()
        invalid = []
        for version in progress(versions.iterator(), total=total, description="validating"):
            errors = workflow_validate(version.definition)
            if errors:
                invalid.append((version, errors))
        for version, errors in invalid:
            current = " (current)" if version.workflow.current_version_id == version.pk else ""
            self.stderr.write(f"{version.workflow.key} v{version.number}{current}:")
            for error in errors:
                self.stderr.write(f"  {error.field}: {error.message}")
        missing = Workflow.objects.filter(current_version__isnull=True, active=True)
        if workflow:
            missing = missing.filter(key=workflow)
        for orphan in missing:
            self.stderr.write(f"{orphan.key}: active but has no current version")
        self.stdout.write(
            f"Checked {total} version(s): {total - len(invalid)} valid, {len(invalid)} invalid."
        )
        if invalid or missing.exists():
            raise CommandError("some stored workflows are invalid (listed above)")
