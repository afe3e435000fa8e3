"""The tenants of a tree (notiflow_client.workflows_sync; docs/workflows-as-code.md, "The tree"):

    DIR/tenants/<id>.json                          a tenant, as PUT /api/tenants/<id>/ takes it,
                                                   with its `id`
    DIR/tenants/<id>/translations/<locale>.json    that tenant's own catalog of a locale: the
                                                   `messages` of PUT
                                                   /api/translations/<locale>/?tenant=<id>

A tenant's catalogs sit in the tenant's own directory, not beside the shared ones, because they
are the tenant's: they exist only once it does (pushed after it), and deleting it deletes them.
So the directory of a tenant the tree does not hold (no `tenants/<id>.json`) is refused, as is
any other file under `tenants/`. A tenant naming a layout or a category only the tree makes is
checked without it (they are pushed first); a catalog of a tenant only the tree makes is checked
as a shared catalog would be (the same rules), and saved after its tenant. Tenants are never
pruned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from notiflow_client import NotiflowError
from notiflow_client._tree import (
    CHANGED,
    CREATED,
    TENANT_TRANSLATIONS,
    TENANTS,
    TRANSLATIONS,
    UNCHANGED,
    Item,
    Plan,
    Problem,
    dry_run,
    refused,
    server_list,
)

TENANT_FIELDS = ("id", "name", "properties", "default_locale", "layout", "preferences")
# What a tenant left out takes (PUT /api/tenants/<id>/ sets every field).
TENANT_DEFAULTS: dict[str, Any] = {
    "name": "",
    "properties": {},
    "default_locale": "",
    "layout": "",
    "preferences": {},
}
_LAYOUT = "tenants/<id>.json and tenants/<id>/translations/<locale>.json"


def tenant_document(shown: dict[str, Any]) -> dict[str, Any]:
    """A tenant as its file holds it: its fields, without what the server sets (its times)."""
    return {k: shown.get(k, TENANT_DEFAULTS.get(k)) for k in TENANT_FIELDS}


def tenants_state(client: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """The server's tenants by id and their own catalogs by "<id>/<locale>" (a list of each
    tenant's catalogs: one request per tenant)."""
    tenants = {t["id"]: t for t in server_list(client, "/api/tenants/")}
    catalogs = {
        f"{tenant}/{catalog['locale']}": catalog
        for tenant in tenants
        for catalog in server_list(client, "/api/translations/", tenant=tenant)
    }
    return {TENANTS: tenants, TENANT_TRANSLATIONS: catalogs}


def tenants_tree_problems(root: Path) -> list[Problem]:
    """What under `root/tenants/` is neither a tenant nor a tenant's catalog: each an error (a
    misplaced catalog would otherwise be silently left out of a push)."""
    base = root / TENANTS
    if not base.is_dir():
        return []
    tenants = {path.stem for path in base.glob("*.json")}
    problems = []
    for path in sorted(base.rglob("*")):
        parts = path.relative_to(base).parts
        file = f"{TENANTS}/{'/'.join(parts)}"
        if path.is_dir():
            if len(parts) == 1 and parts[0] not in tenants:
                message = f"a tenant's directory needs {TENANTS}/{parts[0]}.json beside it"
                problems.append(Problem(file + "/", "", message))
            elif len(parts) == 2 and parts[1] != TRANSLATIONS:
                problems.append(
                    Problem(file + "/", "", f"unknown directory (the tree has {_LAYOUT})")
                )
            continue
        catalog = len(parts) == 3 and parts[1] == TRANSLATIONS
        if path.suffix != ".json" or len(parts) not in (1, 3) or (len(parts) == 3 and not catalog):
            problems.append(Problem(file, "", f"unknown file (the tree has {_LAYOUT})"))
    return problems


def tenant_file_problems(file: str, document: dict[str, Any]) -> list[Problem]:
    return [
        Problem(file, unknown, f"unknown field (a tenant has {TENANT_FIELDS})")
        for unknown in sorted(document.keys() - set(TENANT_FIELDS))
    ]


def plan_tenant(
    client: Any,
    plan: Plan,
    item: Item,
    shown: dict[str, Any] | None,
    *,
    new_layouts: set[str],
    new_categories: set[str],
) -> None:
    """A tenant, checked by the server's dry run of its PUT; a layout or categories only the
    tree makes are left out of the check (they are pushed first) and kept in the plan."""
    assert item.document is not None
    body = {k: v for k, v in item.document.items() if k != "id"}
    deferred: dict[str, Any] = {}
    if isinstance(body.get("layout"), str) and body["layout"] in new_layouts:
        deferred["layout"] = body.pop("layout")
    preferences = body.get("preferences")
    if isinstance(preferences, dict) and new_categories & preferences.keys():
        body["preferences"] = {k: v for k, v in preferences.items() if k not in new_categories}
    try:
        answer = dry_run(client, "PUT", f"/api/{TENANTS}/{item.name}/", body)
    except NotiflowError as exc:
        return refused(plan, item, exc)
    after = {**tenant_document(answer), **deferred}
    if isinstance(preferences, dict):
        after["preferences"] = {**after["preferences"], **preferences}
    current = tenant_document(shown) if shown is not None else None
    item.current, item.after, item.exists = current, after, current is not None
    item.action = CREATED if current is None else (UNCHANGED if after == current else CHANGED)
    plan.items.append(item)


def tenant_apply(client: Any, item: Item) -> str:
    """Push a tenant or a tenant's catalog as planned."""
    assert item.document is not None
    if item.kind == TENANTS:
        body = {k: v for k, v in item.document.items() if k != "id"}
        client.request("PUT", f"/api/{TENANTS}/{item.name}/", json=body)
        return item.action
    tenant, locale = item.name.split("/", 1)
    client.request(
        "PUT",
        f"/api/{TRANSLATIONS}/{locale}/",
        json={"messages": item.document},
        params={"tenant": tenant},
    )
    return item.action
