"""The rooms of docs/design/index.md "Stack and layout": the import contracts in pyproject.toml hold,
and the suppression list lives in the app that owns it (deliveries), on its old table."""

from __future__ import annotations

import subprocess
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType

from deliveries.models import Suppression
from tests.support.stack import BIN, ROOT


def test_each_room_imports_only_what_the_contracts_allow():
    run = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_the_suppression_list_belongs_to_deliveries_and_keeps_its_table():
    assert Suppression._meta.app_label == "deliveries"
    assert Suppression._meta.db_table == "suppression"  # no row moved (deliveries 0004)
    with pytest.raises(LookupError):
        django_apps.get_model("workers", "Suppression")


@pytest.mark.django_db
def test_the_suppression_content_type_moves_with_its_permissions():
    move = import_module("deliveries.migrations.0004_suppression_from_workers")
    content_type = ContentType.objects.get(app_label="deliveries", model="suppression")
    content_type.app_label = "workers"  # as an existing database had it before the move
    content_type.save()
    ContentType.objects.clear_cache()

    move.content_type_move(django_apps, None)

    content_type.refresh_from_db()
    assert content_type.app_label == "deliveries"
    assert Permission.objects.filter(
        content_type=content_type, codename="view_suppression"
    ).exists()
