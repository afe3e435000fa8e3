"""The admin's categories (docs/design/recipients.md, "Preferences"): the operator names the kinds of
notification workflows carry (`billing`, `comments`) and, per channel, whether a person who said
nothing gets them: one checkbox a registered channel (workflows.channels), which the form turns
into `defaults` ({channel: bool}). Imported at the app's ready (recipients/apps.py), beside the
recipients' own admin."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import reverse

from recipients.categories import category_delete, category_workflows
from recipients.models import Category
from recipients.preferences import category_channels, channel_labels, known_channels


def _default_field(channel: str) -> str:
    return f"default_{channel}"


def default_channels(category: Category | None) -> list[str]:
    """The channels a category's form offers defaults for, in the registry's order: those its
    active workflows send on, and those it has a default for already; every channel for a new
    category, or one no active workflow uses yet (the operator is setting it up)."""
    if category is None or category._state.adding:
        return known_channels()
    used = category_channels([category.slug]).get(category.slug, set())
    if not used:
        return known_channels()
    used |= set(category.defaults or {})
    return [channel for channel in known_channels() if channel in used]


class CategoryFormBase(forms.ModelForm):
    class Meta:
        model = Category
        fields = ["slug", "name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2, "cols": 60})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        defaults = self.instance.defaults or {}
        self.channels = default_channels(self.instance)
        for channel in known_channels():
            name = _default_field(channel)
            if channel not in self.channels:
                self.fields.pop(name, None)  # not offered: its default stays as it is
            elif name in self.fields:
                self.fields[name].initial = defaults.get(channel) is not False

    def save(self, commit: bool = True) -> Category:
        self.instance.defaults = {
            **(self.instance.defaults or {}),
            **{
                channel: bool(self.cleaned_data.get(_default_field(channel)))
                for channel in self.channels
            },
        }
        return super().save(commit=commit)


def _default_checkbox(channel: str) -> forms.BooleanField:
    return forms.BooleanField(
        required=False,
        label=f"{channel_labels()[channel]} on by default",
        help_text=f"Unchecked: a person who said nothing about {channel} for this category does "
        "not get it (their own preferences always win).",
    )


def category_form() -> type[CategoryFormBase]:
    """The form with one checkbox per registered channel, declared on the class (the admin
    accepts only declared fields), made from the registry when asked: a later channel gets its
    box without a change here."""
    return type(
        "CategoryForm",
        (CategoryFormBase,),
        {_default_field(channel): _default_checkbox(channel) for channel in known_channels()},
    )


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    @property
    def form(self) -> type[CategoryFormBase]:  # type: ignore[override]
        return category_form()

    list_display = ["slug", "name", "defaults_shown"]
    search_fields = ["slug", "name"]

    def get_fields(self, request: Any, obj: Category | None = None) -> list[Any]:
        return [
            "slug",
            "name",
            "description",
            *(_default_field(channel) for channel in default_channels(obj)),
        ]

    def get_readonly_fields(self, request: Any, obj: Category | None = None) -> list[str]:
        # Workflows and people's preferences name it by its slug.
        return ["slug"] if obj is not None else []

    # Deleting follows the API's rules (recipients/categories.py): a category a workflow names
    # stays (the operator is told which), and one deleted leaves every person's preferences.
    def get_actions(self, request: Any) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # one at a time, each with its check
        return actions

    def delete_view(
        self, request: Any, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        workflows = category_workflows(object_id)
        if workflows:
            self.message_user(
                request,
                f"Category {object_id!r} is not deleted: workflows {', '.join(workflows)} name "
                "it. Move them to another category first.",
                messages.ERROR,
            )
            return HttpResponseRedirect(
                reverse("admin:recipients_category_change", args=[object_id])
            )
        return super().delete_view(request, object_id, extra_context)

    def delete_model(self, request: Any, obj: Category) -> None:
        category_delete(slug=obj.slug)  # CategoryInUse if a workflow named it meanwhile

    @admin.display(description="defaults")
    def defaults_shown(self, category: Category) -> str:
        defaults = category.defaults or {}
        return ", ".join(
            f"{channel} {'on' if defaults.get(channel, True) is not False else 'off'}"
            for channel in known_channels()
        )
