"""The recipient page's "Why?" panel (recipients.hooks.RECIPIENT_PAGE_PANELS): the person's dry
run (deliveries.explain) for a workflow, the one of their latest run unless the operator chose
another, and the admin page the panel's choice opens (docs/design.md, "Explaining a run")."""

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
from triggers.models import TriggerInstance
from workflows.models import Workflow


def recipient_why_panel(recipient: Recipient, workflow_key: str = "") -> str:
    """What each send of a workflow would do for the person now, in words, with a choice of
    workflow (the one of their latest run, else the first active one)."""
    workflows = list(
        Workflow.objects.filter(active=True, current_version__isnull=False)
        .order_by("key")
        .values_list("key", flat=True)
    )
    if not workflow_key:
        latest = TriggerInstance.objects.filter(recipient=recipient.key).order_by("-created_at")
        workflow_key = next(iter(latest.values_list("workflow__key", flat=True)[:1]), "")
    workflow = Workflow.objects.filter(key=workflow_key or next(iter(workflows), "")).first()
    dry_run = None
    if workflow is not None and workflow.current_version_id is not None:
        dry_run = recipient_dry_run(recipient.key, workflow, now=timezone.now())
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
            "dry_run": dry_run,
        },
    )


def recipient_why_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, recipient_id: str
) -> HttpResponse:
    """The panel for the workflow the operator chose (`?workflow=`), on a page of its own."""
    if not request.user.has_perm("recipients.view_recipient"):
        raise PermissionDenied
    recipient = get_object_or_404(Recipient, pk=recipient_id)
    context: dict[str, Any] = {
        **model_admin.admin_site.each_context(request),
        "title": f"Why? — {recipient.key}",
        "recipient": recipient,
        "panel": recipient_why_panel(recipient, request.GET.get("workflow", "")),
    }
    return TemplateResponse(request, "admin/deliveries/why.html", context)
