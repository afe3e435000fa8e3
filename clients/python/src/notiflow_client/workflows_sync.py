"""Workflows as code: a directory tree of JSON files compared with, and pushed to, a Notiflow
deployment over its REST API (`notiflow workflows pull|diff|push|validate`, notiflow_client.cli).

The tree:

    DIR/workflows/<key>.json     a workflow as GET /api/workflows/<key>/ shows it, without what
                                 the server sets (version, created_at, updated_at)
    DIR/categories/<slug>.json   a preference category: {"slug", "name", "description",
                                 "defaults"}, as PUT /api/categories/<slug>/ takes it
    DIR/translations/<locale>.json  a translation catalog's `messages`, as PUT
                                 /api/translations/<locale>/ takes them (keys sorted)

Every file is checked before anything is applied: locally (JSON, an object, its key or slug
matching its file name), then by the server itself, with the write it would be asked for made
with `?dry_run=true` (the server answers exactly what the write would do and saves nothing). So
what a plan calls a new version is the server's own verdict on the definition, normalized as it
stores it. A workflow naming a category that only the tree makes is checked without it (the
category is pushed first) and counts as a new definition. Catalogs and categories are pushed
before workflows and never pruned.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from notiflow_client import NotiflowError

WORKFLOWS, CATEGORIES, TRANSLATIONS = "workflows", "categories", "translations"
# The order a push applies them in: workflows may name categories and translate catalogs' keys.
KINDS = (TRANSLATIONS, CATEGORIES, WORKFLOWS)
# What GET shows of a workflow and the server sets: not in a file, not in a PUT.
SERVER_FIELDS = ("version", "created_at", "updated_at", "warnings")
CATEGORY_FIELDS = ("slug", "name", "description", "defaults")
# What a category left out takes (PUT /api/categories/<slug>/ sets every field).
CATEGORY_DEFAULTS: dict[str, Any] = {"name": "", "description": "", "defaults": {}}

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
    name: str  # the key, the slug or the locale
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
        """The unified diff of the pretty-printed documents, server -> tree."""
        sort_keys = self.kind == TRANSLATIONS
        before = pretty(self.current, sort_keys).splitlines() if self.current is not None else []
        after = pretty(self.after, sort_keys).splitlines() if self.after is not None else []
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


def workflow_document(shown: dict[str, Any]) -> dict[str, Any]:
    """A workflow as a file holds it: what the API shows without what the server sets."""
    return {k: v for k, v in shown.items() if k not in SERVER_FIELDS}


def category_document(shown: dict[str, Any]) -> dict[str, Any]:
    return {k: shown.get(k, CATEGORY_DEFAULTS.get(k)) for k in CATEGORY_FIELDS}


# --- the server ---------------------------------------------------------------------------


def server_list(client: Any, path: str) -> list[dict[str, Any]]:
    """Every object of a paginated list (`?page=N` until `next` is null)."""
    found, page = [], 1
    while True:
        answer = client.request("GET", path, params={"page": page})
        found += answer["results"]
        if not answer.get("next"):
            return found
        page += 1


def server_state(client: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """The server's workflows, categories and catalogs by key, slug and locale, as the API
    shows them."""
    return {
        TRANSLATIONS: {c["locale"]: c for c in server_list(client, "/api/translations/")},
        CATEGORIES: {c["slug"]: c for c in server_list(client, "/api/categories/")},
        WORKFLOWS: {w["key"]: w for w in server_list(client, "/api/workflows/")},
    }


def as_document(kind: str, shown: dict[str, Any]) -> dict[str, Any]:
    """An object as the API shows it, as a file holds it."""
    if kind == TRANSLATIONS:
        return dict(shown["messages"])
    return workflow_document(shown) if kind == WORKFLOWS else category_document(shown)


def pull(client: Any, root: Path) -> Iterator[str]:
    """Write every workflow, category and catalog of the server under `root`; a `.json` file
    there that names nothing on the server is removed. Yields a line per file."""
    state = server_state(client)
    for kind, objects in state.items():
        directory = root / kind
        directory.mkdir(parents=True, exist_ok=True)
        for name, shown in sorted(objects.items()):
            document = as_document(kind, shown)
            text = pretty(document, sort_keys=kind == TRANSLATIONS)
            (directory / f"{name}.json").write_text(text, encoding="utf-8")
            yield f"{kind}/{name}.json"
        for stale in sorted(directory.glob("*.json")):
            if stale.stem not in objects:
                stale.unlink()
                yield f"{kind}/{stale.name}: removed (not on the server)"


# --- the tree -----------------------------------------------------------------------------


def tree_read(root: Path) -> tuple[dict[str, dict[str, Item]], list[Problem]]:
    """The tree's files by kind and name, and what is wrong with them locally."""
    items: dict[str, dict[str, Item]] = {kind: {} for kind in KINDS}
    problems: list[Problem] = []
    if not root.is_dir():
        return items, [Problem(str(root), "", "is not a directory")]
    if not (root / WORKFLOWS).is_dir():
        # Not a tree (a wrong DIR): --prune would deactivate every workflow.
        message = f"has no {WORKFLOWS}/ directory (`notiflow workflows pull` makes one)"
        return items, [Problem(str(root), "", message)]
    name_field = {WORKFLOWS: "key", CATEGORIES: "slug"}
    for kind in KINDS:
        for path in sorted((root / kind).glob("*.json")):
            file = f"{kind}/{path.name}"
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
            except UnicodeDecodeError as exc:
                problems.append(Problem(file, "", f"is not UTF-8 text: {exc.reason}"))
                continue
            except json.JSONDecodeError as exc:
                where = f"line {exc.lineno} column {exc.colno}"
                problems.append(Problem(file, "", f"is not JSON: {exc.msg} ({where})"))
                continue
            if not isinstance(document, dict):
                problems.append(Problem(file, "", "must hold a JSON object"))
                continue
            if kind == TRANSLATIONS:  # the messages alone: the locale is the file's name
                items[kind][path.stem] = Item(kind, path.stem, file, document)
                continue
            key = name_field[kind]
            named = document.setdefault(key, path.stem)
            if named != path.stem:
                message = f"{named!r} does not match the file name ({path.stem!r})"
                problems.append(Problem(file, key, message))
                continue
            if kind == CATEGORIES:
                problems += [
                    Problem(file, unknown, f"unknown field (a category has {CATEGORY_FIELDS})")
                    for unknown in document.keys() - set(CATEGORY_FIELDS)
                ]
            items[kind][path.stem] = Item(kind, path.stem, file, document)
    return items, problems


# --- the plan -----------------------------------------------------------------------------


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


def _dry_run(client: Any, method: str, path: str, body: dict[str, Any]) -> Any:
    """The server's answer to the write, asked with `?dry_run=true`: nothing is saved."""
    return client.request(method, path, json=body, params={"dry_run": "true"})


def plan_make(client: Any, root: Path, *, prune: bool) -> Plan:
    """What pushing `root` would do, each file checked by the server; nothing is changed."""
    tree, problems = tree_read(root)
    plan = Plan(problems=problems)
    if problems:
        return plan
    state = server_state(client)
    for locale, item in tree[TRANSLATIONS].items():
        _plan_translation(client, plan, item, state[TRANSLATIONS].get(locale))
    for slug, item in tree[CATEGORIES].items():
        _plan_category(client, plan, item, state[CATEGORIES].get(slug))
    new_categories = set(tree[CATEGORIES]) - set(state[CATEGORIES])
    for key, item in tree[WORKFLOWS].items():
        _plan_workflow(client, plan, item, state[WORKFLOWS].get(key), new_categories)
    for kind in KINDS:
        for name in sorted(state[kind].keys() - tree[kind].keys()):
            current = as_document(kind, state[kind][name])
            item = Item(kind, name, f"{kind}/{name}.json", None, current, exists=True)
            item.action = ONLY_ON_SERVER
            if kind == WORKFLOWS:
                item.active = bool(current.get("active"))
                if prune and item.active:  # categories and catalogs are never pruned
                    item.action = DEACTIVATE
            plan.items.append(item)
    return plan


def _refused(plan: Plan, item: Item, exc: NotiflowError) -> None:
    if exc.status not in (400, 409):
        raise exc
    found = list(error_paths(exc.errors)) or [("", exc.detail)]
    plan.problems += [Problem(item.file, path, message) for path, message in found]


def _plan_category(client: Any, plan: Plan, item: Item, shown: dict[str, Any] | None) -> None:
    assert item.document is not None
    body = {k: v for k, v in item.document.items() if k != "slug"}
    try:
        answer = _dry_run(client, "PUT", f"/api/categories/{item.name}/", body)
    except NotiflowError as exc:
        return _refused(plan, item, exc)
    current = category_document(shown) if shown is not None else None
    item.current, item.after, item.exists = current, category_document(answer), current is not None
    item.action = CREATED if current is None else (UNCHANGED if item.after == current else CHANGED)
    plan.items.append(item)


def _plan_translation(client: Any, plan: Plan, item: Item, shown: dict[str, Any] | None) -> None:
    assert item.document is not None
    body = {"messages": item.document}
    try:
        answer = _dry_run(client, "PUT", f"/api/translations/{item.name}/", body)
    except NotiflowError as exc:
        return _refused(plan, item, exc)
    if answer["locale"] != item.name:  # the server keeps one casing: pt-BR, not pt-br
        message = f"name the file {answer['locale']}.json (the locale as the server keeps it)"
        plan.problems.append(Problem(item.file, "locale", message))
        return
    current = as_document(TRANSLATIONS, shown) if shown is not None else None
    item.current, item.after, item.exists = current, dict(answer["messages"]), shown is not None
    item.action = CREATED if current is None else (UNCHANGED if item.after == current else CHANGED)
    plan.items.append(item)


def _plan_workflow(
    client: Any,
    plan: Plan,
    item: Item,
    shown: dict[str, Any] | None,
    new_categories: set[str],
) -> None:
    assert item.document is not None
    body = dict(item.document)
    # A category only the tree makes is pushed first; the server cannot check it yet.
    named = body.get("preference_category")
    deferred = named if isinstance(named, str) and named in new_categories else None
    if deferred:
        body["preference_category"] = ""
    try:
        if shown is None:
            answer = _dry_run(client, "POST", "/api/workflows/", body)
        else:
            answer = _dry_run(client, "PUT", f"/api/workflows/{item.name}/", body)
    except NotiflowError as exc:
        return _refused(plan, item, exc)
    current = workflow_document(shown) if shown is not None else None
    item.current, item.after, item.exists = current, workflow_document(answer), current is not None
    if deferred:
        item.after["preference_category"] = deferred
    if shown is None:
        item.action = CREATED
    elif deferred or answer["version"] != shown["version"]:
        item.action = NEW_VERSION
    else:
        item.action = UNCHANGED if item.after == current else CHANGED
    plan.items.append(item)


# --- applying it --------------------------------------------------------------------------


def plan_apply(client: Any, plan: Plan, *, message: str) -> Iterator[str]:
    """Apply a checked plan (no problems): catalogs and categories first (workflows may use
    them), then workflows, then what --prune deactivates. Yields a line per file as it is done."""
    assert not plan.problems
    order = {kind: rank for rank, kind in enumerate(KINDS)}
    for item in sorted(plan.items, key=lambda i: (i.action == DEACTIVATE, order[i.kind], i.name)):
        if not item.changes:
            continue
        yield f"{item.file}: {_apply(client, item, message)}"


def _apply(client: Any, item: Item, message: str) -> str:
    if item.action == DEACTIVATE:
        client.request("PATCH", f"/api/workflows/{item.name}/", json={"active": False})
        return "deactivated"
    assert item.document is not None
    if item.kind == TRANSLATIONS:
        client.request("PUT", f"/api/translations/{item.name}/", json={"messages": item.document})
        return item.action
    if item.kind == CATEGORIES:
        body = {k: v for k, v in item.document.items() if k != "slug"}
        client.request("PUT", f"/api/categories/{item.name}/", json=body)
        return item.action
    body = {**item.document, "message": message}
    if item.exists:
        saved = client.request("PUT", f"/api/workflows/{item.name}/", json=body)
    else:
        saved = client.request("POST", "/api/workflows/", json=body)
    if item.action == CHANGED:
        return f"changed (version {saved['version']} kept)"
    return f"{item.action}: version {saved['version']}"
