"""gunicorn's settings for every web process: `gunicorn -c python:notiflow.gunicorn_conf
notiflow.wsgi` (Procfile, Dockerfile, the bench). Command-line options and GUNICORN_CMD_ARGS
override these; WEB_CONCURRENCY sets the number of worker processes.

Threaded workers keep client connections alive between requests. On the bench's 2 cores, 2 to 6
processes of 1 to 8 threads all gave about the same intake rate (BENCHMARKS.md): the CPU per
request decides it.
"""

import os

bind = os.environ.get("NOTIFLOW_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = 4
accesslog = "-"
