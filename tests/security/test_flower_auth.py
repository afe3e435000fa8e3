"""Flower behind its login everywhere: Flower 2.x serves /metrics and /healthcheck to anyone,
even with --basic_auth; scripts/flower.py puts them behind it (docs/security/deployment.md, "Flower")."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator

import pytest
import requests
from flower import urls
from tornado.web import RequestHandler

from tests.ops.test_processes import FLOWER, flower_env
from tests.support.smtp import free_port
from tests.support.stack import wait_for

LOGIN = ("ops", "s3cret")


@pytest.fixture(scope="module")
def flower(tmp_path_factory) -> Iterator[str]:
    """A real Flower, started as the Procfile starts it, on a free loopback port."""
    tmp_path = tmp_path_factory.mktemp("flower")
    port = free_port()
    env = flower_env(FLOWER_BASIC_AUTH=":".join(LOGIN), FLOWER_PORT=str(port))
    log_path = tmp_path / "flower.log"
    process = subprocess.Popen(
        FLOWER,
        env=env,
        cwd=tmp_path,
        stdout=log_path.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"

    def listening() -> bool:
        assert process.poll() is None, log_path.read_text()
        try:
            requests.get(url, timeout=2)
        except requests.ConnectionError:
            return False
        return True

    try:
        wait_for(listening, timeout=30, interval=0.2, message="flower to listen")
        yield url
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


@pytest.mark.parametrize("path", ["/metrics", "/healthcheck"])
def test_metrics_and_healthcheck_need_the_login(flower, path):
    assert requests.get(flower + path, timeout=10).status_code == 401
    assert requests.get(flower + path, auth=("ops", "wrong"), timeout=10).status_code == 401
    answer = requests.get(flower + path, auth=LOGIN, timeout=10)
    assert answer.status_code == 200 and answer.text


def concrete(pattern: str) -> str:
    """A path the route's pattern matches: every group becomes `x`."""
    return re.sub(r"\([^)]*\)", "x", pattern).rstrip("?").replace("/?", "/")


OPEN_BY_DESIGN = {"/static/(.*)", "/login/?", "/logout", ".*"}  # files, OAuth's login, 404


def routes() -> list[tuple[str, str]]:
    found = []
    for handler in urls.handlers:
        pattern = handler.regex.pattern.rstrip("$") if hasattr(handler, "regex") else handler[0]
        cls = handler.handler_class if hasattr(handler, "handler_class") else handler[1]
        if pattern in OPEN_BY_DESIGN:
            continue
        for method in ("get", "post", "put", "delete"):
            # RequestHandler's own methods answer 405: only those a handler defines serve.
            if getattr(cls, method) is not getattr(RequestHandler, method):
                found.append((method.upper(), concrete(pattern)))
    return found


def test_every_route_of_this_flower_was_found():
    # The route table is Flower's own, read from the installed version.
    paths = {path for _, path in routes()}
    assert {"/metrics", "/healthcheck", "/workers", "/api/workers"} <= paths
    assert ("POST", "/api/worker/shutdown/x") in routes()


@pytest.mark.parametrize(("method", "path"), routes())
def test_no_route_answers_without_the_login(flower, method, path):
    response = requests.request(method, flower + path, timeout=10, allow_redirects=False)
    assert response.status_code == 401, response.text[:200]
