"""Workflow authoring in the admin: inline node and edge rows, the DAG picture, preview, raw JSON,
version history with diffs. Every save goes through the services and so through the validator."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import path
from django.utils.safestring import mark_safe

from common.actors import actor_of
from common.admin import json_block
from workflows.admin import views
from workflows.admin.forms import WorkflowForm
from workflows.diagram import workflow_diagram_svg
from workflows.hooks import WORKFLOW_PAGE_PANELS
from workflows.models import Workflow, WorkflowVersion
from workflows.selectors import workflow_version_list
from workflows.services import workflow_create, workflow_delete, workflow_update
from workflows.warnings import workflow_warnings


def version_label(version: WorkflowVersion) -> str:
    """How a version is named in the admin: by its workflow's key, e.g. "welcome — version 2"."""
    return f"{version.workflow.key} — version {version.number}"


@admin.register(Workflow)
class WorkflowAdmin(admin.ModelAdmin):
    form = WorkflowForm
    list_display = ["key", "name", "active", "queue", "priority", "version", "updated_at"]
    list_filter = ["active", "queue"]
    search_fields = ["key", "name"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "key",
                    "name",
                    "description",
                    "active",
                    "category",
                    "preference_category",
                    "required",
                    "default_locale",
                    "default_layout",
                ]
            },
        ),
        ("Routing", {"fields": ["queue", "priority"]}),
    ]
    change_form_template = "admin/workflows/workflow/change_form.html"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The key is how clients trigger a workflow: fixed once created (as in the API).
        return ["key"] if obj is not None else []

    def get_urls(self) -> list[Any]:
        wrap = self.admin_site.admin_view
        info = "workflows_workflow"
        return [
            path("import/", wrap(views.ImportView.as_view(admin=self)), name=f"{info}_import"),
            path(
                "<int:workflow_id>/preview/",
                wrap(views.PreviewView.as_view(admin=self)),
                name=f"{info}_preview",
            ),
            path(
                "<int:workflow_id>/definition/",
                wrap(views.RawDefinitionView.as_view(admin=self)),
                name=f"{info}_definition",
            ),
            path(
                "<int:workflow_id>/export/",
                wrap(views.ExportView.as_view(admin=self)),
                name=f"{info}_export",
            ),
            path(
                "<int:workflow_id>/versions/diff/",
                wrap(views.VersionDiffView.as_view(admin=self)),
                name=f"{info}_diff",
            ),
            *super().get_urls(),
        ]

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Workflow | None = None,
    ) -> Any:
        if obj is not None and obj.current_version is not None:
            versions = list(workflow_version_list(workflow=obj))
            context.update(
                diagram=mark_safe(workflow_diagram_svg(obj.definition, title=obj.key)),  # noqa: S308 (escaped in workflow_diagram_svg)
                versions=versions,
                payload_form=views.payload_form(request, obj),
                panels=[panel(obj) for panel in WORKFLOW_PAGE_PANELS],
            )
        return super().render_change_form(request, context, add, change, form_url, obj)

    def save_model(self, request: HttpRequest, obj: Workflow, form: Any, change: bool) -> None:
        """Through the services: the definition the form's validator accepted becomes version 1,
        or version N+1 when it changed."""
        data = form.cleaned_data
        if change:
            saved = workflow_update(
                workflow=obj,
                definition=form.definition,
                name=data["name"],
                description=data.get("description", ""),
                active=data.get("active", False),
                queue=data.get("queue", ""),
                priority=data["priority"],
                actor=actor_of(request),
            )
        else:
            saved = workflow_create(
                key=data["key"],
                name=data["name"],
                description=data.get("description", ""),
                active=data.get("active", False),
                queue=data.get("queue", ""),
                priority=data["priority"],
                definition=form.definition,
                actor=actor_of(request),
            )
        obj.pk, obj.current_version = saved.pk, saved.current_version
        obj._state.adding = False
        for warning in workflow_warnings(workflow=saved):
            messages.warning(request, warning)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        # Versions go with their workflow; they are not deletable on their own, which the admin
        # would otherwise read as "you lack the permission to delete the versions".
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        perms_needed.discard(WorkflowVersion._meta.verbose_name)
        return deleted, counts, perms_needed, protected

    def delete_model(self, request: HttpRequest, obj: Workflow) -> None:
        workflow_delete(workflow=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Workflow]) -> None:
        for workflow in queryset:
            workflow_delete(workflow=workflow)


@admin.register(WorkflowVersion)
class WorkflowVersionAdmin(admin.ModelAdmin):
    """Versions are immutable: shown, with their picture, never edited."""

    list_display = ["workflow", "number", "created_at", "created_by", "message"]
    list_filter = ["workflow"]
    list_select_related = ["workflow"]
    change_form_template = "admin/workflows/workflowversion/change_form.html"
    fields = readonly_fields = (
        "workflow",
        "number",
        "created_at",
        "created_by",
        "message",
        "picture",
        "definition_json",
    )

    @admin.display(description="Picture")
    def picture(self, obj: WorkflowVersion) -> str:
        return mark_safe(workflow_diagram_svg(obj.definition, title=version_label(obj)))  # noqa: S308 (escaped in workflow_diagram_svg)

    @admin.display(description="Definition")
    def definition_json(self, obj: WorkflowVersion) -> str:
        return json_block(obj.definition)

    def get_queryset(self, request: HttpRequest) -> QuerySet[WorkflowVersion]:
        return super().get_queryset(request).select_related("workflow")

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: WorkflowVersion | None = None,
    ) -> Any:
        # Named by the workflow's key, not by the model's str() (which shows its database id).
        if obj is not None:
            context.update(title=version_label(obj), subtitle=None, label=version_label(obj))
        return super().render_change_form(request, context, add, change, form_url, obj)

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> Any:
        version = self.get_object(request, object_id)
        if version is not None:
            extra_context = {
                "title": f"Change history: {version_label(version)}",
                **(extra_context or {}),
            }
        return super().history_view(request, object_id, extra_context)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
