import os
import signal

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")

app = Celery("notiflow")
# Every Celery setting lives in Django settings, prefixed CELERY_ (one commented block there).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _pool_process_leaves_sigterm_to_the_main_process(**_kwargs: object) -> None:
    """SIGTERM means "finish the current step, then stop" (Celery's warm shutdown).

    Celery resets SIGTERM to its default in pool processes, so a SIGTERM sent to the whole process
    group — honcho, `kill -- -PGID`, an init that signals the group — would kill a pool process in
    the middle of a step, leaving the trigger to wait for its lease to expire. The main process
    gets the same signal and shuts down warmly: it stops taking messages and waits for the running
    steps. A hard time limit still stops a stuck step (billiard follows its SIGTERM with SIGKILL).
    """
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
