"""Registering workers by hand, as a worker's bootstep would (workers/registration.py)."""

from __future__ import annotations

from datetime import timedelta

from django.db.models.functions import Now

from registry.models import Worker
from registry.services import worker_register


def registered(name: str = "w@host", queues: tuple[str, ...] = ("default",), **fields) -> Worker:
    return worker_register(
        name=name,
        host=fields.get("host", "host"),
        pid=fields.get("pid", 4242),
        queues=list(queues),
        concurrency=fields.get("concurrency", 4),
        node_types=fields.get("node_types", ["delay", "email", "sms"]),
        providers=fields.get("providers", {"email": "smtp", "sms": "twilio"}),
        version=fields.get("version", "1.2.3"),
    )


def seen_ago(worker: Worker, seconds: float) -> None:
    """As if its last heartbeat was `seconds` ago by the database's clock."""
    Worker.objects.filter(pk=worker.pk).update(last_seen_at=Now() - timedelta(seconds=seconds))
