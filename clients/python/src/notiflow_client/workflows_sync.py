"""Workflows as code: a directory tree of JSON files compared with, and pushed to, a Notiflow
deployment over its REST API (`notiflow workflows pull|diff|push|validate`, notiflow_client.cli).

The tree:

    DIR/workflows/<key>.json     a workflow as GET /api/workflows/<key>/ shows it, without what
                                 the server sets (version, created_at, updated_at)
    DIR/categories/<slug>.json   a preference category: {"slug", "name", "description",
                                 "defaults"}, as PUT /api/categories/<slug>/ takes it
    DIR/translations/<locale>.json  a translation catalog's `messages`, as PUT
                                 /api/translations/<locale>/ takes them (keys sorted)
    DIR/layouts/<key>.json       an email layout: {"name", "html", "text"}, as PUT
                                 /api/layouts/<key>/ takes it
    DIR/partials/<key>.liquid    a partial's Liquid, as is (PUT /api/partials/<key>/'s `content`)
    DIR/tenants/<id>.json        a tenant, and DIR/tenants/<id>/translations/<locale>.json its
                                 own catalogs (notiflow_client.tenants_sync)

Every file is checked before anything is applied: locally (JSON, an object, its key or slug
matching its file name), then by the server itself, with the write it would be asked for made
with `?dry_run=true` (the server answers exactly what the write would do and saves nothing). So
what a plan calls a new version is the server's own verdict on the definition, normalized as it
stores it. A workflow naming a category that only the tree makes is checked without it (the
category is pushed first) and counts as a new definition; so does one naming a layout or a
partial only the tree makes (the server's 400 for it alone is set aside). Catalogs, partials,
layouts, categories and tenants are pushed before workflows and never pruned. The tree's
vocabulary (its kinds, items, plans and the server's dry run) is notiflow_client._tree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from notiflow_client import NotiflowError
from notiflow_client._tree import (
    CATEGORIES,
    CHANGED,
    CREATED,
    DEACTIVATE,
    KINDS,
    LAYOUTS,
    NEW_VERSION,
    ONLY_ON_SERVER,
    PARTIALS,
    TENANT_TRANSLATIONS,
    TENANTS,
    TRANSLATIONS,
    UNCHANGED,
    WORKFLOWS,
    Item,
    Plan,
    Problem,
    dry_run,
    error_paths,
    file_name,
    file_text,
    kind_files,
    refused,
    server_list,
)
from notiflow_client.tenants_sync import (
    plan_tenant,
    tenant_apply,
    tenant_document,
    tenant_file_problems,
    tenants_state,
    tenants_tree_problems,
)

LAYOUT_FIELDS = ("name", "html", "text")
# The server's refusal of a workflow naming a layout or partial it does not have (yet).
_MISSING_PIECE = re.compile(r"^(layout|partial) '([^']+)' does not exist$")
# What GET shows of a workflow and the server sets: not in a file, not in a PUT.
SERVER_FIELDS = ("version", "created_at", "updated_at", "warnings")
CATEGORY_FIELDS = ("slug", "name", "description", "defaults")
# What a category left out takes (PUT /api/categories/<slug>/ sets every field).
CATEGORY_DEFAULTS: dict[str, Any] = {"name": "", "description": "", "defaults": {}}


def workflow_document(shown: dict[str, Any]) -> dict[str, Any]:
    """A workflow as a file holds it: what the API shows without what the server sets."""
    return {k: v for k, v in shown.items() if k not in SERVER_FIELDS}


def category_document(shown: dict[str, Any]) -> dict[str, Any]:
    return {k: shown.get(k, CATEGORY_DEFAULTS.get(k)) for k in CATEGORY_FIELDS}


# --- the server ---------------------------------------------------------------------------


def server_state(client: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """The server's workflows, categories, catalogs, layouts, partials and tenants (with their
    own catalogs) by key, slug, locale or id, as the API shows them."""
    return {
        **tenants_state(client),
        TRANSLATIONS: {c["locale"]: c for c in server_list(client, "/api/translations/")},
        PARTIALS: {p["key"]: p for p in server_list(client, "/api/partials/")},
        LAYOUTS: {p["key"]: p for p in server_list(client, "/api/layouts/")},
        CATEGORIES: {c["slug"]: c for c in server_list(client, "/api/categories/")},
        WORKFLOWS: {w["key"]: w for w in server_list(client, "/api/workflows/")},
    }


def as_document(kind: str, shown: dict[str, Any]) -> dict[str, Any]:
    """An object as the API shows it, as a file holds it."""
    if kind in (TRANSLATIONS, TENANT_TRANSLATIONS):
        return dict(shown["messages"])
    if kind == TENANTS:
        return tenant_document(shown)
    if kind == PARTIALS:
        return {"content": shown["content"]}
    if kind == LAYOUTS:
        return {k: shown.get(k, "") for k in LAYOUT_FIELDS}
    return workflow_document(shown) if kind == WORKFLOWS else category_document(shown)


def pull(client: Any, root: Path) -> Iterator[str]:
    """Write every workflow, category, catalog, layout, partial and tenant of the server under
    `root`; a file of one of these kinds there that names nothing on the server is removed.
    Yields a line per file."""
    state = server_state(client)
    for kind, objects in state.items():
        if kind != TENANT_TRANSLATIONS:
            (root / kind).mkdir(parents=True, exist_ok=True)
        for name, shown in sorted(objects.items()):
            path = root / file_name(kind, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(file_text(kind, as_document(kind, shown)), encoding="utf-8")
            yield file_name(kind, name)
        for name, stale in kind_files(root, kind):
            if name not in objects:
                stale.unlink()
                yield f"{stale.relative_to(root).as_posix()}: removed (not on the server)"


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
    name_field = {WORKFLOWS: "key", CATEGORIES: "slug", TENANTS: "id"}
    problems += tenants_tree_problems(root)
    for kind in KINDS:
        for name, path in kind_files(root, kind):
            file = path.relative_to(root).as_posix()
            try:
                if kind == PARTIALS:  # its Liquid as is: the key is the file's name
                    text = path.read_text(encoding="utf-8")
                    items[kind][name] = Item(kind, name, file, {"content": text})
                    continue
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
            if kind in (TRANSLATIONS, TENANT_TRANSLATIONS, LAYOUTS):  # named by the file
                items[kind][name] = Item(kind, name, file, document)
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
            if kind == TENANTS:
                problems += tenant_file_problems(file, document)
            items[kind][name] = Item(kind, name, file, document)
    return items, problems


# --- the plan -----------------------------------------------------------------------------


def plan_make(client: Any, root: Path, *, prune: bool) -> Plan:
    """What pushing `root` would do, each file checked by the server; nothing is changed."""
    tree, problems = tree_read(root)
    plan = Plan(problems=problems)
    if problems:
        return plan
    state = server_state(client)
    for locale, item in tree[TRANSLATIONS].items():
        _plan_translation(client, plan, item, state[TRANSLATIONS].get(locale))
    for kind in (PARTIALS, LAYOUTS):
        for key, item in tree[kind].items():
            _plan_piece(client, plan, item, state[kind].get(key))
    for slug, item in tree[CATEGORIES].items():
        _plan_category(client, plan, item, state[CATEGORIES].get(slug))
    new_categories = set(tree[CATEGORIES]) - set(state[CATEGORIES])
    new_layouts = set(tree[LAYOUTS]) - set(state[LAYOUTS])
    for tenant, item in tree[TENANTS].items():
        shown = state[TENANTS].get(tenant)
        plan_tenant(
            client, plan, item, shown, new_layouts=new_layouts, new_categories=new_categories
        )
    for name, item in tree[TENANT_TRANSLATIONS].items():
        tenant = name.split("/", 1)[0]
        # A tenant the push makes: its catalog checked as a shared one (the same rules).
        scope = {"tenant": tenant} if tenant in state[TENANTS] else {}
        _plan_translation(client, plan, item, state[TENANT_TRANSLATIONS].get(name), **scope)
    new_pieces = {
        kind[:-1]: set(tree[kind]) - set(state[kind]) for kind in (LAYOUTS, PARTIALS)
    }  # by what the server's refusal calls them: layout, partial
    for key, item in tree[WORKFLOWS].items():
        _plan_workflow(client, plan, item, state[WORKFLOWS].get(key), new_categories, new_pieces)
    for kind in KINDS:
        for name in sorted(state[kind].keys() - tree[kind].keys()):
            current = as_document(kind, state[kind][name])
            item = Item(kind, name, file_name(kind, name), None, current, exists=True)
            item.action = ONLY_ON_SERVER
            if kind == WORKFLOWS:
                item.active = bool(current.get("active"))
                if prune and item.active:  # categories and catalogs are never pruned
                    item.action = DEACTIVATE
            plan.items.append(item)
    return plan


def _plan_category(client: Any, plan: Plan, item: Item, shown: dict[str, Any] | None) -> None:
    assert item.document is not None
    body = {k: v for k, v in item.document.items() if k != "slug"}
    try:
        answer = dry_run(client, "PUT", f"/api/categories/{item.name}/", body)
    except NotiflowError as exc:
        return refused(plan, item, exc)
    current = category_document(shown) if shown is not None else None
    item.current, item.after, item.exists = current, category_document(answer), current is not None
    item.action = CREATED if current is None else (UNCHANGED if item.after == current else CHANGED)
    plan.items.append(item)


def _plan_piece(client: Any, plan: Plan, item: Item, shown: dict[str, Any] | None) -> None:
    """A layout or a partial, checked by the server's dry run of its PUT."""
    assert item.document is not None
    try:
        answer = dry_run(client, "PUT", f"/api/{item.kind}/{item.name}/", item.document)
    except NotiflowError as exc:
        return refused(plan, item, exc)
    current = as_document(item.kind, shown) if shown is not None else None
    item.current, item.after, item.exists = current, as_document(item.kind, answer), bool(shown)
    item.action = CREATED if current is None else (UNCHANGED if item.after == current else CHANGED)
    plan.items.append(item)


def _plan_translation(
    client: Any, plan: Plan, item: Item, shown: dict[str, Any] | None, **scope: str
) -> None:
    """A catalog, shared or (`scope`: `tenant`) a tenant's, checked by its PUT's dry run."""
    assert item.document is not None
    locale = item.name.rsplit("/", 1)[-1]
    body = {"messages": item.document}
    try:
        answer = dry_run(client, "PUT", f"/api/translations/{locale}/", body, **scope)
    except NotiflowError as exc:
        return refused(plan, item, exc)
    if answer["locale"] != locale:  # the server keeps one casing: pt-BR, not pt-br
        message = f"name the file {answer['locale']}.json (the locale as the server keeps it)"
        plan.problems.append(Problem(item.file, "locale", message))
        return
    current = as_document(item.kind, shown) if shown is not None else None
    item.current, item.after, item.exists = current, dict(answer["messages"]), shown is not None
    item.action = CREATED if current is None else (UNCHANGED if item.after == current else CHANGED)
    plan.items.append(item)


def _plan_workflow(
    client: Any,
    plan: Plan,
    item: Item,
    shown: dict[str, Any] | None,
    new_categories: set[str],
    new_pieces: dict[str, set[str]],
) -> None:
    assert item.document is not None
    body = dict(item.document)
    # A category only the tree makes is pushed first; the server cannot check it yet.
    named = body.get("preference_category")
    deferred = named if isinstance(named, str) and named in new_categories else None
    if deferred:
        body["preference_category"] = ""
    awaits_pieces = False
    try:
        if shown is None:
            answer = dry_run(client, "POST", "/api/workflows/", body)
        else:
            answer = dry_run(client, "PUT", f"/api/workflows/{item.name}/", body)
    except NotiflowError as exc:
        if not _only_new_pieces(exc, new_pieces):
            return refused(plan, item, exc)
        # Refused only for layouts and partials the push makes first: the file as it is.
        answer, awaits_pieces = dict(body), True
    current = workflow_document(shown) if shown is not None else None
    item.current, item.after, item.exists = current, workflow_document(answer), current is not None
    if deferred:
        item.after["preference_category"] = deferred
    if shown is None:
        item.action = CREATED
    elif deferred or awaits_pieces or answer["version"] != shown["version"]:
        item.action = NEW_VERSION
    else:
        item.action = UNCHANGED if item.after == current else CHANGED
    plan.items.append(item)


def _only_new_pieces(exc: NotiflowError, new_pieces: dict[str, set[str]]) -> bool:
    """Whether a workflow's 400 names nothing but layouts and partials the tree makes."""
    if exc.status != 400:
        return False
    found = list(error_paths(exc.errors))
    for _, message in found:
        missing = _MISSING_PIECE.match(message)
        if missing is None or missing.group(2) not in new_pieces.get(missing.group(1), set()):
            return False
    return bool(found)


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
    if item.kind in (TENANTS, TENANT_TRANSLATIONS):
        return tenant_apply(client, item)
    if item.kind in (LAYOUTS, PARTIALS):
        client.request("PUT", f"/api/{item.kind}/{item.name}/", json=item.document)
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
