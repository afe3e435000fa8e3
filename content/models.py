"""Message content: translation catalogs (docs/translations.md), layouts and partials
(docs/layouts.md). Each is one row as it is now (`Versioned`) and one version row per change,
never changed once written (`Version`: who, when, what)."""

from __future__ import annotations

from typing import ClassVar

from django.db import models

LOCALE_MAX_LENGTH = 35  # a BCP 47 tag (workflows.locales), as a recipient's locale
TENANT_MAX_LENGTH = 64  # a tenant's id (tenants.models)


class Versioned(models.Model):
    """What every content row carries as it is now. Changed only through content/services.py,
    which writes a `Version` with every change."""

    # Its change count: the number of its latest version.
    version = models.PositiveIntegerField()
    updated_by = models.CharField(max_length=255, blank=True, default="")
    updated_at = models.DateTimeField()

    class Meta:
        abstract = True


class Version(models.Model):
    """One change of a content row: what it left in `snapshot_field` (null: it was deleted), by
    whom and when. Append-only (content migrations 0001 and 0002)."""

    snapshot_field: ClassVar[str]
    number = models.PositiveIntegerField()
    created_by = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    @property
    def deleted(self) -> bool:
        return getattr(self, self.snapshot_field) is None


class TranslationCatalog(Versioned):
    """A locale's messages: nested keys whose leaves are Liquid strings or plural objects
    (content/validation.py)."""

    # Canonical (workflows.locales.locale_canonical): `fr-CA`, never `fr-ca`.
    locale = models.CharField(max_length=LOCALE_MAX_LENGTH)
    # Whose catalog: empty for the shared one, else a tenant's id, whose catalog of the locale
    # its runs consult before the shared one (docs/tenants.md). Not a foreign key: deleting the
    # tenant deletes its catalogs through the services, each recording its version.
    tenant = models.CharField(max_length=TENANT_MAX_LENGTH, blank=True, default="")
    messages = models.JSONField(default=dict)

    class Meta:
        db_table = "translation_catalog"
        ordering = ["tenant", "locale"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "locale"], name="translation_catalog_locale")
        ]

    def __str__(self) -> str:
        whose = f" for {self.tenant}" if self.tenant else ""
        return f"{self.locale}{whose} (version {self.version})"


class TranslationCatalogVersion(Version):
    """One change of one locale's catalog: the messages it left (null: the catalog was
    deleted). Its id, which only grows, is what every process compares to know that some
    catalog changed (content/selectors.py)."""

    snapshot_field = "messages"
    locale = models.CharField(max_length=LOCALE_MAX_LENGTH)
    tenant = models.CharField(max_length=TENANT_MAX_LENGTH, blank=True, default="")
    messages = models.JSONField(null=True)

    class Meta:
        db_table = "translation_catalog_version"
        ordering = ["tenant", "locale", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "locale", "number"], name="translation_catalog_version_number"
            )
        ]

    def __str__(self) -> str:
        whose = f" for {self.tenant}" if self.tenant else ""
        return f"{self.locale}{whose} version {self.number}"


# A layout's or a partial's key (workflows.layouts.KEY_PATTERN): what templates name it by.
KEY_MAX_LENGTH = 64


class Piece(Versioned):
    """A layout or a partial, by the key templates name it by; its versions are ContentVersion
    rows of its kind."""

    key = models.CharField(max_length=KEY_MAX_LENGTH, unique=True)

    class Meta:
        abstract = True
        ordering = ["key"]

    def __str__(self) -> str:
        return f"{self.key} (version {self.version})"


class Layout(Piece):
    """An email layout (docs/layouts.md): the HTML around every email sent in it, with
    `{{ content }}` once where the message goes, and optionally its text part."""

    name = models.CharField(max_length=200)
    html = models.TextField()
    text = models.TextField(blank=True, default="")

    class Meta(Piece.Meta):
        db_table = "content_layout"


class Partial(Piece):
    """A partial (docs/layouts.md): reusable Liquid, rendered by `{% render "<key>" %}`."""

    content = models.TextField()

    class Meta(Piece.Meta):
        db_table = "content_partial"


class ContentKind(models.TextChoices):
    LAYOUT = "layout"
    PARTIAL = "partial"


class ContentVersion(Version):
    """One change of one layout or partial: what it left (its fields as the API writes them;
    null: it was deleted). Its id, which only grows, is what every process compares to know
    that some layout or partial changed (content/selectors.py)."""

    snapshot_field = "content"
    kind = models.CharField(max_length=16, choices=ContentKind.choices)
    key = models.CharField(max_length=KEY_MAX_LENGTH)
    content = models.JSONField(null=True)

    class Meta:
        db_table = "content_version"
        ordering = ["kind", "key", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "key", "number"], name="content_version_number")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} version {self.number}"
