"""manage.py prune_workers: the rows of workers long gone leave the registry; live ones never."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from registry.models import Worker
from registry.services import worker_stop
from tests.registry.support import registered, seen_ago

pytestmark = pytest.mark.django_db

DAY = 24 * 3600


def prune(*args: str) -> str:
    out = StringIO()
    call_command("prune_workers", *args, stdout=out)
    return out.getvalue()


def test_workers_not_seen_for_the_period_are_deleted_and_the_others_kept():
    live = registered("live@host")
    stopped_long_ago = registered("stopped@host")
    worker_stop(name=stopped_long_ago.name)
    seen_ago(stopped_long_ago, 8 * DAY)
    vanished = registered("vanished@host")  # killed: never said it stopped
    seen_ago(vanished, 8 * DAY)
    stopped_recently = registered("recent@host")
    worker_stop(name=stopped_recently.name)

    output = prune("--not-seen-for", "7d")

    assert set(Worker.objects.values_list("name", flat=True)) == {live.name, stopped_recently.name}
    assert "stopped@host: deleted" in output and "vanished@host: deleted" in output
    assert output.strip().endswith("Deleted 2 worker row(s) not seen for 7d")


def test_the_dry_run_names_them_and_deletes_nothing():
    seen_ago(registered("old@host"), 2 * DAY)
    output = prune("--not-seen-for", "1d", "--dry-run")
    assert "old@host: would be deleted" in output
    assert Worker.objects.filter(name="old@host").exists()


@pytest.mark.parametrize("period", ["0d", "soon", ""])
def test_a_bad_period_is_refused_naming_the_option(period):
    with pytest.raises(CommandError, match="--not-seen-for"):
        prune("--not-seen-for", period)
