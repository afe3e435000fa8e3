"""Writes of the translation catalogs (docs/translations.md). Every change, whatever it is,
writes a TranslationCatalogVersion (who, when, the messages it left) in the transaction that
makes it, under one lock for every catalog: changes are rare, and one order of their commits is
what lets every process see each of them by the largest version id (content/selectors.py)."""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from content.models import TranslationCatalog, TranslationCatalogVersion
from content.selectors import CATALOGS
from content.validation import catalog_problems, messages_merged

# pg_advisory_xact_lock's key for catalog changes ("transl" in ASCII).
_LOCK_KEY = 0x7472616E736C


class CatalogInvalid(Exception):
    """The messages break the catalog rules (content/validation.py); nothing was saved."""

    def __init__(self, problems: dict[str, list[str]]):
        super().__init__("; ".join(f"{path}: {' '.join(m)}" for path, m in problems.items()))
        self.problems = problems


def _locked() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])


def _version_write(locale: str, messages: dict[str, Any] | None, actor: str) -> int:
    """The locale's next version, recorded; its number (numbers go on after a delete)."""
    latest = TranslationCatalogVersion.objects.filter(locale=locale).aggregate(n=Max("number"))
    number = (latest["n"] or 0) + 1
    TranslationCatalogVersion.objects.create(
        locale=locale, number=number, messages=messages, created_by=actor
    )
    return number


def _saved(locale: str, messages: dict[str, Any], actor: str) -> tuple[TranslationCatalog, bool]:
    number = _version_write(locale, messages, actor)
    catalog, created = TranslationCatalog.objects.update_or_create(
        locale=locale,
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
def catalog_put(*, locale: str, messages: Any, actor: str = "") -> tuple[TranslationCatalog, bool]:
    """Replace (or create) `locale`'s catalog with `messages`, as version N+1: (catalog,
    created). `locale` is canonical (workflows.locales). CatalogInvalid, saving nothing."""
    if problems := catalog_problems(messages):
        raise CatalogInvalid(problems)
    _locked()
    return _saved(locale, messages, actor)


@transaction.atomic
def catalog_patch(
    *, locale: str, messages: Any, actor: str = ""
) -> tuple[TranslationCatalog, bool]:
    """Merge `messages` into `locale`'s catalog (a key given null is removed: messages_merged),
    as version N+1, creating it when there is none: (catalog, created). The merge is checked
    whole, under the lock: CatalogInvalid, saving nothing."""
    if problems := catalog_problems(messages, patch=True):
        raise CatalogInvalid(problems)
    _locked()
    stored = TranslationCatalog.objects.filter(locale=locale).first()
    merged = messages_merged(stored.messages if stored is not None else {}, messages)
    return _saved(locale, merged, actor)


@transaction.atomic
def catalog_delete(*, locale: str, actor: str = "") -> bool:
    """Delete `locale`'s catalog, recording a version without messages; False when there was
    none (nothing recorded)."""
    _locked()
    deleted, _ = TranslationCatalog.objects.filter(locale=locale).delete()
    if not deleted:
        return False
    _version_write(locale, None, actor)
    CATALOGS.forget()
    return True
