"""Translation catalogs (docs/translations.md): one row per locale holding its messages as they
are now, and one version row per change, never changed once written (who, when, what)."""

from __future__ import annotations

from django.db import models

LOCALE_MAX_LENGTH = 35  # a BCP 47 tag (workflows.locales), as a recipient's locale


class TranslationCatalog(models.Model):
    """A locale's messages: nested keys whose leaves are Liquid strings or plural objects
    (content/validation.py). Changed only through content/services.py, which writes a version
    with every change."""

    # Canonical (workflows.locales.locale_canonical): `fr-CA`, never `fr-ca`.
    locale = models.CharField(max_length=LOCALE_MAX_LENGTH, unique=True)
    messages = models.JSONField(default=dict)
    # This locale's change count: the number of its latest TranslationCatalogVersion.
    version = models.PositiveIntegerField()
    updated_by = models.CharField(max_length=255, blank=True, default="")
    updated_at = models.DateTimeField()

    class Meta:
        db_table = "translation_catalog"
        ordering = ["locale"]

    def __str__(self) -> str:
        return f"{self.locale} (version {self.version})"


class TranslationCatalogVersion(models.Model):
    """One change of one locale's catalog: the messages it left (null: the catalog was deleted),
    by whom and when. Append-only (content migration 0001). Its id, which only grows, is what
    every process compares to know that some catalog changed (content/selectors.py)."""

    locale = models.CharField(max_length=LOCALE_MAX_LENGTH)
    number = models.PositiveIntegerField()
    messages = models.JSONField(null=True)
    created_by = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "translation_catalog_version"
        ordering = ["locale", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["locale", "number"], name="translation_catalog_version_number"
            )
        ]

    def __str__(self) -> str:
        return f"{self.locale} version {self.number}"
