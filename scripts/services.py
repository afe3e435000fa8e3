"""Check that PostgreSQL, Redis and (when it is the broker) RabbitMQ answer, and create the
database when it is missing.

python scripts/services.py check    # exit 1 with exact instructions when one is down
python scripts/services.py ensure-db
"""

from __future__ import annotations

import os
import sys
from urllib.parse import urlsplit, urlunsplit

import psycopg
import redis
from psycopg import sql

DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/notiflow")
BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
RABBITMQ = BROKER_URL.startswith(("amqp://", "amqps://", "pyamqp://"))
# Redis is the broker, or beside RabbitMQ still the cache and the rate limits' counters
# (NOTIFLOW_CACHE_URL; its default when the broker is not Redis).
REDIS_URL = (
    os.environ.get("NOTIFLOW_CACHE_URL", "redis://127.0.0.1:6379/1") if RABBITMQ else BROKER_URL
)

HOW_TO_START = """  Start it with one of:
    docker compose up -d db redis   (then DATABASE_URL=postgres://notiflow:notiflow@127.0.0.1:55432/notiflow
                                      CELERY_BROKER_URL=redis://127.0.0.1:56379/0)
    pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start   (Debian, PostgreSQL)
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379                    (Redis)
  or point {var} at a running server."""


def _server_url(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/postgres"))


def check_postgres() -> str | None:
    try:
        psycopg.connect(_server_url(DATABASE_URL), connect_timeout=3).close()
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"PostgreSQL at {DATABASE_URL} cannot be reached: {reason}\n" + HOW_TO_START.format(
            var="DATABASE_URL"
        )
    return None


def check_redis() -> str | None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        return f"Redis at {REDIS_URL} cannot be reached: {exc}\n" + HOW_TO_START.format(
            var="NOTIFLOW_CACHE_URL" if RABBITMQ else "CELERY_BROKER_URL"
        )
    return None


def check_rabbitmq() -> str | None:
    if not RABBITMQ:
        return None
    from kombu import Connection

    try:
        with Connection(BROKER_URL, connect_timeout=3) as connection:
            connection.ensure_connection(max_retries=1)
    except Exception as exc:
        return (
            f"RabbitMQ at {BROKER_URL} cannot be reached: {exc}\n"
            "  Start it with:  rabbitmq-server -detached   (Debian's rabbitmq-server)\n"
            "  or point CELERY_BROKER_URL at a running server."
        )
    return None


def ensure_database() -> bool:
    """Create the database named in DATABASE_URL if it does not exist; True when created."""
    name = urlsplit(DATABASE_URL).path.lstrip("/")
    with psycopg.connect(_server_url(DATABASE_URL), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return not exists


def main(argv: list[str]) -> int:
    problems = [p for p in (check_postgres(), check_redis(), check_rabbitmq()) if p]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    if argv[1:] == ["ensure-db"] and ensure_database():
        print(f"Created database {urlsplit(DATABASE_URL).path.lstrip('/')}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
