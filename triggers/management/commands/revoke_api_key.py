from django.core.management.base import BaseCommand, CommandError

from triggers.api_keys import api_key_revoke
from triggers.models import ApiKey


class Command(BaseCommand):
    help = (
        "Revoke API keys by name: refused at once by new requests of this process, within "
        "NOTIFLOW_API_KEY_CACHE_SECONDS by the running web processes. Revoking a revoked key "
        "changes nothing. Exits 1 if a name is unknown."
    )

    def add_arguments(self, parser):
        parser.add_argument("names", nargs="+", metavar="name", help="the key's name")

    def handle(self, *args, names, **options):
        unknown = 0
        for name in names:
            api_key = ApiKey.objects.filter(name=name.strip()).first()
            if api_key is None:
                unknown += 1
                self.stderr.write(f"{name}: no API key with this name")
            elif api_key_revoke(api_key=api_key):
                self.stdout.write(f"{api_key.name}: revoked")
            else:
                self.stdout.write(
                    f"{api_key.name}: already revoked at {api_key.revoked_at:%Y-%m-%d %H:%M:%S %Z}"
                )
        if unknown:
            raise CommandError(f"{unknown} of {len(names)} names unknown")
