from typing import Any

from django.http import HttpRequest


class ReadOnlyAdminMixin:
    """Audit rows are append-only: the admin shows them and nothing more."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
