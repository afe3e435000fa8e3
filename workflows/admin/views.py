"""Admin pages around a workflow: preview, raw JSON, export/import, and version diffs.

Thin: each parses the request, calls a service or selector, and renders. "Send test" lives with
the trigger admin (it creates a trigger), and the preview page links to it by URL name.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views import View

from common.actors import actor_of
from common.http import json_loads_storable
from workflows.admin.forms import RawDefinitionForm, SamplePayloadForm
from workflows.diagram import workflow_diagram_svg
from workflows.history import definition_diff
from workflows.models import Workflow, WorkflowVersion
from workflows.preview import PreviewBusy, sample_payload, workflow_preview
from workflows.selectors import workflow_export, workflow_list
from workflows.services import WorkflowImportInvalid, workflow_import, workflow_update
from workflows.warnings import workflow_warnings

SESSION_PAYLOADS = "notiflow_sample_payloads"


def payload_form(request: HttpRequest, workflow: Workflow) -> SamplePayloadForm:
    """The sample-payload form, filled with the last payload used for this workflow in this
    session, or with a payload guessed from the templates."""
    remembered = request.session.get(SESSION_PAYLOADS, {}).get(str(workflow.pk))
    text = remembered or json.dumps(sample_payload(workflow.definition), indent=2)
    return SamplePayloadForm(initial={"payload": text})


def remember_payload(request: HttpRequest, workflow: Workflow, text: str) -> None:
    payloads = request.session.get(SESSION_PAYLOADS, {})
    payloads[str(workflow.pk)] = text
    request.session[SESSION_PAYLOADS] = payloads


def _change_url(workflow: Workflow) -> str:
    return reverse("admin:workflows_workflow_change", args=[workflow.pk])


class _WorkflowPage(View):
    admin: Any = None  # the WorkflowAdmin, given by as_view(admin=...)
    template_name = ""

    def context(self, request: HttpRequest, **extra: Any) -> dict[str, Any]:
        return {
            **self.admin.admin_site.each_context(request),
            "opts": Workflow._meta,
            "app_label": Workflow._meta.app_label,
            **extra,
        }

    def workflow(self, request: HttpRequest, workflow_id: int, *, change: bool) -> Workflow:
        workflow = get_object_or_404(workflow_list(), pk=workflow_id)
        allowed = (
            self.admin.has_change_permission(request, workflow)
            if change
            else self.admin.has_view_or_change_permission(request, workflow)
        )
        if not allowed:
            raise PermissionDenied
        return workflow


class PreviewView(_WorkflowPage):
    """Render every template against the typed payload; the same form posts to Send test."""

    template_name = "admin/workflows/workflow/preview.html"

    def get(self, request: HttpRequest, workflow_id: int) -> HttpResponse:
        workflow = self.workflow(request, workflow_id, change=False)
        return self.page(request, workflow, payload_form(request, workflow), None)

    def post(self, request: HttpRequest, workflow_id: int) -> HttpResponse:
        workflow = self.workflow(request, workflow_id, change=False)
        form = SamplePayloadForm(request.POST)
        result = None
        if form.is_valid():
            remember_payload(request, workflow, form.data["payload"])
            try:
                result = workflow_preview(
                    definition=workflow.definition,
                    payload=form.cleaned_data["payload"],
                    recipient=form.cleaned_data.get("recipient"),
                    locale=form.cleaned_data.get("locale", ""),
                    tenant=form.cleaned_data.get("tenant"),
                    workflow={
                        "key": workflow.key,
                        "name": workflow.name,
                        "version": workflow.version,
                    },
                )
            except PreviewBusy as exc:
                messages.warning(request, str(exc))
                busy = self.page(request, workflow, form, None)
                busy.status_code, busy["Retry-After"] = 503, "5"
                return busy
        return self.page(request, workflow, form, result)

    def page(self, request: HttpRequest, workflow: Workflow, form: Any, result: Any) -> Any:
        context = self.context(
            request,
            title=f"Preview {workflow.key} (version {workflow.version})",
            workflow=workflow,
            original=workflow,
            form=form,
            preview=result,
            diagram=workflow_diagram_svg(workflow.definition, title=workflow.key),
        )
        return render(request, self.template_name, context)


class RawDefinitionView(_WorkflowPage):
    """The definition as JSON: read it, copy it, or edit it (validated like every other save)."""

    template_name = "admin/workflows/workflow/definition.html"

    def get(self, request: HttpRequest, workflow_id: int) -> HttpResponse:
        workflow = self.workflow(request, workflow_id, change=False)
        text = json.dumps(workflow.definition, indent=2, ensure_ascii=False)
        return self.page(request, workflow, RawDefinitionForm(initial={"definition": text}))

    def post(self, request: HttpRequest, workflow_id: int) -> HttpResponse:
        workflow = self.workflow(request, workflow_id, change=True)
        form = RawDefinitionForm(request.POST)
        if not form.is_valid():
            return self.page(request, workflow, form)
        before = workflow.version
        workflow = workflow_update(
            workflow=workflow, definition=form.cleaned_data["definition"], actor=actor_of(request)
        )
        if workflow.version == before:
            messages.info(request, "The definition did not change; no new version.")
        else:
            messages.success(request, f"Saved as version {workflow.version}.")
        for warning in workflow_warnings(workflow=workflow):
            messages.warning(request, warning)
        return HttpResponseRedirect(_change_url(workflow))

    def page(self, request: HttpRequest, workflow: Workflow, form: RawDefinitionForm) -> Any:
        context = self.context(
            request,
            title=f"Definition of {workflow.key} (JSON)",
            workflow=workflow,
            original=workflow,
            form=form,
            can_change=self.admin.has_change_permission(request, workflow),
        )
        return render(request, self.template_name, context)


class ExportView(_WorkflowPage):
    def get(self, request: HttpRequest, workflow_id: int) -> HttpResponse:
        workflow = self.workflow(request, workflow_id, change=False)
        response = JsonResponse(workflow_export(workflow=workflow), json_dumps_params={"indent": 2})
        response["Content-Disposition"] = f'attachment; filename="{workflow.key}.json"'
        return response


class ImportView(_WorkflowPage):
    """Paste one exported workflow (or a list of them): created, or updated to a new version."""

    template_name = "admin/workflows/workflow/import.html"

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if not (
            self.admin.has_add_permission(request) and self.admin.has_change_permission(request)
        ):
            raise PermissionDenied
        return super().dispatch(request, *args, **kwargs)

    def get(self, request: HttpRequest) -> HttpResponse:
        return self.page(request, "", [])

    def post(self, request: HttpRequest) -> HttpResponse:
        text = request.POST.get("document", "")
        try:
            document = json_loads_storable(text)
        except ValueError as exc:  # json.JSONDecodeError, or nested too deep
            return self.page(request, text, [f"Not valid JSON: {exc}"])
        documents = document if isinstance(document, list) else [document]
        try:
            results = workflow_import(documents=documents, actor=actor_of(request))
        except WorkflowImportInvalid as exc:
            problems = [f"{key}: {p}" for key, found in exc.problems.items() for p in found]
            return self.page(request, text, problems)
        for result in results:
            messages.success(request, f"{result.key}: {result.action} (version {result.version})")
        if len(results) == 1:
            return HttpResponseRedirect(_change_url(Workflow.objects.get(key=results[0].key)))
        return HttpResponseRedirect(reverse("admin:workflows_workflow_changelist"))

    def page(self, request: HttpRequest, text: str, problems: list[str]) -> Any:
        context = self.context(
            request, title="Import workflows (JSON)", document=text, problems=problems
        )
        return render(request, self.template_name, context)


class VersionDiffView(_WorkflowPage):
    """Two versions side by side: ?a=<number>&b=<number> (default: previous and current)."""

    template_name = "admin/workflows/workflow/diff.html"

    def get(self, request: HttpRequest, workflow_id: int) -> HttpResponse:
        workflow = self.workflow(request, workflow_id, change=False)
        versions = {v.number: v for v in WorkflowVersion.objects.filter(workflow=workflow)}
        try:
            new = int(request.GET.get("b") or workflow.version)
            old = int(request.GET.get("a") or max(new - 1, 1))
        except ValueError as exc:
            raise Http404("versions are numbers") from exc
        if old not in versions or new not in versions:
            raise Http404("no such version")
        if old > new:
            old, new = new, old
        diff = definition_diff(
            versions[old].definition,
            versions[new].definition,
            old_label=f"v{old}",
            new_label=f"v{new}",
        )
        context = self.context(
            request,
            title=f"{workflow.key}: version {old} → version {new}",
            workflow=workflow,
            original=workflow,
            sides=[("From", versions[old]), ("To", versions[new])],
            diff=diff,
        )
        return render(request, self.template_name, context)
