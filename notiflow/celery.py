import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")

app = Celery("notiflow")
# Every Celery setting lives in Django settings, prefixed CELERY_ (one commented block there).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def close_old_connections_between_tasks(sender: Any = None, **kwargs: Any) -> None:
    """What Django does between requests, between tasks: drop a connection that failed or outlived
    CONN_MAX_AGE, and health-check a kept one before its next use (CELERY_DB_REUSE_MAX keeps it).
    Not for eager tasks, which run inside their caller's transaction."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    close_old_connections()
