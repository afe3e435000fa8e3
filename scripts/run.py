"""`make run`: set up a development instance and start web, worker, beat and flower (honcho).

Idempotent: run it again and it reuses the database, the admin password and the API key kept in
.run/ (git-ignored). Set EMAIL_URL / NOTIFLOW_SMS_BACKEND to change where messages go.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_DIR = ROOT / ".run"
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
os.environ.setdefault("EMAIL_URL", "consolemail://")
os.environ.setdefault("NOTIFLOW_SMS_BACKEND", "file")
os.environ.setdefault("NOTIFLOW_SMS_FILE", str(RUN_DIR / "sms.jsonl"))
PORT = os.environ.get("NOTIFLOW_PORT", "8000")
os.environ.setdefault("NOTIFLOW_BIND", f"127.0.0.1:{PORT}")


def manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], check=True, cwd=ROOT)


def secret_file(name: str, make) -> str:
    path = RUN_DIR / name
    if not path.exists():
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


def main() -> int:
    sys.path.insert(0, str(ROOT / "scripts"))
    import services

    RUN_DIR.mkdir(exist_ok=True)
    if services.main(["services", "ensure-db"]) != 0:
        return 1
    manage("migrate", "--noinput", "-v", "0")
    manage("collectstatic", "--noinput", "-v", "0")
    manage("load_demo_workflow")

    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from triggers.services import api_key_authenticate, api_key_create

    password = secret_file("admin-password", lambda: secrets.token_urlsafe(12))
    admin, _ = get_user_model().objects.get_or_create(
        username="admin",
        defaults={"is_staff": True, "is_superuser": True, "email": "admin@localhost"},
    )
    admin.set_password(password)
    admin.save()

    key_path = RUN_DIR / "api-key"
    if not key_path.exists() or api_key_authenticate(key=key_path.read_text().strip()) is None:
        key_path.write_text(api_key_create(name="make-run")[1])
        key_path.chmod(0o600)
    key = key_path.read_text().strip()
    os.environ.setdefault("FLOWER_BASIC_AUTH", f"admin:{password}")

    base = f"http://127.0.0.1:{PORT}"
    # A new key each session: the first curl creates (201), repeating it returns the same (200).
    signup = f"signup-{secrets.token_hex(3)}"
    print(
        f"""
Notiflow is starting.
  Admin:   {base}/admin/   user admin, password {password}
  API docs {base}/api/docs/
  Flower:  http://127.0.0.1:5555/   (admin, same password)
  Emails print in the worker's log; SMS land in {os.environ["NOTIFLOW_SMS_FILE"]}

Fire the demo workflow (run it twice: 201, then 200 with the same id):

  curl -s -X POST {base}/api/triggers/ \\
    -H 'Authorization: Bearer {key}' -H 'Content-Type: application/json' \\
    -d '{{"workflow": "welcome", "idempotency_key": "{signup}", "payload": {{"email": "ann@example.com", "name": "Ann", "phone": "+15550100"}}}}' \\
    -w '\\nHTTP %{{http_code}}\\n'
""",
        flush=True,
    )
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    os.execvpe(  # noqa: S606 (replace this process with honcho)
        str(BIN / "honcho"), [str(BIN / "honcho"), "start", "-f", str(ROOT / "Procfile")], env
    )


if __name__ == "__main__":
    sys.exit(main())
