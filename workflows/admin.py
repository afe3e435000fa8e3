from django.contrib import admin

from workflows.models import Workflow, WorkflowVersion


class WorkflowVersionInline(admin.TabularInline):
    model = WorkflowVersion
    fields = ("number", "created_at", "created_by")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Workflow)
class WorkflowAdmin(admin.ModelAdmin):
    list_display = ["key", "name", "active", "version", "updated_at"]
    list_filter = ["active"]
    search_fields = ["key", "name"]
    readonly_fields = ["current_version", "created_at", "updated_at"]
    inlines = [WorkflowVersionInline]


@admin.register(WorkflowVersion)
class WorkflowVersionAdmin(admin.ModelAdmin):
    list_display = ["workflow", "number", "created_at", "created_by"]
    list_filter = ["workflow"]
    readonly_fields = ["workflow", "number", "definition", "created_at", "created_by"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
