"""Every environment variable Notiflow reads, declared once: its name, how it is read (its type),
its default and what it does (docs/design/rules.md, rule 18). notiflow/settings.py reads each of its
settings through this declaration (`_Env.setting`), so the default it applies is the one written
here, and docs/reference/settings.md is rendered from it (settings_reference; `make
docs-reference` writes it again, tests/test_docs_reference.py fails while it is stale).
tests/test_settings_spec.py fails when the code reads a variable declared nowhere here.

The declarations are grouped by what they configure, one module per part of the system:
service.py (Django, PostgreSQL, the broker, the processes), engine.py (runs, limits, the API),
channels.py (email, SMS, push, chat, providers, webhooks), tools.py (what is read outside
settings.py: `make run`, Flower, traces, the tests and the client package).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import cache


class Kind(Enum):
    """How a variable is read: (what the reference calls its type, the django-environ reader)."""

    TEXT = ("text", "str")
    INT = ("integer", "int")
    NUMBER = ("number", "float")
    BOOL = ("boolean", "bool")
    LIST = ("comma-separated list", "list")
    PATH = ("path", "path")
    DATABASE_URL = ("database URL", "db")
    EMAIL_URL = ("email URL", "email_url")
    # Read exactly as set (notiflow/settings.py `secret`): django-environ would take a value
    # starting with `$` for the name of another variable.
    SECRET = ("secret", "")

    @property
    def label(self) -> str:
        return self.value[0]

    @property
    def reader(self) -> str:
        return self.value[1]


class _Derived:
    def __repr__(self) -> str:
        return "DERIVED"


# A default computed from other settings where it is read (the declaration's `shown` says how).
DERIVED = _Derived()


@dataclass(frozen=True)
class Setting:
    """One environment variable. `name` may stand for a family (`NOTIFLOW_PROVIDER_<NAME>_BACKEND`:
    <NAME> stands for any name). `default` is what applies when it is unset (DERIVED: computed
    by its reader, `shown` says from what); `shown` replaces the default in the reference."""

    name: str
    kind: Kind
    default: object
    doc: str
    shown: str = ""

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(re.sub(r"<[A-Z]+>", ".+", re.escape(self.name)))

    @property
    def default_text(self) -> str:
        if self.shown:
            return self.shown
        value = self.default
        if value is None or value == "" or value == []:
            return "empty"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return "`" + ",".join(str(item) for item in value) + "`"
        if isinstance(value, str):
            return f"`{value}`"
        return f"{value:_}".replace("_", ",") if isinstance(value, int) else str(value)


@dataclass(frozen=True)
class Group:
    """Settings that configure one part of the system, and who reads them."""

    title: str
    read_by: str
    settings: tuple[Setting, ...]


def groups() -> tuple[Group, ...]:
    from notiflow.settings_spec import channels, engine, service, tools

    return (*service.GROUPS, *engine.GROUPS, *channels.GROUPS, *tools.GROUPS)


@cache
def _by_name() -> dict[str, Setting]:
    found: dict[str, Setting] = {}
    for group in groups():
        for spec in group.settings:
            if spec.name in found:
                raise ValueError(f"{spec.name} is declared twice")
            found[spec.name] = spec
    return found


def setting_spec(name: str) -> Setting:
    """The declaration of the variable `name` (a family's, for a member of one); KeyError when
    nothing declares it."""
    specs = _by_name()
    if name in specs:
        return specs[name]
    for spec in specs.values():
        if "<" in spec.name and spec.pattern.fullmatch(name):
            return spec
    raise KeyError(f"{name} is not declared in notiflow/settings_spec/")


def declared(name: str) -> bool:
    try:
        setting_spec(name)
    except KeyError:
        return False
    return True


def all_settings() -> list[Setting]:
    return list(_by_name().values())


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def settings_reference() -> str:
    """docs/reference/settings.md: every group, its reader, and a row per variable."""
    lines = [
        "# Settings",
        "",
        "<!-- Generated from notiflow/settings_spec/ by `make docs-reference`: edit the "
        "declarations, not this page. -->",
        "",
        "Every environment variable Notiflow reads, with its type, its default and what it "
        "does. The processes read them from the environment, or from a `.env` file at the "
        "checkout's root; a value that does not parse as its type, or that breaks a limit "
        "another setting sets, stops every process at start with one line naming it.",
        "",
    ]
    for group in groups():
        lines += [f"## {group.title}", "", f"Read by {group.read_by}.", ""]
        lines += ["| variable | type | default | what it does |", "|---|---|---|---|"]
        for spec in group.settings:
            lines.append(
                f"| `{spec.name}` | {spec.kind.label} | {_cell(spec.default_text)} "
                f"| {_cell(spec.doc)} |"
            )
        lines.append("")
    return "\n".join(lines)


__all__ = [
    "DERIVED",
    "Group",
    "Kind",
    "Setting",
    "all_settings",
    "declared",
    "groups",
    "setting_spec",
    "settings_reference",
]
