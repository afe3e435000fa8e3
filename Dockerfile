# One image for every Notiflow process: web (gunicorn), worker, beat and flower differ only by
# their command (see docker-compose.yml and the Procfile).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=notiflow.settings \
    NOTIFLOW_HOST=0.0.0.0

WORKDIR /app

# Dependencies first, so that a code change does not reinstall them; at the versions
# constraints.txt pins, as `make install` and CI install them.
COPY pyproject.toml constraints.txt ./
RUN mkdir -p notiflow workflows triggers workers \
    && touch notiflow/__init__.py workflows/__init__.py triggers/__init__.py workers/__init__.py \
    && pip install -c constraints.txt . \
    && pip uninstall -y notiflow

COPY . .
# /var/lib/notiflow/metrics: where docker-compose.yml mounts the metrics volume every process
# shares; owned by the user here, so that a new volume takes that owner.
RUN pip install --no-deps . \
    && DJANGO_DEBUG=1 python manage.py collectstatic --noinput -v 0 \
    && useradd --system --uid 10001 --home-dir /app notiflow \
    && mkdir -p /var/lib/notiflow/metrics \
    && chown -R notiflow /app /var/lib/notiflow

USER notiflow
EXPOSE 8000 5555

# Binds NOTIFLOW_BIND, else NOTIFLOW_HOST:PORT (a platform's PORT; 8000 when unset).
CMD ["gunicorn", "--config", "python:notiflow.gunicorn_conf", "notiflow.asgi"]
