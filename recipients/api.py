"""REST endpoints for recipients (docs/design/recipients.md, "Recipients"): a profile under the client's
own user id (PUT replaces, PATCH merges, GET reads, DELETE erases), the list with `?search=`,
and the bulk upsert. The serializers here also check the `recipient` object a trigger may carry
(identify on trigger, triggers/api.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import invalid_input, not_found
from common.http import (
    NoFieldsSerializer,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import ADMIN, TRIGGER, Refused
from recipients.models import KEY_MAX_LENGTH, PROFILE_FIELDS, Recipient
from recipients.selectors import recipient_list
from recipients.services import Profile, recipient_erase, recipients_upsert
from recipients.validation import (
    LOCALE_MAX_LENGTH,
    email_problem,
    key_problem,
    locale_problem,
    phone_problem,
    timezone_problem,
)
from workflows.quiet_hours import quiet_hours_problems
from workflows.timing import WEEKDAYS


@extend_schema_field({"type": "object", "additionalProperties": {}})
class JsonObjectField(serializers.JSONField):
    """A JSON object (its values anything JSON)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValidationError("must be a JSON object")
        return super().to_internal_value(data)


QUIET_HOURS_SCHEMA = {
    "type": "object",
    "nullable": True,
    "properties": {
        "start": {"type": "string", "example": "22:00"},
        "end": {"type": "string", "example": "08:00"},
        "days": {"type": "array", "items": {"type": "string", "enum": list(WEEKDAYS)}},
    },
    "required": ["start", "end"],
    "additionalProperties": False,
}


@extend_schema_field(QUIET_HOURS_SCHEMA)
class QuietHoursField(serializers.JSONField):
    """A person's quiet hours (workflows/quiet_hours.py): an object, or null for none (stored
    as {}, shown as null)."""

    def to_internal_value(self, data: Any) -> Any:
        problems = quiet_hours_problems(data)
        if problems:
            whole = [message for name, message in problems if not name]
            raise ValidationError(whole or {name: [message] for name, message in problems})
        return super().to_internal_value(data) or None

    def to_representation(self, value: Any) -> Any:
        return value or None


def _checked(problem: str) -> None:
    if problem:
        raise ValidationError(problem)


class RecipientFieldsSerializer(StrictSerializer):
    # Every field optional and without a default: a merge changes only those given.
    email = StrictCharField(
        required=False, allow_blank=True, max_length=254, help_text="an email address; empty: none"
    )
    phone = StrictCharField(
        required=False, allow_blank=True, max_length=16, help_text="E.164 (+15550100); empty: none"
    )
    name = StrictCharField(required=False, allow_blank=True, max_length=200, trim_whitespace=False)
    locale = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=LOCALE_MAX_LENGTH,
        help_text="a BCP 47 language tag (en, pt-BR)",
    )
    timezone = StrictCharField(
        required=False, allow_blank=True, max_length=64, help_text="an IANA zone (Europe/Paris)"
    )
    quiet_hours = QuietHoursField(
        required=False,
        allow_null=True,
        help_text="when, in their time zone, they want nothing that is not urgent: "
        '{"start": "22:00", "end": "08:00", "days"?: ["mon", ...]}; null: none '
        "(docs/quiet-hours.md)",
    )
    channels = JsonObjectField(
        required=False,
        help_text="per-channel data for later channels ({channel: object}); PATCH merges its "
        "top-level keys (null removes one)",
    )
    properties = JsonObjectField(
        required=False,
        help_text="free JSON the templates read as recipient.properties; PATCH merges its "
        "top-level keys (null removes one)",
    )

    def validate_email(self, value: str) -> str:
        _checked(email_problem(value))
        return value

    def validate_phone(self, value: str) -> str:
        _checked(phone_problem(value))
        return value

    def validate_locale(self, value: str) -> str:
        _checked(locale_problem(value))
        return value

    def validate_timezone(self, value: str) -> str:
        _checked(timezone_problem(value))
        return value


class RecipientItemSerializer(RecipientFieldsSerializer):
    """A profile with its key: a bulk item, or a trigger's `recipient` object."""

    id = StrictCharField(
        min_length=1,
        max_length=KEY_MAX_LENGTH,
        trim_whitespace=False,
        help_text="the client's own user id",
    )

    def validate_id(self, value: str) -> str:
        _checked(key_problem(value))
        return value


def profile_of(fields: dict[str, Any], key: str | None = None) -> Profile:
    """The Profile of fields a RecipientFieldsSerializer (or an item's) accepted."""
    given = {name: fields[name] for name in PROFILE_FIELDS if name in fields}
    return Profile(key=key if key is not None else fields["id"], fields=given)


class RecipientOutputSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="key")
    quiet_hours = QuietHoursField(allow_null=True)

    class Meta:
        model = Recipient
        fields = ("id", *PROFILE_FIELDS, "created_at", "updated_at")


def recipient_json(recipient: Recipient) -> dict[str, Any]:
    return dict(RecipientOutputSerializer(recipient).data)


def _key_checked(key: str) -> str:
    """The URL's key, checked as the body's `id` would be: a 400 naming `id`."""
    if problem := key_problem(key):
        raise ValidationError({"id": [problem]})
    return key


_EXAMPLE = {
    "email": "ada@example.com",
    "phone": "+15550100",
    "name": "Ada",
    "locale": "en-GB",
    "timezone": "Europe/London",
    "quiet_hours": {"start": "22:00", "end": "08:00"},
    "channels": {},
    "properties": {"plan": "pro"},
}
ERASED_EXAMPLE = {
    "id": "user-42",
    "erased": {
        "profile": 1,
        "preferences": 2,
        "topic_subscriptions": 3,
        "fanout_exclusions": 1,
        "inbox_messages": 5,
    },
    "kept": "runs with their step logs and delivery events, until retention purges them; "
    "suppressions of the addresses, until an operator removes them (docs/security/findings.md, "
    '"Erasing a recipient")',
}


class RecipientListApi(StrictQueryParameters, ListAPIView):
    # Listing people's profiles is reading everyone's addresses: admin only.
    api_scopes = {"GET": ADMIN}
    serializer_class = RecipientOutputSerializer
    query_parameters = {
        "GET": [
            OpenApiParameter(
                "search",
                {"type": "string", "minLength": 1},
                description="recipients whose id or email starts with it, or whose name "
                "contains it (email and name case-insensitive)",
            )
        ]
    }

    def get_queryset(self):
        search = self.request.query_params.get("search")
        if search is not None and not search:
            raise ValidationError({"search": ["must not be empty"]})
        return recipient_list(search=search)

    @extend_schema(summary="List recipients")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


class RecipientErasedSerializer(serializers.Serializer):
    id = serializers.CharField()
    erased = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="what was removed: profile (1), preferences (switches), topic_subscriptions, "
        "fanout_exclusions (fan-outs whose `exclude` named the id), inbox_messages",
    )
    kept = serializers.CharField(help_text="what stays, and where the retention is described")


class RecipientDetailApi(StrictQueryParameters, APIView):
    # A trigger key may write and read a profile by its key, as identify-on-trigger does
    # anyway; erasing, like listing everyone, is admin (docs/design/recipients.md, "Recipients").
    api_scopes = {"GET": TRIGGER, "PUT": TRIGGER, "PATCH": TRIGGER, "DELETE": ADMIN}
    # A person belongs to no workflow: a key limited to some may not read or rewrite the
    # addresses every other workflow sends to (docs/security/keys.md, "Keys limited to workflows").
    workflow_limits = Refused("read or change recipients")

    @extend_schema(summary="Get a recipient", responses=RecipientOutputSerializer)
    def get(self, request: Request, recipient_id: str) -> Response:
        key = _key_checked(recipient_id)
        recipient = recipient_list().filter(key=key).first()
        if recipient is None:
            raise not_found("recipient", key)
        return Response(recipient_json(recipient))

    @extend_schema(
        summary="Create or replace a recipient",
        request=RecipientFieldsSerializer,
        responses={201: RecipientOutputSerializer, 200: RecipientOutputSerializer},
        examples=[OpenApiExample("a profile", value=_EXAMPLE, request_only=True)],
        description="The URL's id is the key. 201 created, 200 replaced: every field is set, "
        "those left out to their default (empty). Preferences are not touched.",
    )
    def put(self, request: Request, recipient_id: str) -> Response:
        return self._upsert(request, recipient_id, merge=False)

    @extend_schema(
        summary="Create or merge into a recipient",
        request=RecipientFieldsSerializer,
        responses={201: RecipientOutputSerializer, 200: RecipientOutputSerializer},
        description="Changes the fields given, and `channels` and `properties` shallowly (a "
        "top-level key given replaces the stored one, null removes it); creates the recipient "
        "(201) when there is none.",
    )
    def patch(self, request: Request, recipient_id: str) -> Response:
        return self._upsert(request, recipient_id, merge=True)

    def _upsert(self, request: Request, recipient_id: str, *, merge: bool) -> Response:
        key = _key_checked(recipient_id)
        fields = request_fields(request, RecipientFieldsSerializer)
        created = recipients_upsert([profile_of(fields, key)], merge=merge)[key]
        recipient = Recipient.objects.get(key=key)
        return Response(recipient_json(recipient), status=201 if created else 200)

    @extend_schema(
        summary="Erase a recipient",
        request=None,
        responses={200: RecipientErasedSerializer},
        examples=[OpenApiExample("erased", value=ERASED_EXAMPLE, response_only=True)],
        description="Erases the person: profile, preferences, topic subscriptions, their id in "
        "fan-outs' `exclude`, in-app messages, and revokes their inbox tokens, in one "
        "transaction. Their runs stay under retention, and a step of one that would send to "
        "them is skipped (rule `recipient_erased`); the answer counts what was removed.",
    )
    def delete(self, request: Request, recipient_id: str) -> Response:
        key = _key_checked(recipient_id)
        request_fields(request, NoFieldsSerializer)
        erased = recipient_erase(key=key)
        if erased is None:
            raise not_found("recipient", key)
        body = {
            "id": key,
            "erased": {
                "profile": erased.profile,
                "preferences": erased.preferences,
                "topic_subscriptions": erased.topic_subscriptions,
                "fanout_exclusions": erased.fanout_exclusions,
                **erased.also,
            },
            "kept": ERASED_EXAMPLE["kept"],
        }
        return Response(body)


@extend_schema_field(RecipientItemSerializer)
class BulkItemField(serializers.JSONField):
    """Any JSON here: each item is checked alone, a bad one is that item's 400."""


class RecipientBulkInputSerializer(StrictSerializer):
    recipients = serializers.ListField(
        child=BulkItemField(allow_null=True),
        min_length=1,
        help_text="1 to NOTIFLOW_BULK_MAX [1000] profiles, each with its id; merged as PATCH "
        "merges",
    )

    def validate_recipients(self, items: list[Any]) -> list[Any]:
        limit = settings.NOTIFLOW_BULK_MAX
        if len(items) > limit:
            raise ValidationError(
                f"at most {limit} recipients per request (NOTIFLOW_BULK_MAX); this one has "
                f"{len(items)}, and none was stored"
            )
        return items


# For the schema only (`errors` cannot be a field of a Serializer class: it is its property).
BULK_RESULT = inline_serializer(
    name="RecipientBulkResult",
    many=True,
    help_text="one per item, in request order",
    fields={
        "index": serializers.IntegerField(help_text="the item's place in `recipients`, from 0"),
        "status": serializers.IntegerField(help_text="201 created, 200 merged, 400 refused"),
        "recipient": RecipientOutputSerializer(required=False, help_text="with 201 and 200"),
        "detail": serializers.CharField(required=False, help_text="with 400"),
        "errors": serializers.DictField(required=False, help_text="field name -> messages"),
    },
)


class RecipientBulkOutputSerializer(serializers.Serializer):
    results = BULK_RESULT


def _item_error(index: int, field: str, message: str) -> dict[str, Any]:
    return {"index": index, "status": 400, "detail": message, "errors": {field: [message]}}


class RecipientBulkApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER}
    workflow_limits = Refused("read or change recipients")

    @extend_schema(
        summary="Create or merge many recipients",
        request=RecipientBulkInputSerializer,
        responses={200: RecipientBulkOutputSerializer},
        description="Each item is a profile with its `id`, merged as PATCH merges (created when "
        "new), independently of the others, in one statement for them all. 200 with a result "
        "per item in request order; an invalid item (or one repeating an earlier item's id) is "
        "its own 400. A body that is not an object with 1 to NOTIFLOW_BULK_MAX items is a 400 "
        "and stores nothing.",
    )
    def post(self, request: Request) -> Response:
        items = request_fields(request, RecipientBulkInputSerializer)["recipients"]
        results: list[dict[str, Any] | None] = []
        profiles: dict[str, tuple[int, Profile]] = {}
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                results.append(_item_error(index, "item", "each recipient must be a JSON object"))
                continue
            fields = RecipientItemSerializer(data=item)
            if not fields.is_valid():
                results.append({"index": index, "status": 400, **invalid_input(fields.errors)})
                continue
            key = fields.validated_data["id"]
            if key in profiles:
                message = f"repeats the id of item {profiles[key][0]}; give each id once"
                results.append(_item_error(index, "id", message))
                continue
            results.append(None)
            profiles[key] = (index, profile_of(fields.validated_data))
        done = recipients_upsert([p for _, p in profiles.values()], merge=True)
        stored = {r.key: r for r in Recipient.objects.filter(key__in=list(done))}
        for key, (index, _profile) in profiles.items():
            code = 201 if done[key] else 200
            results[index] = {
                "index": index,
                "status": code,
                "recipient": recipient_json(stored[key]),
            }
        return Response({"results": results})
