"""Settings a deployment relies on (docs/security/deployment.md, "Production environment"): no public
fallback for the secret key outside debug, the HTTPS settings from the environment, and
`check --deploy` clean with the documented environment."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.utils import get_random_secret_key

from tests.support.stack import BIN, ROOT

MANAGE = [sys.executable, str(ROOT / "manage.py")]
SECURITY_DOC = ROOT / "docs" / "security" / "deployment.md"


def base_env(**extra: str) -> dict[str, str]:
    """This environment without any Django or security setting, plus `extra`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_") and k not in ("FLOWER_BASIC_AUTH",)
    }
    return {**env, "DJANGO_SETTINGS_MODULE": "notiflow.settings", **extra}


def run(argv: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


REFUSING = [
    pytest.param([*MANAGE, "check"], id="manage.py check"),
    pytest.param([*MANAGE, "create_api_key", "x"], id="a project command"),
    pytest.param([str(BIN / "celery"), "-A", "notiflow", "report"], id="celery"),
    pytest.param(
        [
            str(BIN / "gunicorn"),
            "-c",
            "python:notiflow.gunicorn_conf",
            "notiflow.asgi",
            "-b",
            "127.0.0.1:0",
        ],
        id="gunicorn",
    ),
]


@pytest.mark.parametrize("argv", REFUSING)
def test_without_a_secret_key_outside_debug_every_process_refuses_in_one_line(argv):
    result = run(argv, base_env())
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr[-3000:]
    assert "DJANGO_SECRET_KEY" in lines[0] and "get_random_secret_key" in lines[0]
    assert "DJANGO_DEBUG" in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_secret_key_is_no_key(empty):
    result = run([*MANAGE, "check"], base_env(DJANGO_SECRET_KEY=empty))
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr


def test_with_debug_on_a_fresh_checkout_starts_without_a_key():
    result = run([*MANAGE, "check"], base_env(DJANGO_DEBUG="1"))
    assert result.returncode == 0, result.stderr


def documented_production_environment() -> dict[str, str]:
    """The variables of docs/security/deployment.md's "Production environment" block, with the secrets it
    says to generate generated."""
    text = SECURITY_DOC.read_text()
    section = text[text.index("## Production environment") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "no ```sh block in the Production environment section"
    env = {}
    for line in block[1].splitlines():
        line = line.split("  #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        name, _, value = line.partition("=")
        env[name] = get_random_secret_key() if value.startswith("<") else value
    return env


def test_the_documented_environment_names_only_variables_the_code_reads():
    env = documented_production_environment()
    sources = "".join(
        (ROOT / path).read_text()
        for path in ("notiflow/settings.py", "scripts/flower.py", "notiflow/gunicorn_conf.py")
    )
    unknown = [name for name in env if f'"{name}"' not in sources]
    assert unknown == []
    assert {"DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "FLOWER_BASIC_AUTH"} <= set(env)


def test_check_deploy_is_clean_with_the_documented_production_environment():
    result = run(
        [*MANAGE, "check", "--deploy", "--fail-level", "WARNING"],
        base_env(**documented_production_environment()),
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_fails_without_them():
    # The check above is only worth something if the defaults alone do not pass it.
    result = run(
        [*MANAGE, "check", "--deploy", "--fail-level", "WARNING"],
        base_env(DJANGO_SECRET_KEY=get_random_secret_key()),
        timeout=120,
    )
    assert result.returncode != 0
    for warning in ("W004", "W008", "W012", "W016"):  # HSTS, SSL redirect, the two cookies
        assert f"security.{warning}" in result.stderr + result.stdout, warning


SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; print(json.dumps("
    "[s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS,"
    " s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, s.SECURE_PROXY_SSL_HEADER,"
    " s.CSRF_TRUSTED_ORIGINS]))"
)


def shown(**env: str) -> list:
    result = run(
        [sys.executable, "-c", SHOW], base_env(DJANGO_SECRET_KEY=get_random_secret_key(), **env)
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_https_settings_come_from_the_environment():
    assert shown() == [False, False, False, 0, False, False, None, []]
    assert shown(
        DJANGO_SESSION_COOKIE_SECURE="1",
        DJANGO_CSRF_COOKIE_SECURE="true",
        DJANGO_SECURE_SSL_REDIRECT="yes",
        DJANGO_SECURE_HSTS_SECONDS="31536000",
        DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS="1",
        DJANGO_SECURE_HSTS_PRELOAD="1",
        DJANGO_SECURE_PROXY_SSL_HEADER="HTTP_X_FORWARDED_PROTO,https",
        DJANGO_CSRF_TRUSTED_ORIGINS="https://a.example.com,https://b.example.com",
    ) == [
        True,
        True,
        True,
        31536000,
        True,
        True,
        ["HTTP_X_FORWARDED_PROTO", "https"],
        ["https://a.example.com", "https://b.example.com"],
    ]


@pytest.mark.parametrize("header", ["X-Forwarded-Proto,https", "HTTP_X_FORWARDED_PROTO", "a,b,c"])
def test_a_proxy_header_that_is_not_a_meta_key_and_value_is_refused(header):
    result = run(
        [*MANAGE, "check"], base_env(DJANGO_DEBUG="1", DJANGO_SECURE_PROXY_SSL_HEADER=header)
    )
    assert result.returncode != 0 and "DJANGO_SECURE_PROXY_SSL_HEADER" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("password", ["password", "12345678901", "short"])
def test_weak_passwords_are_refused(password):
    with pytest.raises(ValidationError):
        validate_password(password)


def test_a_strong_password_is_taken():
    validate_password("correct horse battery staple 93")


def test_a_secret_key_starting_with_a_dollar_is_taken_as_it_is():
    # django-environ reads `$NAME` as a reference to the variable NAME; get_random_secret_key()
    # starts with `$` about one time in fifty, and the settings then refused to start.
    key = "$" + get_random_secret_key()[1:]
    result = run([sys.executable, "-c", SHOW_KEY], base_env(DJANGO_SECRET_KEY=key))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == key


@pytest.mark.parametrize("argv", REFUSING)
def test_a_provider_timeout_at_the_soft_limit_stops_every_process_in_one_line(argv):
    # Issue 44: this stopped every process with a ValueError traceback; the in-process cases of
    # every bound are in tests/security/test_settings_refusals.py.
    env = base_env(DJANGO_SECRET_KEY=get_random_secret_key(), NOTIFLOW_PUSH_TIMEOUT_SECONDS="30")
    result = run(argv, env)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr[-3000:]
    assert (
        "NOTIFLOW_PUSH_TIMEOUT_SECONDS=30.0 must be under CELERY_TASK_SOFT_TIME_LIMIT" in lines[0]
    )
    assert "Traceback" not in result.stderr


SHOW_KEY = (
    "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"
)


# --- Weak settings refused outside debug (issue 31) ---------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("s3cr3t", id="5 characters"),
        pytest.param("k" * 60, id="one character repeated"),
        pytest.param("abcd" * 20, id="four different characters"),
        pytest.param("django-insecure-" + get_random_secret_key(), id="django-insecure- prefix"),
    ],
)
def test_a_weak_secret_key_is_refused_outside_debug_in_one_line(key):
    result = run([*MANAGE, "check"], base_env(DJANGO_SECRET_KEY=key))
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "weak DJANGO_SECRET_KEY" in lines[0], result.stderr[-3000:]
    assert key not in result.stderr  # the key itself is not printed

    assert (
        run([*MANAGE, "check"], base_env(DJANGO_SECRET_KEY=key, DJANGO_DEBUG="1")).returncode == 0
    )


@pytest.mark.parametrize(
    ("url", "debug", "refused"),
    [
        ("http://notify.example.com", "0", True),
        ("ftp://notify.example.com", "0", True),
        ("http://notify.example.com", "1", False),
        ("https://notify.example.com", "0", False),
        ("http://127.0.0.1:8000", "0", False),  # make run's own address
    ],
)
def test_a_plain_http_public_url_is_refused_outside_debug(url, debug, refused):
    env = base_env(
        DJANGO_SECRET_KEY=get_random_secret_key(), DJANGO_DEBUG=debug, NOTIFLOW_PUBLIC_URL=url
    )
    result = run([*MANAGE, "check"], env)
    assert (result.returncode != 0) is refused, result.stderr[-3000:]
    if refused:
        assert "NOTIFLOW_PUBLIC_URL must be an https:// URL" in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize("argv", REFUSING)
def test_a_metrics_token_without_a_metrics_directory_is_refused_in_one_line(argv, tmp_path):
    """Without the directory no process records: the scrape would show every counter missing."""
    env = base_env(DJANGO_SECRET_KEY=get_random_secret_key(), NOTIFLOW_METRICS_TOKEN="t")
    result = run(argv, {**env, "NOTIFLOW_METRICS_DIR": ""})
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr[-3000:]
    assert "NOTIFLOW_METRICS_DIR" in lines[0] and "NOTIFLOW_METRICS_TOKEN" in lines[0]

    checked = run([*MANAGE, "check"], {**env, "NOTIFLOW_METRICS_DIR": str(tmp_path)})
    assert checked.returncode == 0, checked.stderr[-3000:]


def gunicorn_config(**env: str) -> str:
    printed = run(
        [
            str(BIN / "gunicorn"),
            "-c",
            "python:notiflow.gunicorn_conf",
            "--print-config",
            "notiflow.asgi",
        ],
        base_env(DJANGO_DEBUG="1", **env),
    )
    assert printed.returncode == 0, printed.stderr
    return printed.stdout


def test_gunicorn_opens_no_control_socket_at_a_path_shared_by_every_instance(tmp_path):
    assert re.search(r"^control_socket_disable\s+= True$", gunicorn_config(), re.M)

    own = str(tmp_path / "web.ctl")
    printed = gunicorn_config(NOTIFLOW_CONTROL_SOCKET=own)
    assert re.search(r"^control_socket_disable\s+= False$", printed, re.M)
    assert re.search(rf"^control_socket\s+= {re.escape(own)}$", printed, re.M)
