"""The short hosts run: one fault (a worker host frozen past its lease, then resumed) under 100
triggers, across network namespaces (`make hosts` runs all four faults under 600 each). Needs
root, for the namespaces; everything it makes is its own and removed at the end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from chaos.services import postgres_bindir
from tests.support.stack import ROOT

# alone: a host frozen past its lease is timed against the lease, with the machine to itself.
pytestmark = [pytest.mark.e2e, pytest.mark.alone, pytest.mark.timeout(300)]


@pytest.fixture(autouse=True)
def can_make_machines() -> None:
    if os.geteuid() != 0:
        pytest.skip("the hosts run makes network namespaces: root only")
    for tool in ("ip", "unshare", "redis-server"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} not found")
    try:
        postgres_bindir()
    except RuntimeError as exc:
        pytest.skip(str(exc))


def test_a_host_frozen_past_its_lease_loses_nothing_and_writes_nothing_twice(tmp_path):
    done = subprocess.run(
        [
            *(sys.executable, "-m", "hosts", "--faults", "sigstop", "--triggers", "100"),
            *("--logs", str(tmp_path)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    print(done.stdout)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "targets: all met" in done.stdout
    assert "lost (acknowledged, not in the database)               0" in done.stdout
