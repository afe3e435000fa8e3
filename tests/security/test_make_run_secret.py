"""`make run` gives its processes a DJANGO_SECRET_KEY of their own, kept in .run/ like the admin
password (the settings refuse to start without one outside debug)."""

from __future__ import annotations

import stat

from tests.support.make_run import load_run_script

run = load_run_script()


def test_make_run_makes_a_secret_key_once_and_keeps_it_private(tmp_path):
    key = run.secret_key(tmp_path)
    path = tmp_path / "secret-key"
    assert path.read_text().strip() == key and len(key) >= 50 and len(set(key)) >= 5
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert run.secret_key(tmp_path) == key  # the next run reuses it: sessions survive a restart


def test_two_development_instances_get_different_keys(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert run.secret_key(tmp_path / "a") != run.secret_key(tmp_path / "b")
