from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Now


class Worker(models.Model):
    """A Celery worker as it describes itself: registered when it is ready, seen again every
    NOTIFLOW_WORKER_HEARTBEAT_SECONDS, marked stopped on a clean shutdown. Live while seen
    within three heartbeats (registry.selectors)."""

    # Celery's node name (`celery@host`, or what -n says): one row per name, reused on restart.
    name = models.CharField(max_length=255)
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    queues = ArrayField(models.CharField(max_length=100), default=list)
    concurrency = models.PositiveIntegerField()
    # What its code can run: node types, and the provider of each channel ({"email": "smtp"}).
    node_types = ArrayField(models.CharField(max_length=32), default=list)
    providers = models.JSONField(default=dict)
    version = models.CharField(max_length=100, blank=True)
    started_at = models.DateTimeField()
    last_seen_at = models.DateTimeField(db_default=Now())
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "worker"
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["name"], name="worker_name_unique")]

    def __str__(self) -> str:
        return self.name
