"""The vocabulary of a tree of files kept against a deployment (notiflow_client.workflows_sync,
notiflow_client.tenants_sync): its kinds of file and where each lives, a file's problems, a
plan's items and their actions, and the server's dry run of a write."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from notiflow_client import NotiflowError

WORKFLOWS, CATEGORIES, TRANSLATIONS = "workflows", "categories", "translations"
LAYOUTS, PARTIALS = "layouts", "partials"
# A tenant (tenants/<id>.json) and a tenant's own catalog of a locale
# (tenants/<id>/translations/<locale>.json, named "<id>/<locale>"): notiflow_client.tenants_sync.
TENANTS, TENANT_TRANSLATIONS = "tenants", "tenant translations"
# The order a push applies them in: workflows may name categories, layouts and partials and
# translate catalogs' keys; layouts render partials; tenants name layouts and categories, and
# a tenant's catalogs need their tenant.
KINDS = (TRANSLATIONS, PARTIALS, LAYOUTS, CATEGORIES, TENANTS, TENANT_TRANSLATIONS, WORKFLOWS)
# Each kind's file name ending: a partial is its Liquid as is, everything else JSON.
SUFFIX = {PARTIALS: ".liquid"}
# The kinds whose file holds a catalog's messages (its keys sorted).
CATALOGS = (TRANSLATIONS, TENANT_TRANSLATIONS)

# A plan's actions, as `diff` and `push` print them.
CREATED, NEW_VERSION, CHANGED, UNCHANGED = "created", "new version", "changed", "unchanged"
ONLY_ON_SERVER, DEACTIVATE = "only on the server", "deactivate"


@dataclass(frozen=True)
class Problem:
    """What is wrong with a file: `path` is the place in it (`nodes[1].subject`), "" for the
    whole file."""

    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{where}: {self.message}"


@dataclass
class Item:
    """One file (or one object only on the server) and what pushing does with it."""

    kind: str  # one of KINDS
    name: str  # the key, the slug, the locale, the tenant's id, or "<tenant>/<locale>"
    file: str  # relative to the tree, e.g. workflows/welcome.json
    document: dict[str, Any] | None  # the file's; None: only on the server
    current: dict[str, Any] | None = None  # the server's, as a file would hold it
    after: dict[str, Any] | None = None  # the server's answer to the dry run, as a file
    action: str = UNCHANGED
    exists: bool = False
    active: bool = True  # a workflow only on the server: whether it still is

    @property
    def changes(self) -> bool:
        return self.action in (CREATED, NEW_VERSION, CHANGED, DEACTIVATE)

    def diff(self, root: str) -> list[str]:
        """The unified diff of the files' texts, server -> tree."""
        current, changed = self.current, self.after
        before = file_text(self.kind, current).splitlines() if current is not None else []
        after = file_text(self.kind, changed).splitlines() if changed is not None else []
        if self.action == DEACTIVATE and self.current is not None:
            after = pretty({**self.current, "active": False}).splitlines()
        return list(
            difflib.unified_diff(
                before,
                after,
                fromfile=f"server/{self.file}",
                tofile=f"{root}/{self.file}",
                lineterm="",
            )
        )


@dataclass
class Plan:
    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def changes(self) -> list[Item]:
        return [item for item in self.items if item.changes]


def pretty(document: Any, sort_keys: bool = False) -> str:
    """A file's text: two-space indents, the API's key order (a catalog's sorted), UTF-8 as is,
    a final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=sort_keys) + "\n"


def file_text(kind: str, document: dict[str, Any]) -> str:
    """A file's text: a partial's Liquid as is, anything else pretty JSON (a catalog's keys
    sorted)."""
    if kind == PARTIALS:
        return str(document.get("content", ""))
    return pretty(document, sort_keys=kind in CATALOGS)


def file_name(kind: str, name: str) -> str:
    """The file of `kind` named `name`, relative to the tree."""
    if kind == TENANT_TRANSLATIONS:
        tenant, locale = name.split("/", 1)
        return f"{TENANTS}/{tenant}/{TRANSLATIONS}/{locale}.json"
    return f"{kind}/{name}{SUFFIX.get(kind, '.json')}"


def kind_files(root: Path, kind: str) -> list[tuple[str, Path]]:
    """The tree's files of `kind`: (the name they give, the path), by path."""
    if kind == TENANT_TRANSLATIONS:
        found = sorted((root / TENANTS).glob(f"*/{TRANSLATIONS}/*.json"))
        return [(f"{path.parent.parent.name}/{path.stem}", path) for path in found]
    return [
        (path.stem, path) for path in sorted((root / kind).glob(f"*{SUFFIX.get(kind, '.json')}"))
    ]


# --- the server -------------------------------------------------------------------------------


def server_list(client: Any, path: str, **params: str) -> list[dict[str, Any]]:
    """Every object of a paginated list (`?page=N` until `next` is null)."""
    found, page = [], 1
    while True:
        answer = client.request("GET", path, params={**params, "page": page})
        found += answer["results"]
        if not answer.get("next"):
            return found
        page += 1


# --- the server's verdicts --------------------------------------------------------------------


def error_paths(errors: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(path, message) of every problem in a 400's `errors`: the validator's list of
    {field, message} or a serializer's {field: [messages] | {field: ...}}."""
    if isinstance(errors, dict):
        for name, value in errors.items():
            yield from error_paths(value, f"{prefix}.{name}" if prefix else str(name))
    elif isinstance(errors, list):
        for entry in errors:
            if isinstance(entry, dict) and "message" in entry:
                yield str(entry.get("field") or prefix), str(entry["message"])
            else:
                yield from error_paths(entry, prefix)
    elif errors is not None:
        yield prefix, str(errors)


def dry_run(client: Any, method: str, path: str, body: dict[str, Any], **params: str) -> Any:
    """The server's answer to the write, asked with `?dry_run=true`: nothing is saved."""
    return client.request(method, path, json=body, params={**params, "dry_run": "true"})


def refused(plan: Plan, item: Item, exc: NotiflowError) -> None:
    if exc.status not in (400, 409):
        raise exc
    found = list(error_paths(exc.errors)) or [("", exc.detail)]
    plan.problems += [Problem(item.file, path, message) for path, message in found]
