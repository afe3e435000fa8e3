from django.core.management.base import BaseCommand, CommandError

from triggers.services import api_key_create


class Command(BaseCommand):
    help = (
        "Create an API key for a client. The key is printed once, alone on the last line. "
        "A name already in use, or an empty one, is an error (exit status 1)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="who the key is for, e.g. billing-service; unique")

    def handle(self, *args, name: str, **options):
        try:
            api_key, key = api_key_create(name=name)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"Created API key {api_key.name!r} ({api_key.prefix}…). Store it now:")
        self.stdout.write(key)
