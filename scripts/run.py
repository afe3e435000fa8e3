"""`make run`: set up a development instance, start the Procfile's processes (web, the engine's
worker, the webhook dispatcher's worker `webhooks`, the send-heavy queue's threaded worker `sends`,
the urgent queue's worker `urgent`, beat, flower) and a mail catcher with honcho, and print where each one listens once it does.

Idempotent: run it again and it reuses the database, the admin password, the API key and the
DJANGO_SECRET_KEY kept in .run/ (git-ignored; NOTIFLOW_RUN_DIR moves it). Everything listens on
127.0.0.1:

- web: NOTIFLOW_BIND, or NOTIFLOW_HOST and PORT, as in notiflow/gunicorn_conf.py [127.0.0.1:8000];
- flower: FLOWER_ADDRESS and FLOWER_PORT [127.0.0.1:5555]; its URL reaches every process as
  NOTIFLOW_FLOWER_URL;
- mail: Mailpit when it is on PATH, else scripts/mailcatcher.py, with SMTP on
  NOTIFLOW_MAIL_SMTP_PORT [1025] (EMAIL_URL points there) and its web page on
  NOTIFLOW_MAIL_WEB_PORT [8025]. Set EMAIL_URL yourself to send elsewhere; no catcher starts then.

A port given in the environment must be free, or make run stops and says so; a default port that
is taken is replaced by the next free one, and the banner says which. The banner comes once every
listener answers and the worker has registered, so its URLs are the ones really bound and the
demo trigger is accepted. SMS go to .run/sms.jsonl
(NOTIFLOW_SMS_BACKEND and NOTIFLOW_SMS_FILE change that). Every process records Prometheus
metrics into .run/metrics (NOTIFLOW_METRICS_DIR); with NOTIFLOW_METRICS_TOKEN set, the web
process serves them at /metrics.

The environment the processes share (database, broker, EMAIL_URL, DJANGO_SECRET_KEY, ...) is
written to .run/env: `make manage ARGS="..."` runs manage.py with it, and `. .run/env` gives it to
a shell.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Run as `python scripts/run.py`, this folder is sys.path[0]. Loaded by its path (the make run
# test), it is put there only while the parts below are imported: left there, scripts/flower.py
# would hide the flower package from the process that loaded this module.
_HERE = str(Path(__file__).resolve().parent)
_PATH_ADDED = _HERE not in sys.path
if _PATH_ADDED:
    sys.path.insert(0, _HERE)
try:
    from run_banner import banner
    from run_plan import ROOT, Listener, choose_port, plan, port_free, procfile_processes
    from run_processes import run_honcho
    from run_setup import env_file_write, prepare, secret_key
finally:
    if _PATH_ADDED:
        sys.path.remove(_HERE)

# What tests/ops/test_make_run.py asks of this module, besides main.
__all__ = ["banner", "choose_port", "env_file_write", "plan", "port_free", "procfile_processes"]


# NOTIFLOW_BROKER=rabbitmq make run: the broker by name, on this machine (CELERY_BROKER_URL, when
# set, wins).
BROKERS = {"redis": "redis://127.0.0.1:6379/0", "rabbitmq": "amqp://guest:guest@127.0.0.1:5672//"}


def main() -> int:
    broker = os.environ.get("NOTIFLOW_BROKER", "").strip().lower()
    if broker and broker not in BROKERS:
        print(
            f"NOTIFLOW_BROKER must be one of {', '.join(BROKERS)}, not {broker!r}", file=sys.stderr
        )
        return 2
    if broker:
        os.environ.setdefault("CELERY_BROKER_URL", BROKERS[broker])
    run_dir = Path(os.environ.get("NOTIFLOW_RUN_DIR") or ROOT / ".run").resolve()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
    os.environ.setdefault("NOTIFLOW_SMS_BACKEND", "file")
    os.environ.setdefault("NOTIFLOW_SMS_FILE", str(run_dir / "sms.jsonl"))
    # A development instance: webhooks may go to a receiver on this machine.
    os.environ.setdefault("NOTIFLOW_WEBHOOK_ALLOW_PRIVATE", "true")
    # Load tests against a development instance are common; its API keys are not rate limited
    # unless the environment says otherwise.
    os.environ.setdefault("NOTIFLOW_RATE_LIMIT_TRIGGER", "off")
    os.environ.setdefault("NOTIFLOW_RATE_LIMIT_ADMIN", "off")
    # Every process records its metrics here (docs/design/observability.md, "Metrics"); GET /metrics shows
    # them once NOTIFLOW_METRICS_TOKEN is set (docs/guide/metrics.md).
    os.environ.setdefault("NOTIFLOW_METRICS_DIR", str(run_dir / "metrics"))
    run_dir.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("DJANGO_SECRET_KEY", "").strip():
        os.environ["DJANGO_SECRET_KEY"] = secret_key(run_dir)
    # Ports first: a port that cannot be had stops make run before it changes anything.
    processes = plan(dict(os.environ), run_dir)
    os.environ.update(processes.env)
    secrets_ = prepare(run_dir)
    if secrets_ is None:
        return 1
    password, key = secrets_
    processes.env.setdefault("FLOWER_BASIC_AUTH", f"admin:{password}")
    env_file = env_file_write(processes.env, run_dir)
    # The banner waits for the workers too: until the worker serving a workflow's queue has
    # registered, intake answers 503 (NOTIFLOW_TRIGGER_REQUIRES_WORKER), and the curl below would
    # fail. Every worker group of the Procfile, not the first one up: `webhooks` often registers
    # before the `default` queue's worker.
    web = processes.web
    groups = sum(
        1 for _, command in procfile_processes(processes.procfile) if "worker" in command.split()
    )
    processes.listeners.append(
        Listener(
            "worker",
            web.host,
            web.port,
            "worker",
            "/api/workers/?live=true",
            token=key,
            workers=groups,
        )
    )

    def show(silent: list[Listener]) -> None:
        sms = processes.env["NOTIFLOW_SMS_FILE"]
        print(
            banner(
                processes,
                password=password,
                key=key,
                sms_file=sms,
                env_file=env_file,
                silent=silent,
            ),
            flush=True,
        )

    return run_honcho(processes, run_dir, show)


if __name__ == "__main__":
    sys.exit(main())
