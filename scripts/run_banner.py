"""What `make run` prints once its processes answer (scripts/run.py): where each one listens, the
admin's login, the API key, and a curl that fires the demo workflow."""

from __future__ import annotations

import secrets
from pathlib import Path

from run_plan import Listener, Plan


def banner(
    plan: Plan, *, password: str, key: str, sms_file: str, env_file: Path, silent: list[Listener]
) -> str:
    base = plan.web.url.rstrip("/")
    lines = [
        "",
        "Notiflow is running (Ctrl-C stops every process).",
        f"  Admin     {base}/admin/   user admin, password {password}",
        f"  API docs  {base}/api/docs/",
        f"  Flower    {plan.flower.url}   user admin, the same password",
    ]
    if plan.mail_web and plan.smtp:
        lines.append(
            f"  Mail      {plan.mail_web.url}   every email the workers send "
            f"(SMTP {plan.smtp.host}:{plan.smtp.port}, {plan.mail_tool})"
        )
    else:
        lines.append(
            f"  Mail      sent through EMAIL_URL={plan.env['EMAIL_URL']} (no catcher started)"
        )
    lines.append(f"  SMS       appended to {sms_file}")
    lines.append(
        f'  Commands  make manage ARGS="notiflow_stats"   (or in a shell: . {env_file}; '
        "python manage.py ...)"
    )
    for listener in plan.listeners:
        if listener.note:
            lines.append(f"  ({listener.name} is on {listener.port}: {listener.note})")
    for listener in silent:
        if listener.probe == "worker":
            lines.append(
                "  NOT READY: not every worker group has registered yet, so triggers may get 503; see the "
                "workers' logs above"
            )
            continue
        lines.append(
            f"  NOT ANSWERING: {listener.name} on {listener.host}:{listener.port}; see its log above"
        )
    # A new key each session: the first curl creates (201), repeating it returns the same (200).
    signup = f"signup-{secrets.token_hex(3)}"
    lines.append(f"""
Fire the demo workflow (run it twice: 201, then 200 with the same id), then open the mail page:

  curl -s -X POST {base}/api/triggers/ \\
    -H 'Authorization: Bearer {key}' -H 'Content-Type: application/json' \\
    -d '{{"workflow": "welcome", "idempotency_key": "{signup}", "payload": {{"email": "ann@example.com", "name": "Ann", "phone": "+15550100"}}}}' \\
    -w '\\nHTTP %{{http_code}}\\n'
""")
    return "\n".join(lines)
