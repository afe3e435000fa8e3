"""Writes of the translation catalogs (docs/translations.md), layouts and partials
(docs/layouts.md). Every change of a catalog, whatever it is, writes a TranslationCatalogVersion
(who, when, the messages it left) in the transaction that makes it, under one lock for every catalog: changes are rare, and one order of their commits is
what lets every process see each of them by the largest version id (content/selectors.py).
Layouts and partials do the same with ContentVersion, under a lock of their own."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from common.generations import changes_in_order
from common.invalid import Invalid
from content.models import (
    ContentKind,
    ContentVersion,
    Layout,
    Partial,
    TranslationCatalog,
    TranslationCatalogVersion,
)
from content.selectors import CATALOGS, PIECES
from content.validation import (
    catalog_problems,
    key_problem,
    layout_problems,
    messages_merged,
    partial_problems,
)

# pg_advisory_xact_lock's key for catalog changes ("transl" in ASCII).
_LOCK_KEY = 0x7472616E736C


class CatalogInvalid(Invalid):
    """The messages break the catalog rules (content/validation.py); nothing was saved."""


def _version_write(locale: str, tenant: str, messages: dict[str, Any] | None, actor: str) -> int:
    """The catalog's next version, recorded; its number (numbers go on after a delete)."""
    versions = TranslationCatalogVersion.objects.filter(locale=locale, tenant=tenant)
    number = (versions.aggregate(n=Max("number"))["n"] or 0) + 1
    TranslationCatalogVersion.objects.create(
        locale=locale, tenant=tenant, number=number, messages=messages, created_by=actor
    )
    return number


def _saved(
    locale: str, tenant: str, messages: dict[str, Any], actor: str
) -> tuple[TranslationCatalog, bool]:
    number = _version_write(locale, tenant, messages, actor)
    catalog, created = TranslationCatalog.objects.update_or_create(
        locale=locale,
        tenant=tenant,
        defaults={
            "messages": messages,
            "version": number,
            "updated_by": actor,
            "updated_at": timezone.now(),
        },
    )
    CATALOGS.forget()
    return catalog, created


@transaction.atomic
def catalog_put(
    *, locale: str, messages: Any, actor: str = "", tenant: str = ""
) -> tuple[TranslationCatalog, bool]:
    """Replace (or create) `locale`'s catalog with `messages`, as version N+1: (catalog,
    created). `locale` is canonical (workflows.locales); `tenant` a tenant's id for its own
    catalog, empty for the shared one. CatalogInvalid, saving nothing."""
    if problems := catalog_problems(messages):
        raise CatalogInvalid(problems)
    changes_in_order(_LOCK_KEY)
    return _saved(locale, tenant, messages, actor)


@transaction.atomic
def catalog_patch(
    *, locale: str, messages: Any, actor: str = "", tenant: str = ""
) -> tuple[TranslationCatalog, bool]:
    """Merge `messages` into `locale`'s catalog (a key given null is removed: messages_merged),
    as version N+1, creating it when there is none: (catalog, created). The merge is checked
    whole, under the lock: CatalogInvalid, saving nothing."""
    if problems := catalog_problems(messages, patch=True):
        raise CatalogInvalid(problems)
    changes_in_order(_LOCK_KEY)
    stored = TranslationCatalog.objects.filter(locale=locale, tenant=tenant).first()
    merged = messages_merged(stored.messages if stored is not None else {}, messages)
    return _saved(locale, tenant, merged, actor)


@transaction.atomic
def catalog_delete(*, locale: str, actor: str = "", tenant: str = "") -> bool:
    """Delete `locale`'s catalog (`tenant`'s, or the shared one), recording a version without
    messages; False when there was none (nothing recorded)."""
    changes_in_order(_LOCK_KEY)
    deleted, _ = TranslationCatalog.objects.filter(locale=locale, tenant=tenant).delete()
    if not deleted:
        return False
    _version_write(locale, tenant, None, actor)
    CATALOGS.forget()
    return True


# pg_advisory_xact_lock's key for layout and partial changes ("layout" in ASCII).
_PIECES_LOCK_KEY = 0x6C61796F7574


class ContentInvalid(Invalid):
    """A layout or partial that breaks the rules (content/validation.py), by field; nothing
    was saved."""


def _piece_version_write(kind: str, key: str, content: dict[str, Any] | None, actor: str) -> int:
    """The next version of `kind`'s `key`, recorded under the lock; its number (numbers go on
    after a delete)."""
    changes_in_order(_PIECES_LOCK_KEY)
    latest = ContentVersion.objects.filter(kind=kind, key=key).aggregate(n=Max("number"))
    number = (latest["n"] or 0) + 1
    ContentVersion.objects.create(
        kind=kind, key=key, number=number, content=content, created_by=actor
    )
    return number


@transaction.atomic
def layout_put(
    *, key: str, name: Any, html: Any, text: Any = "", actor: str = ""
) -> tuple[Layout, bool]:
    """Replace (or create) the layout `key` as version N+1: (layout, created). ContentInvalid
    naming each field that breaks the rules, saving nothing."""
    fields = {"name": name, "html": html, "text": "" if text is None else text}
    if problems := key_problem(key) or layout_problems(fields):
        raise ContentInvalid(problems)
    number = _piece_version_write(ContentKind.LAYOUT, key, fields, actor)
    layout, created = Layout.objects.update_or_create(
        key=key,
        defaults={**fields, "version": number, "updated_by": actor, "updated_at": timezone.now()},
    )
    PIECES.forget()
    return layout, created


@transaction.atomic
def partial_put(*, key: str, content: Any, actor: str = "") -> tuple[Partial, bool]:
    """Replace (or create) the partial `key` as version N+1: (partial, created).
    ContentInvalid naming the field, saving nothing."""
    if problems := key_problem(key) or partial_problems({"content": content}):
        raise ContentInvalid(problems)
    number = _piece_version_write(ContentKind.PARTIAL, key, {"content": content}, actor)
    partial, created = Partial.objects.update_or_create(
        key=key,
        defaults={
            "content": content,
            "version": number,
            "updated_by": actor,
            "updated_at": timezone.now(),
        },
    )
    PIECES.forget()
    return partial, created


@transaction.atomic
def content_delete(*, kind: str, key: str, actor: str = "") -> bool:
    """Delete the layout or partial `key` (`kind`: ContentKind), recording a version without
    content; False when there was none (nothing recorded). Workflows naming it are not
    changed: their emails fail on it from then on, naming it."""
    model = Layout if kind == ContentKind.LAYOUT else Partial
    changes_in_order(_PIECES_LOCK_KEY)  # before the delete: versions commit in lock order
    deleted, _ = model.objects.filter(key=key).delete()
    if not deleted:
        return False
    _piece_version_write(kind, key, None, actor)
    PIECES.forget()
    return True


def tenant_catalogs_delete(tenant: str) -> dict[str, int]:
    """Every catalog of `tenant`, deleted with its version recorded (tenants.hooks.TENANT_ERASERS:
    in the tenant's delete's transaction)."""
    locales = list(
        TranslationCatalog.objects.filter(tenant=tenant).values_list("locale", flat=True)
    )
    for locale in locales:
        catalog_delete(locale=locale, tenant=tenant, actor="tenant deleted")
    return {"translation_catalogs": len(locales)}
