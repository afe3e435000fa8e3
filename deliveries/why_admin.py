"""The recipient page's "Why?" panel (recipients.hooks.RECIPIENT_PAGE_PANELS): the person's dry
run (deliveries.explain) for a workflow and a tenant, those of their latest run unless the
operator chose others, and the admin page the panel's choice opens (docs/design/deliveries.md, "Explaining a run")."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone

from deliveries.explain import recipient_dry_run
from recipients.models import Recipient
from tenants.models import Tenant
from tenants.selectors import tenant_problem
from triggers.models import TriggerInstance
from workflows.models import Workflow


def recipient_why_panel(
    recipient: Recipient, workflow_key: str = "", tenant: str | None = None
) -> str:
    """What each send of a workflow would do for the person now, for a run of a tenant or of
    none, in words, with a choice of workflow and tenant (those of their latest run, else the
    first active workflow and no tenant). An unknown tenant is said instead of a dry run."""
    workflows = list(
        Workflow.objects.filter(active=True, current_version__isnull=False)
        .order_by("key")
        .values_list("key", flat=True)
    )
    if not workflow_key:
        latest = TriggerInstance.objects.filter(recipient=recipient.key).order_by("-created_at")
        found = latest.values_list("workflow__key", "tenant").first()
        workflow_key, latest_tenant = found if found is not None else ("", "")
        tenant = latest_tenant if tenant is None else tenant
    tenant = tenant or ""
    workflow = Workflow.objects.filter(key=workflow_key or next(iter(workflows), "")).first()
    dry_run, problem = None, tenant_problem(tenant) if tenant else ""
    if workflow is not None and workflow.current_version_id is not None and not problem:
        dry_run = recipient_dry_run(recipient.key, workflow, now=timezone.now(), tenant=tenant)
        for node in dry_run["nodes"]:
            node["links"] = [
                (
                    f"suppression {hit['id']}",
                    reverse("admin:deliveries_suppression_change", args=[hit["id"]]),
                )
                for hit in node["evidence"].get("suppressions", [])
            ]
    return render_to_string(
        "admin/deliveries/_why_panel.html",
        {
            "action": reverse("admin:deliveries_recipient_why", args=[recipient.key]),
            "workflows": workflows,
            "chosen": workflow.key if workflow is not None else "",
            "tenants": list(Tenant.objects.order_by("id").values_list("id", flat=True)),
            "tenant": tenant,
            "tenant_problem": problem,
            "dry_run": dry_run,
        },
    )


def recipient_why_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, recipient_id: str
) -> HttpResponse:
    """The panel for the workflow and tenant the operator chose (`?workflow=&tenant=`), on a page
    of its own."""
    if not request.user.has_perm("recipients.view_recipient"):
        raise PermissionDenied
    recipient = get_object_or_404(Recipient, pk=recipient_id)
    context: dict[str, Any] = {
        **model_admin.admin_site.each_context(request),
        "title": f"Why? — {recipient.key}",
        "recipient": recipient,
        "panel": recipient_why_panel(
            recipient, request.GET.get("workflow", ""), request.GET.get("tenant")
        ),
    }
    return TemplateResponse(request, "admin/deliveries/why.html", context)
