"""Every environment variable the code reads is declared once, in notiflow/settings_spec/ (docs/
design/rules.md rule 18; docs/reference/settings.md is rendered from it): a read of a variable nothing
declares fails here, and so does a reader that writes a default other than the declared one, or
a declaration nothing reads. notiflow/settings.py applies the declared defaults."""

from __future__ import annotations

import re
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from notiflow.settings_spec import DERIVED, Kind, all_settings, declared, groups, setting_spec
from notiflow.settings_spec.service import SETTINGS as READ_BY_SETTINGS
from tests.support.sources import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_PY = ROOT / "notiflow" / "settings.py"
# Where the project's Python is: the service's packages, its tools and harnesses, the tests and
# the client package.
SCANNED = [
    *(ROOT / package for package in (*PACKAGES, "waits")),
    *(ROOT / folder for folder in ("scripts", "bench", "chaos", "hosts", "tests")),
    ROOT / "clients" / "python" / "src",
]
# Variables the code reads that no operator sets for Notiflow: the system's and other tools'.
NOT_SETTINGS = {
    "PATH": "the system's",
    "PYTHONPATH": "the system's: the test stack extends it for its processes",
    "CI": "set by CI services; the broker tests ask whether RabbitMQ must be there",
    "PYTEST_XDIST_WORKER": "set by pytest-xdist for each of its test processes",
}
# A request's WSGI environ (common/asgi.py builds one), which is no process environment.
WSGI_KEYS = re.compile(
    r"(HTTP|SERVER|REQUEST|REMOTE|CONTENT)_[A-Z0-9_]+|PATH_INFO|QUERY_STRING|SCRIPT_NAME"
)
# Declared, and read by another program than ours.
READ_ELSEWHERE = {"GUNICORN_CMD_ARGS", "OTEL_<NAME>", "DJANGO_SETTINGS_MODULE"}

_NAME = r"f?[\"']([A-Z][A-Z0-9_]*(?:\{[^}]*\}[A-Z0-9_]*)*)[\"']"
_DEFAULT = r"(?:\s*,\s*(?:default=)?([\"'][^\"']*[\"']|[0-9.]+))?"
_ENVIRON = r"(?:\bos\.environ|(?<![.\w])environ|(?<![.\w])env)"
READS = [
    # os.environ.get("X", "d"), env.get("X"), environ.pop("X"), os.getenv("X"), env.int("X", ...)
    # (a setdefault sets a value for the processes started next: a use, with no default read)
    re.compile(
        r"(?:" + _ENVIRON + r"|\bos)\.(get|pop|setdefault|getenv|str|int|float|bool|list|db|"
        r"path|email_url|setting)\(\s*" + _NAME + _DEFAULT
    ),
    re.compile(r"()" + _ENVIRON + r"\[\s*" + _NAME + r"\s*\]()"),
    re.compile(r"()" + _NAME + r"\s+(?:not\s+)?in\s+" + _ENVIRON + r"\b()"),
]
# A variable's name standing alone as a literal: read by a helper (`_listener(env, ...,
# "NOTIFLOW_MAIL_SMTP_PORT", 1025, ...)`) or set for a process the code starts.
LITERAL = re.compile(r"[\"']((?:NOTIFLOW|DJANGO|OTEL|FLOWER|BENCH)_[A-Z0-9_]+)[\"']")


def sources() -> Iterator[Path]:
    for root in SCANNED:
        yield from (path for path in sorted(root.rglob("*.py")) if path != Path(__file__))


def variable_reads(text: str) -> Iterator[tuple[str, str | None]]:
    """(name, literal default or None) of each read in `text`; an f-string's `{…}` becomes
    `<NAME>`, which a family's declaration matches."""
    for pattern in READS:
        for match in pattern.finditer(text):
            method, name, default = match.groups()
            name = re.sub(r"\{[^}]*\}", "X", name)
            read = default is not None and method != "setdefault"
            yield name, default.strip("\"'") if read else None


def reads_in_the_code() -> dict[str, set[str]]:
    """name -> the files that read it (or name it as a literal, outside the tests)."""
    found: dict[str, set[str]] = {}
    for path in sources():
        text = path.read_text()
        where = str(path.relative_to(ROOT))
        names = {name for name, _ in variable_reads(text)}
        if not where.startswith("tests/"):
            names |= set(LITERAL.findall(text))
        for name in names:
            found.setdefault(name, set()).add(where)
    return found


def django_setting(name: str) -> bool:
    from django.conf import settings

    return hasattr(settings, name)


def test_every_variable_the_code_reads_is_declared():
    undeclared = {
        name: sorted(files)
        for name, files in reads_in_the_code().items()
        if name not in NOT_SETTINGS
        and not WSGI_KEYS.fullmatch(name)
        and not declared(name)
        and not django_setting(name)
    }
    assert undeclared == {}, "declare them in notiflow/settings_spec/"


def test_a_read_of_an_undeclared_variable_is_found():
    text = (
        'x = os.environ.get("NOTIFLOW_NOT_A_SETTING", "3")\ny = env.int("NOTIFLOW_LEASE_SECONDS")'
    )
    assert list(variable_reads(text)) == [
        ("NOTIFLOW_NOT_A_SETTING", "3"),
        ("NOTIFLOW_LEASE_SECONDS", None),
    ]
    assert not declared("NOTIFLOW_NOT_A_SETTING")
    assert declared("NOTIFLOW_PROVIDER_RELAY_OPTIONS")  # a family's member


def test_a_default_written_where_a_variable_is_read_is_the_declared_one():
    differ = []
    for path in sources():
        for name, default in variable_reads(path.read_text()):
            if default in (None, "") or name in NOT_SETTINGS or not declared(name):
                continue
            spec = setting_spec(name)
            if spec.default is DERIVED or spec.kind is Kind.BOOL:
                continue
            if default != str(spec.default):
                differ.append((str(path.relative_to(ROOT)), name, default, spec.default))
    assert differ == []


def test_every_declaration_is_read_somewhere():
    read = reads_in_the_code()
    unread = [
        spec.name
        for spec in all_settings()
        if spec.name not in READ_ELSEWHERE
        and not any(spec.pattern.fullmatch(name) for name in read)
    ]
    assert unread == []


def test_settings_py_reads_its_settings_through_the_declaration():
    text = SETTINGS_PY.read_text()
    through = set(re.findall(r"env\.setting\(\s*\"([A-Z0-9_]+)\"", text))
    expected = {
        spec.name
        for group in groups()
        if group.read_by == READ_BY_SETTINGS
        for spec in group.settings
        if "<" not in spec.name
    }
    assert expected - through == set(), "read them with env.setting"
    assert through - expected == set(), "declare them in a group read by settings.py"


@pytest.fixture
def clean_settings(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """notiflow/settings.py run with no declared variable set (on debug: no secret key needed)."""
    for spec in all_settings():
        monkeypatch.delenv(spec.name, raising=False)
    monkeypatch.setenv("DJANGO_DEBUG", "1")
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    return runpy.run_path(str(SETTINGS_PY))


def test_settings_py_applies_the_declared_defaults(clean_settings):
    """Where settings.py keeps a variable under its own name, unset it holds the declared default
    (NOTIFLOW_WEBHOOK_QUEUE was documented as `default` while the code said `webhooks`)."""
    checked = 0
    for spec in all_settings():
        if (
            spec.name not in clean_settings
            or spec.default is DERIVED
            or spec.name == "DJANGO_DEBUG"
        ):
            continue
        assert clean_settings[spec.name] == spec.default, spec.name
        checked += 1
    assert checked > 80
    assert clean_settings["NOTIFLOW_WEBHOOK_QUEUE"] == "webhooks"


def test_a_derived_default_is_given_where_it_is_read_and_only_there(clean_settings):
    env = clean_settings["env"]
    with pytest.raises(TypeError, match="NOTIFLOW_PUSH_CONCURRENCY"):
        env.setting("NOTIFLOW_PUSH_CONCURRENCY")
    with pytest.raises(TypeError, match="NOTIFLOW_LEASE_SECONDS"):
        env.setting("NOTIFLOW_LEASE_SECONDS", derived=61)
    with pytest.raises(KeyError, match="NOTIFLOW_NOT_A_SETTING"):
        env.setting("NOTIFLOW_NOT_A_SETTING")


def test_a_secret_is_read_exactly_as_set(monkeypatch, clean_settings):
    monkeypatch.setenv("NOTIFLOW_METRICS_TOKEN", "$NOT_A_VARIABLE_NAME")
    assert clean_settings["env"].setting("NOTIFLOW_METRICS_TOKEN") == "$NOT_A_VARIABLE_NAME"
