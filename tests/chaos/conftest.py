"""What the chaos runs in this folder need: the PostgreSQL and Redis server binaries, since each
run starts a cluster and a redis-server of its own (chaos/services.py)."""

from __future__ import annotations

import shutil

import pytest

from chaos.services import postgres_bindir


@pytest.fixture
def chaos_servers() -> None:
    """Skip, saying what is missing, where a chaos run could not start its own servers."""
    try:
        postgres_bindir()
    except RuntimeError as exc:
        pytest.skip(f"{exc} (the chaos run starts a PostgreSQL cluster of its own)")
    if not shutil.which("redis-server"):
        pytest.skip("redis-server not found (the chaos run starts a Redis of its own)")
