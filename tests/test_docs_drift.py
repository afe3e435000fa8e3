"""The pages name only what the code has (docs/design/rules.md rule 18; issue 46): a setting
(`NOTIFLOW_…`, `DJANGO_…`) that notiflow/settings_spec/ does not declare, a default written
beside a setting (`NOTIFLOW_WEBHOOK_QUEUE` [`webhooks`]) other than the declared one, a
`manage.py` command no app provides, or a node type the registry lacks fails here, naming the
page. The pages: the README, the client's README, BENCHMARKS.md, docs/ and its decision records."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import get_commands

from notiflow.settings_spec import DERIVED, Kind, all_settings, declared, setting_spec
from tests.test_docs_links import DOCUMENTS, ROOT, without_code
from workflows.nodes import NODE_TYPES

PAGES = [*DOCUMENTS, ROOT / "BENCHMARKS.md"]
# Names a page may use that are no variable of Notiflow's, and why.
NOT_OURS = {
    "NOTIFLOW_WEBHOOK_SECRET": "the client README's example: a setting of the reader's own site",
}
# A variable's name as pages write it: `NOTIFLOW_PROVIDER_<NAME>_BACKEND` (a family),
# `NOTIFLOW_TEMPLATE_*` and `DJANGO_*_COOKIE_SECURE` (every variable so spelled).
SETTING = re.compile(r"\b(?:NOTIFLOW|DJANGO)_(?:[A-Z0-9_]|<[A-Z]+>|\*)*(?:[A-Z0-9]|<[A-Z]+>|\*)")
# `NAME` [default], as the README's table and docs/design/deployment.md's Configuration write it.
DEFAULT_BESIDE = re.compile(
    r"`((?:NOTIFLOW|DJANGO|CELERY|DATABASE|EMAIL)_[A-Z0-9_]+)` \[([^\]]+)\]"
)
# A table's row whose first cell is `NAME`, under a header with a `default` column, as
# docs/security/content.md's limits and docs/reliability/chaos.md's chaos timings write it.
ROW_NAME = re.compile(r"`((?:NOTIFLOW|DJANGO|CELERY|DATABASE|EMAIL)_[A-Z0-9_]+)`")
# Words that follow `manage.py` in a code block's comment, not a command.
PROSE = {"command", "commands"}
_CODE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$|`[^`\n]+`", re.M | re.S)


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def names_in(text: str) -> set[str]:
    return set(SETTING.findall(text))


def exists(name: str) -> bool:
    """Whether `name`, as a page writes it, is a declared variable (a family's name or member;
    a wildcard: at least one), or one of Django's settings (`NOTIFLOW_MAX_RECIPIENTS`)."""
    if "*" in name:
        pattern = re.compile(re.escape(name).replace(r"\*", "[A-Z0-9_]+"))
        return any(pattern.fullmatch(spec.name) for spec in all_settings())
    return declared(name) or hasattr(settings, name)


def literal(written: str) -> object | None:
    """A default as a page writes it, when it is a literal: a number (`1,000`), a backticked
    value, or a boolean word; None for prose (`the broker's Redis server, next database`)."""
    text = written.strip()
    if re.fullmatch(r"[0-9][0-9,]*(\.[0-9]+)?", text):
        return float(text.replace(",", ""))
    if re.fullmatch(r"`[^`]*`", text):
        return text.strip("`")
    return {"true": True, "on": True, "false": False, "off": False}.get(text.lower())


def declared_default(name: str) -> object | None:
    spec = setting_spec(name)
    if spec.default is DERIVED or spec.shown:
        return None
    if spec.kind is Kind.BOOL:
        return bool(spec.default)
    if isinstance(spec.default, int | float):
        return float(spec.default)
    return str(spec.default)


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def defaults_in_tables(text: str) -> Iterator[tuple[str, str]]:
    column = None
    lines = text.splitlines()
    for line, following in zip(lines, [*lines[1:], ""], strict=True):
        if not line.startswith("|"):
            column = None
        elif re.match(r"^\|[-:| ]+\|$", following):
            header = [cell.lower() for cell in cells(line)]
            column = header.index("default") if "default" in header else None
        elif column is not None and len(row := cells(line)) > column:
            named = ROW_NAME.fullmatch(row[0])
            if named:
                yield named[1], row[column]


def defaults_written(text: str) -> Iterator[tuple[str, str]]:
    yield from DEFAULT_BESIDE.findall(text)
    yield from defaults_in_tables(text)


def code_of(text: str) -> str:
    return "\n".join(match[0] for match in _CODE.finditer(text))


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_a_page_names_only_settings_the_code_declares(path):
    unknown = sorted(
        name for name in names_in(path.read_text()) if name not in NOT_OURS and not exists(name)
    )
    assert unknown == [], "declare them in notiflow/settings_spec/, or drop them from the page"


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_a_default_written_beside_a_setting_is_the_declared_one(path):
    wrong = []
    for name, written in defaults_written(path.read_text()):
        value = literal(written)
        if value is None or not declared(name):
            continue
        expected = declared_default(name)
        if expected is not None and value != expected:
            wrong.append(f"{name} [{written}]: the code says {setting_spec(name).default_text}")
    assert wrong == []


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_a_page_names_only_commands_that_exist(path):
    quoted = set(re.findall(r"manage\.py ([a-z_]+)", code_of(path.read_text()))) - PROSE
    quoted |= set(re.findall(r'make manage ARGS="([a-z_]+)', path.read_text()))
    assert sorted(quoted - set(get_commands())) == []


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_a_page_names_only_node_types_the_registry_has(path):
    text = path.read_text()
    named = {
        kind
        for kind in re.findall(r'"type": ?"([a-z_]+)"', text)  # a definition's node
        if kind != "ping"  # a webhook event's `type`, not a node's
    }
    named |= set(re.findall(r"`([a-z_]+)` node\b", without_code(text)))
    assert sorted(named - set(NODE_TYPES)) == []


def test_the_checks_find_what_drifted():
    """Each check fails on the drift issue 46 found: a default the code does not have, a
    variable it does not read, a command and a node type it lacks."""
    page = (
        "`NOTIFLOW_WEBHOOK_QUEUE` [`default`], `NOTIFLOW_WEBHOOK_MAX_ATTEMPTS` [8], "
        "`NOTIFLOW_WEBHOOK_ENDPOINT_CONCURENCY` [2], `NOTIFLOW_TEMPLATE_*`, `NOTIFLOW_NOPE_*`\n"
        "| setting | default |\n|---|---|\n| `NOTIFLOW_WORKFLOW_MAX_NODES` | 300 |\n"
        "`manage.py purge_everything`; a `carrier_pigeon` node\n"
    )
    wrong = {name: literal(written) for name, written in defaults_written(page)}
    assert wrong["NOTIFLOW_WEBHOOK_QUEUE"] != declared_default("NOTIFLOW_WEBHOOK_QUEUE")
    assert wrong["NOTIFLOW_WEBHOOK_MAX_ATTEMPTS"] == declared_default(
        "NOTIFLOW_WEBHOOK_MAX_ATTEMPTS"
    )
    assert wrong["NOTIFLOW_WORKFLOW_MAX_NODES"] != declared_default("NOTIFLOW_WORKFLOW_MAX_NODES")
    assert sorted(name for name in names_in(page) if not exists(name)) == [
        "NOTIFLOW_NOPE_*",
        "NOTIFLOW_WEBHOOK_ENDPOINT_CONCURENCY",
    ]
    assert "purge_everything" not in get_commands()
    assert re.findall(r"`([a-z_]+)` node\b", page) == ["carrier_pigeon"]
