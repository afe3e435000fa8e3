"""gunicorn's settings for every web process: `gunicorn -c python:notiflow.gunicorn_conf
notiflow.wsgi` (Procfile, Dockerfile, the bench). Command-line options and GUNICORN_CMD_ARGS
override these; WEB_CONCURRENCY sets the number of worker processes.

Threaded workers keep client connections alive between requests, and a kept connection stays
with the worker process that accepted it. The app is loaded before the workers fork
(`preload_app`), so every worker accepts from the moment it is started: loaded after the fork,
the first worker ready took every connection of a burst of new clients while the other was still
importing Django, and served them alone on one core (half the intake rate in BENCHMARKS.md).
"""

import os

bind = os.environ.get("NOTIFLOW_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = 4
accesslog = "-"
preload_app = True
