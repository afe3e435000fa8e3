from django.contrib import admin

from triggers.models import ApiKey, TriggerEvent, TriggerInstance


class ReadOnlyAdminMixin:
    """Audit rows are append-only: the admin shows them and nothing more."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class TriggerEventInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = TriggerEvent
    fields = ("created_at", "from_status", "to_status", "node_id", "reason", "actor")
    readonly_fields = fields
    extra = 0


@admin.register(TriggerInstance)
class TriggerInstanceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "workflow",
        "status",
        "current_node_id",
        "attempts",
        "available_at",
        "last_error",
        "created_at",
    ]
    list_filter = ["status", "workflow", "created_at"]
    search_fields = ["idempotency_key", "=id"]
    list_select_related = ["workflow"]
    readonly_fields = [f.name for f in TriggerInstance._meta.fields]
    inlines = [TriggerEventInline]

    def has_change_permission(self, request, obj=None) -> bool:
        # Viewable (the change page renders read-only); state changes go through actions.
        return request.method in ("GET", "HEAD")


@admin.register(TriggerEvent)
class TriggerEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = [
        "trigger",
        "from_status",
        "to_status",
        "node_id",
        "reason",
        "actor",
        "created_at",
    ]
    list_filter = ["to_status"]
    search_fields = ["=trigger__id"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "created_at", "revoked_at"]
    readonly_fields = ["name", "prefix", "key_hash", "created_at"]

    def has_add_permission(self, request) -> bool:
        # Keys are created with `manage.py create_api_key`, which shows the key once.
        return False
