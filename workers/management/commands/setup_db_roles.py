import os

from django.core.management.base import BaseCommand, CommandError, CommandParser

from workers.services.roles import KINDS, RoleSetupError, db_role_setup


class Command(BaseCommand):
    help = (
        "Create or update the least-privilege database roles the processes run as: "
        "notiflow_worker (celery workers), notiflow_beat (celery beat), notiflow_web (gunicorn). "
        "Run it as the owner of the tables, after every `migrate`. Passwords come from "
        "NOTIFLOW_DB_PASSWORD_WORKER / _BEAT / _WEB; a new role without one gets a generated "
        "password, printed once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--roles",
            default=",".join(KINDS),
            help=f"which roles to set up, comma-separated [{','.join(KINDS)}]",
        )
        for kind in KINDS:
            parser.add_argument(
                f"--{kind}-role",
                default=f"notiflow_{kind}",
                metavar="NAME",
                help=f"name of the {kind} role [notiflow_{kind}]",
            )
        parser.add_argument(
            "--no-password",
            action="store_true",
            help="never generate a password (for peer, certificate or trust authentication)",
        )

    def handle(self, *args, roles: str, no_password: bool, **options) -> None:
        kinds = [kind.strip() for kind in roles.split(",") if kind.strip()]
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown or not kinds:
            raise CommandError(f"--roles: choose from {', '.join(KINDS)} (got {roles!r})")
        for kind in kinds:
            name = options[f"{kind}_role"]
            try:
                result = db_role_setup(
                    kind=kind,
                    name=name,
                    password=os.environ.get(f"NOTIFLOW_DB_PASSWORD_{kind.upper()}") or None,
                    generate_password=not no_password,
                )
            except RoleSetupError as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(
                f"{result.name} ({kind}): {'created' if result.created else 'updated'}, "
                f"grants on {result.tables} tables and {result.sequences} sequences"
            )
            if result.generated_password:
                self.stdout.write(
                    f"{result.name} password (shown once; set "
                    f"NOTIFLOW_DB_PASSWORD_{kind.upper()} to choose it): "
                    f"{result.generated_password}"
                )
