"""Preference categories made over the API (docs/design/recipients.md, "Preferences"), as the admin's form
makes them (recipients/category_admin.py): a slug, a name, a description, and `defaults`
({channel: bool}, each a registered channel: workflows.channels).

A category a workflow names cannot be deleted: the workflow would keep a `preference_category`
its validator refuses, and people's switches for it would no longer be asked. Deleting one no
workflow names takes its slug out of every person's preferences too, in the same transaction,
so that a person's preferences read back and written again (GET, then PUT) stay valid.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import connection, transaction

from recipients.models import Category
from recipients.sql import CATEGORY_PREFERENCES_SCRUB_SQL
from workflows.definition import preference_category_of
from workflows.models import Workflow


class CategoryInUse(Exception):
    """Workflows name the category (their current versions): it stays."""

    def __init__(self, workflows: list[str]):
        super().__init__(workflows)
        self.workflows = workflows


def category_put(
    *, slug: str, name: str, description: str, defaults: Mapping[str, bool]
) -> tuple[Category, bool]:
    """Create the category, or replace its name, description and defaults; (category,
    created). The fields come checked (recipients/categories_api.py)."""
    return Category.objects.update_or_create(
        slug=slug, defaults={"name": name, "description": description, "defaults": dict(defaults)}
    )


def category_workflows(slug: str) -> list[str]:
    """The keys of the workflows whose current version is in category `slug` (by
    `preference_category`, or as a marketing workflow in `marketing`), active or not."""
    current = Workflow.objects.filter(current_version__isnull=False).order_by("key")
    return [
        key
        for key, definition in current.values_list("key", "current_version__definition")
        if preference_category_of(definition) == slug
    ]


def category_delete(*, slug: str) -> int | None:
    """Delete the category and take it out of every person's preferences; how many people's
    preferences named it, or None when there is no such category. CategoryInUse when workflows
    name it."""
    with transaction.atomic():
        category = Category.objects.select_for_update().filter(slug=slug).first()
        if category is None:
            return None
        if workflows := category_workflows(slug):
            raise CategoryInUse(workflows)
        with connection.cursor() as cursor:
            cursor.execute(CATEGORY_PREFERENCES_SCRUB_SQL, {"rcp_slug": slug})
            scrubbed = cursor.rowcount
        category.delete()
    return scrubbed
