import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")

app = Celery("notiflow")
# Every Celery setting lives in Django settings, prefixed CELERY_ (one commented block there).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
