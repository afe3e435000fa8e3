"""Webhooks in the admin: endpoints, edited through events.services.endpoints (the same checks and
messages as the API), the outbox's events with their deliveries and a Resend action, and the
attempt log.

An endpoint's secret is shown whole once, on the page that answers its creation or its rotation
(never in a message, which travels in a cookie, nor on any other page: elsewhere its hint).
Events and attempts are append-only: shown, never edited or deleted here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.postgres.forms import SimpleArrayField
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from common.actors import actor_of
from common.admin import (
    ReadOnlyAdminMixin,
    admin_time,
    id_short,
    json_field,
    text_cut,
    time_column,
)
from events import catalog
from events.models import OutboxEvent, WebhookAttempt, WebhookEndpoint
from events.selectors import event_delivery_list
from events.services.dispatcher import endpoint_disable, endpoint_enable, event_resend
from events.services.endpoints import (
    EndpointFields,
    EndpointInvalid,
    endpoint_create,
    endpoint_delete,
    endpoint_fields_check,
    endpoint_ping,
    endpoint_rotate_secret,
    endpoint_update,
    endpoint_update_check,
)
from events.signing import secret_hint

SECRET_PAGE = "admin/events/webhookendpoint/secret.html"  # noqa: S105 (a template name)
EDITED_FIELDS = ["url", "events", "workflows", "description"]


def _uuid_search(queryset: QuerySet[Any], term: str, *fields: str) -> QuerySet[Any]:
    """Rows whose `fields` hold the UUID `term` exactly (by their indexes, not a text scan of the
    table); none when `term` is not a UUID."""
    try:
        value = uuid.UUID(term.strip())
    except ValueError:
        return queryset.none()
    match = Q()
    for field in fields:
        match |= Q(**{field: value})
    return queryset.filter(match)


def _run_link(trigger_id: Any) -> SafeString:
    if trigger_id is None:
        return format_html("{}", "—")
    url = reverse("admin:triggers_triggerinstance_change", args=[trigger_id])
    return format_html('<a href="{}">{}</a>', url, id_short(trigger_id))


def _endpoint_link(endpoint_id: Any, label: str | None = None) -> SafeString:
    url = reverse("admin:events_webhookendpoint_change", args=[endpoint_id])
    return format_html('<a href="{}">{}</a>', url, label or id_short(endpoint_id))


def _event_choices() -> list[tuple[str, str]]:
    return [(catalog.ALL, "* — every event, present and future")] + [
        (name, f"{name} — {text}") for name, text in catalog.EVENT_TYPES.items()
    ]


class WebhookEndpointForm(forms.ModelForm):
    """The fields an operator edits, checked by the service (endpoint_fields_check on add,
    endpoint_update_check on change), whose messages land on the field they name."""

    url = forms.CharField(
        label="URL",
        widget=forms.TextInput(attrs={"class": "vURLField"}),
        help_text="http or https; its host must resolve to public addresses only (unless "
        "NOTIFLOW_WEBHOOK_ALLOW_PRIVATE).",
    )
    events = forms.MultipleChoiceField(
        choices=_event_choices,
        required=False,
        # In columns across the form: one narrow column made each label four lines tall.
        widget=forms.CheckboxSelectMultiple(attrs={"class": "nf-choices"}),
        help_text="What it receives.",
    )
    workflows = SimpleArrayField(
        forms.CharField(),
        required=False,
        help_text="Workflow keys separated by commas; empty: every workflow.",
    )
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    class Meta:
        model = WebhookEndpoint
        # Declared above, and judged by the service alone: excluded from the model form so that
        # the model's own validators (URLField's, say) do not judge them a second, different way.
        exclude = EDITED_FIELDS  # noqa: DJ006 (declared above: this keeps model validation off them)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.checked: EndpointFields | None = None
        # Not `pk`: a new endpoint has its UUID from the start.
        self.adding = self.instance._state.adding
        if not self.adding:
            for name in EDITED_FIELDS:
                self.initial.setdefault(name, getattr(self.instance, name))

    def clean(self) -> dict[str, Any]:
        data: dict[str, Any] = super().clean() or self.cleaned_data
        values: dict[str, Any] = {
            "url": data.get("url") or "",
            "events": data.get("events") or [],
            "workflows": data.get("workflows") or [],
            "description": data.get("description") or "",
        }
        try:
            if self.adding:
                self.checked = endpoint_fields_check(**values)
            else:
                self.checked = endpoint_update_check(self.instance, **values)
        except EndpointInvalid as exc:
            for name, message in exc.errors.items():
                if name not in self.errors:  # the form's own message already says it
                    self.add_error(name, message)
        return data


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    form = WebhookEndpointForm
    list_display = [
        "url_cut",
        "event_list",
        "workflow_list",
        "is_enabled",
        "failed_events",
        "created",
    ]
    list_display_links = ["url_cut"]
    search_fields = ["url", "description"]
    actions = ["enable_selected", "disable_selected", "rotate_secret_selected", "ping_selected"]
    STATE_FIELDS = [
        "id",
        "state",
        "secret_shown",
        "failed_events",
        "attempts",
        "created_by",
        "created_at",
        "updated_at",
    ]

    # --- list columns ----------------------------------------------------------------------
    @admin.display(description="URL", ordering="url")
    def url_cut(self, endpoint: WebhookEndpoint) -> str:
        return text_cut(endpoint.url)

    @admin.display(description="Events")
    def event_list(self, endpoint: WebhookEndpoint) -> str:
        return ", ".join(endpoint.events)

    @admin.display(description="Workflows")
    def workflow_list(self, endpoint: WebhookEndpoint) -> str:
        return ", ".join(endpoint.workflows) or "all"

    @admin.display(description="Enabled", boolean=True, ordering="disabled_at")
    def is_enabled(self, endpoint: WebhookEndpoint) -> bool:
        return endpoint.enabled

    created = time_column("created_at", "Created")

    # --- the endpoint's page ---------------------------------------------------------------
    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets: list[Any] = [(None, {"fields": EDITED_FIELDS})]
        if obj is not None:
            fieldsets.append(("State", {"fields": self.STATE_FIELDS}))
        return fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.STATE_FIELDS if obj is not None else []

    @admin.display(description="State")
    def state(self, endpoint: WebhookEndpoint) -> str:
        if endpoint.enabled:
            return "enabled"
        return f"disabled {admin_time(endpoint.disabled_at)}: {endpoint.disabled_reason}"

    @admin.display(description="Secret")
    def secret_shown(self, endpoint: WebhookEndpoint) -> str:
        return f"{secret_hint(endpoint.secret)} (shown whole only when made: “Rotate secret” makes a new one)"

    @admin.display(description="Attempts")
    def attempts(self, endpoint: WebhookEndpoint) -> str:
        url = reverse("admin:events_webhookattempt_changelist")
        return format_html('<a href="{}?q={}">every attempt to send here</a>', url, endpoint.pk)

    # --- saving through the services --------------------------------------------------------
    def save_model(
        self, request: HttpRequest, obj: WebhookEndpoint, form: Any, change: bool
    ) -> None:
        checked: EndpointFields = form.checked
        fields: dict[str, Any] = {
            "url": checked.url,
            "events": checked.events,
            "workflows": checked.workflows,
            "description": checked.description,
        }
        if change:
            endpoint_update(obj, **fields)
            return
        saved = endpoint_create(**fields, actor=actor_of(request))
        for field in WebhookEndpoint._meta.concrete_fields:
            setattr(obj, field.attname, getattr(saved, field.attname))
        obj._state.adding = False

    def response_add(
        self, request: HttpRequest, obj: WebhookEndpoint, post_url_continue: str | None = None
    ) -> HttpResponse:
        """The new secret, on this page alone (not a redirect: nothing carries it further)."""
        return self._secret_page(request, [obj], "Webhook endpoint added")

    def _secret_page(
        self, request: HttpRequest, endpoints: list[WebhookEndpoint], title: str
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "endpoints": endpoints,
        }
        response = TemplateResponse(request, SECRET_PAGE, context)
        add_never_cache_headers(response)  # the secret: keep it out of caches
        return response

    # --- deleting through the service -------------------------------------------------------
    def delete_model(self, request: HttpRequest, obj: WebhookEndpoint) -> None:
        endpoint_delete(obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in queryset:
            endpoint_delete(endpoint)

    def get_deleted_objects(self, objs: Iterable[WebhookEndpoint], request: HttpRequest) -> Any:
        """The endpoints and how many deliveries go with them, counted rather than listed (an
        endpoint may have millions); the attempt log stays."""
        endpoints = list(objs)
        deliveries = sum(endpoint.deliveries.count() for endpoint in endpoints)
        listed = [_endpoint_link(endpoint.pk, endpoint.url) for endpoint in endpoints]
        counts = {"webhook endpoints": len(endpoints), "deliveries (pending and past)": deliveries}
        return listed, counts, set(), []

    # --- actions ---------------------------------------------------------------------------
    def has_operate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("events.change_webhookendpoint")

    @admin.action(description="Enable (deliver kept events)", permissions=["operate"])
    def enable_selected(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        done = []
        for endpoint in queryset.exclude(disabled_at=None):
            kept = endpoint_enable(endpoint.pk)
            self.log_change(request, endpoint, f"Enabled; {len(kept)} kept event(s) sent.")
            done.append(f"{endpoint.url} ({len(kept)} kept event(s) on their way)")
        if done:
            messages.success(request, f"Enabled: {'; '.join(done)}.")
        else:
            messages.info(request, "They were all enabled already.")

    @admin.action(description="Disable", permissions=["operate"])
    def disable_selected(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        reason = f"disabled in the admin by {actor_of(request)}"
        done = []
        for endpoint in queryset:
            if endpoint_disable(endpoint.pk, reason=reason):
                self.log_change(request, endpoint, "Disabled.")
                done.append(endpoint.url)
        if done:
            messages.success(
                request, f"Disabled (their events wait until enabled): {', '.join(done)}."
            )
        else:
            messages.info(request, "They were all disabled already.")

    @admin.action(description="Rotate secret", permissions=["operate"])
    def rotate_secret_selected(
        self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]
    ) -> HttpResponse:
        rotated = []
        for endpoint in queryset:
            rotated.append(endpoint_rotate_secret(endpoint))
            self.log_change(request, endpoint, "Secret rotated.")
        return self._secret_page(request, rotated, "New webhook secrets")

    @admin.action(description="Send test ping", permissions=["operate"])
    def ping_selected(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in queryset:
            event = endpoint_ping(endpoint)
            waits = "" if endpoint.enabled else " (disabled: it waits until enabled)"
            messages.success(request, f"Ping {event.event_id} sent to {endpoint.url}{waits}.")


@admin.register(OutboxEvent)
class OutboxEventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["event_type", "run", "workflow_key", "at"]
    list_filter = ["type"]
    search_fields = ["=trigger_id"]  # the box; get_search_results matches by index
    search_help_text = "A trigger id, or an event id (its webhook-id)."
    show_full_result_count = False  # no COUNT(*) over the whole table on every page
    actions = ["resend_selected"]
    fields = readonly_fields = (
        "event_id",
        "event_type",
        "run",
        "workflow_key",
        "at",
        "data_json",
        "deliveries",
    )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[OutboxEvent], search_term: str
    ) -> tuple[QuerySet[OutboxEvent], bool]:
        if not search_term.strip():
            return queryset, False
        return _uuid_search(queryset, search_term, "trigger_id", "event_id"), False

    @admin.display(description="Type", ordering="type")
    def event_type(self, event: OutboxEvent) -> str:
        return catalog.cloud_type(event.type)

    @admin.display(description="Trigger")
    def run(self, event: OutboxEvent) -> str:
        return _run_link(event.trigger_id)

    at = time_column("time", "Time", ordering="id")
    data_json = json_field("data", "Data")

    @admin.display(description="Deliveries")
    def deliveries(self, event: OutboxEvent) -> SafeString:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    _endpoint_link(delivery.endpoint_id, delivery.endpoint.url),
                    delivery.status,
                    delivery.attempts,
                    delivery.last_status_code or "—",
                    text_cut(delivery.last_error, fill=False),
                    admin_time(delivery.delivered_at),
                )
                for delivery in event_delivery_list(event=event)
            ),
        )
        attempts = reverse("admin:events_webhookattempt_changelist")
        return format_html(
            '<table class="nf-deliveries"><thead><tr><th>Endpoint</th><th>Status</th>'
            "<th>Attempts</th><th>Last HTTP status</th><th>Last error</th><th>Delivered</th>"
            '</tr></thead><tbody>{}</tbody></table><p><a href="{}?q={}">Every attempt</a></p>',
            rows or format_html('<tr><td colspan="6">{}</td></tr>', "none"),
            attempts,
            event.event_id,
        )

    def has_resend_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("events.change_outboxevent")

    @admin.action(description="Resend selected events", permissions=["resend"])
    def resend_selected(self, request: HttpRequest, queryset: QuerySet[OutboxEvent]) -> None:
        """Each event again to its endpoints, with its webhook-id (event_resend)."""
        events, sent = 0, 0
        for event in queryset:
            sent += len(event_resend(event.pk))
            self.log_change(request, event, "Resent.")
            events += 1
        messages.success(
            request,
            f"{events} event(s) sent again: {sent} deliver(y|ies) on their way "
            "(those to disabled endpoints go when they are enabled).",
        )


@admin.register(WebhookAttempt)
class WebhookAttemptAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["at", "endpoint", "event", "outcome", "error_cut"]
    list_display_links = ["at"]
    list_filter = ["event_type"]
    search_fields = ["=endpoint_id"]  # the box; get_search_results matches by index
    search_help_text = "An endpoint id, or an event id (its webhook-id)."
    show_full_result_count = False
    fields = readonly_fields = (
        "endpoint",
        "event_id",
        "event",
        "attempt",
        "status_code",
        "error",
        "duration_ms",
        "created_at",
    )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[WebhookAttempt], search_term: str
    ) -> tuple[QuerySet[WebhookAttempt], bool]:
        if not search_term.strip():
            return queryset, False
        return _uuid_search(queryset, search_term, "endpoint_id", "event_id"), False

    at = time_column("created_at", "At", ordering="id")

    @admin.display(description="Endpoint")
    def endpoint(self, attempt: WebhookAttempt) -> str:
        return _endpoint_link(attempt.endpoint_id)

    @admin.display(description="Event")
    def event(self, attempt: WebhookAttempt) -> str:
        events = reverse("admin:events_outboxevent_changelist")
        return format_html(
            '<a href="{}?q={}">{}</a><span class="nf-detail">{} · attempt {}</span>',
            events,
            attempt.event_id,
            id_short(attempt.event_id),
            catalog.cloud_type(attempt.event_type),
            attempt.attempt,
        )

    @admin.display(description="Outcome", ordering="status_code")
    def outcome(self, attempt: WebhookAttempt) -> str:
        delivered = attempt.status_code is not None and 200 <= attempt.status_code < 300
        return format_html(
            '<span class="{}">{}</span><span class="nf-detail">{} ms</span>',
            "nf-ok" if delivered else "nf-failed",
            f"HTTP {attempt.status_code}" if attempt.status_code else "no answer",
            attempt.duration_ms,
        )

    @admin.display(description="Error")
    def error_cut(self, attempt: WebhookAttempt) -> str:
        return text_cut(attempt.error)
