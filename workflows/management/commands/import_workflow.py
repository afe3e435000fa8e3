from django.core.management.base import BaseCommand, CommandError

from common.actors import command_actor
from common.cli import read_json
from workflows.services import WorkflowImportInvalid, workflow_import


class Command(BaseCommand):
    help = (
        "Import workflows exported by export_workflow: new keys are created, existing ones get a "
        "new version when their definition differs. All or nothing: any invalid document and "
        "nothing is saved (exit 1)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the exported JSON file, or - for stdin")

    def handle(self, *args, file, **options):
        document = read_json("@" + file, what="the workflow export")
        documents = document if isinstance(document, list) else [document]
        try:
            results = workflow_import(documents=documents, actor=command_actor("import_workflow"))
        except WorkflowImportInvalid as exc:
            for key, problems in exc.problems.items():
                self.stderr.write(f"{key}:")
                for problem in problems:
                    self.stderr.write(f"  {problem}")
            raise CommandError("nothing imported: fix the problems above") from exc
        for result in results:
            self.stdout.write(f"{result.key}: {result.action} (version {result.version})")
