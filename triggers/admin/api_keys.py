"""API keys in the admin: add one (name, scope, workflows, expiry) and see the key once; change
its scope, workflows and expiry; revoke it; never see a hash.

The key exists in clear only in the response to the add form: it is not stored (only its
SHA-256 is), not put in a message or the session, and that page is not cached.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.postgres.forms import SimpleArrayField
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from common.admin import admin_time
from triggers.api_keys import (
    ApiKeyNameTaken,
    api_key_create,
    api_key_limits,
    api_key_revoke,
    api_key_update,
)
from triggers.models import ApiKey, ApiKeyScope

SCOPE_HELP = (
    "trigger: create, read and cancel triggers (with their logs), read workflows and their "
    "stats. admin: everything, including writing workflows, webhooks, workers, deleting "
    "triggers and the health details."
)
WORKFLOWS_HELP = (
    "Workflow keys, separated by commas: the key reaches only these workflows and their "
    "triggers (others are a 403 at intake and a 404 elsewhere). Empty: every workflow. "
    "Trigger keys only."
)
EXPIRES_HELP = "Refused from this time on (UTC, e.g. 2027-01-31 18:00). Empty: never expires."


def _workflows_field() -> SimpleArrayField:
    return SimpleArrayField(
        forms.CharField(max_length=100), required=False, help_text=WORKFLOWS_HELP
    )


class ApiKeyAddForm(forms.Form):
    name = forms.CharField(
        max_length=ApiKey._meta.get_field("name").max_length,
        help_text="Who the key is for, e.g. billing-service. Names are unique.",
    )
    scope = forms.ChoiceField(
        choices=ApiKeyScope.choices, initial=ApiKeyScope.TRIGGER, help_text=SCOPE_HELP
    )
    workflows = _workflows_field()
    expires_at = forms.DateTimeField(required=False, label="Expires at", help_text=EXPIRES_HELP)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "scope" in data and "workflows" in data and "expires_at" in data:
            try:
                data["workflows"] = api_key_limits(
                    scope=data["scope"], workflows=data["workflows"], expires_at=data["expires_at"]
                )
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from exc
        return data


class ApiKeyChangeForm(forms.ModelForm):
    workflows = _workflows_field()

    class Meta:
        model = ApiKey
        fields = ["scope", "workflows", "expires_at"]
        help_texts = {"scope": SCOPE_HELP, "expires_at": EXPIRES_HELP}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "scope" in data and "workflows" in data:
            try:
                # An expiry in the past is allowed here: it ends the key now.
                data["workflows"] = api_key_limits(
                    scope=data["scope"], workflows=data["workflows"], expires_at=None
                )
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from exc
        return data


class ApiKeyStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("active", "Active"), ("expired", "Expired"), ("revoked", "Revoked")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        now = timezone.now()
        unexpired = Q(expires_at__isnull=True) | Q(expires_at__gt=now)
        if self.value() == "active":
            return queryset.filter(unexpired, revoked_at__isnull=True)
        if self.value() == "expired":
            return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    # Five columns, so that the list fits beside the filters at 1280 px (the expiry goes into
    # the state; the creation time is on the key's page).
    list_display = ["name", "key_start", "scope", "workflow_list", "state"]
    list_filter = [ApiKeyStateFilter, "scope"]
    search_fields = ["name"]
    # What a key's page shows; the hash is not among them, anywhere. Scope, workflows and expiry
    # can change; the name and the key cannot.
    form = ApiKeyChangeForm
    fields = ("name", "key_start", "created_at", "state", "scope", "workflows", "expires_at")
    readonly_fields = ("name", "key_start", "created_at", "state")
    actions = ["revoke_selected"]
    change_form_template = "admin/triggers/apikey/change_form.html"

    @admin.display(description="Key starts with")
    def key_start(self, api_key: ApiKey) -> str:
        return f"{api_key.prefix}…"

    @admin.display(description="Workflows")
    def workflow_list(self, api_key: ApiKey) -> str:
        return ", ".join(api_key.workflows) or "all"

    @admin.display(description="State", ordering="expires_at")
    def state(self, api_key: ApiKey) -> str:
        if api_key.revoked_at is not None:
            return f"revoked {admin_time(api_key.revoked_at)}"
        if api_key.expires_at is None:
            return "active"
        if api_key.expired(timezone.now()):
            return f"expired {admin_time(api_key.expires_at)}"
        return f"active, expires {admin_time(api_key.expires_at)}"

    # --- change: scope, workflows, expiry ---------------------------------------------------
    def save_model(self, request: HttpRequest, obj: ApiKey, form: Any, change: bool) -> None:
        # Through the service, which forgets the key in this process's cache.
        api_key_update(
            api_key=obj,
            scope=form.cleaned_data["scope"],
            workflows=form.cleaned_data["workflows"],
            expires_at=form.cleaned_data["expires_at"],
        )

    # --- permissions -----------------------------------------------------------------------
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Revoke instead: the row keeps which client had a key and when it stopped working.
        return False

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("triggers.change_apikey")

    # --- add: the name in, the key out, once -----------------------------------------------
    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = ApiKeyAddForm(request.POST if request.method == "POST" else None)
        if form.is_bound and form.is_valid():
            try:
                api_key, key = api_key_create(
                    name=form.cleaned_data["name"],
                    scope=form.cleaned_data["scope"],
                    workflows=form.cleaned_data["workflows"],
                    expires_at=form.cleaned_data["expires_at"],
                )
            except ApiKeyNameTaken as exc:
                form.add_error("name", str(exc))
            else:
                self.log_addition(request, api_key, [{"added": {}}])
                response = self._page(
                    request, "created.html", f"API key {api_key.name} created", key=key
                )
                add_never_cache_headers(response)  # the only copy of the key: keep it out of caches
                return response
        return self._page(request, "add.html", "Add API key", form=form)

    def _page(self, request: HttpRequest, template: str, title: str, **extra: Any) -> Any:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "has_view_permission": self.has_view_permission(request),
            **extra,
        }
        return TemplateResponse(request, f"admin/triggers/apikey/{template}", context)

    # --- revoke: a button on the key's page, and an action on the list ---------------------
    def get_urls(self) -> list[Any]:
        revoke = self.admin_site.admin_view(require_POST(self.revoke_view))
        return [
            path("<path:object_id>/revoke/", revoke, name="triggers_apikey_revoke"),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        api_key = self.get_object(request, unquote(object_id))
        can_revoke = (
            api_key is not None
            and api_key.revoked_at is None
            and self.has_revoke_permission(request)
        )
        context = {"can_revoke": can_revoke, **(extra_context or {})}
        return super().change_view(request, object_id, form_url, context)

    def revoke_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.has_revoke_permission(request):
            raise PermissionDenied
        api_key = self.get_object(request, unquote(object_id))
        if api_key is None:
            raise Http404("no such API key")
        self._revoke(request, [api_key])
        return HttpResponseRedirect(reverse("admin:triggers_apikey_change", args=[api_key.pk]))

    @admin.action(description="Revoke selected API keys", permissions=["revoke"])
    def revoke_selected(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        self._revoke(request, list(queryset))

    def _revoke(self, request: HttpRequest, api_keys: list[ApiKey]) -> None:
        revoked, already = [], []
        for api_key in api_keys:
            if api_key_revoke(api_key=api_key):
                self.log_change(request, api_key, "Revoked.")
                revoked.append(api_key.name)
            else:
                already.append(api_key.name)
        if revoked:
            messages.success(request, f"Revoked: {', '.join(revoked)}.")
        if already:
            messages.info(request, f"Already revoked: {', '.join(already)}.")
