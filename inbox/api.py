"""The in-app inbox's REST endpoints (docs/design/inbox.md, "In-app inbox"; docs/guide/api.md's table).

The feed API (`/api/inbox/...`) is called from the recipient's browser with a recipient token
(inbox/auth.py), never an API key; it reads and marks that recipient's messages only. The token
endpoints (`POST /api/recipients/<id>/inbox-token/` and its `rotate/`) are the client's backend's,
with an API key.
Views parse and translate; the rules are in inbox/services.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import not_found
from common.http import NoFieldsSerializer, StrictQueryParameters, StrictSerializer, request_fields
from common.scopes import TRIGGER, Refused
from inbox import services
from inbox.auth import (
    InboxReader,
    IsRecipient,
    RecipientRateThrottle,
    RecipientTokenAuthentication,
)
from inbox.stream import STREAM_ENVIRON_KEY, StreamSlot, stream_events
from recipients.validation import key_problem
from tenants.api import tenant_requested


class RecipientTokenView(StrictQueryParameters, APIView):
    """The feed API's views: a recipient token, that recipient's rate limit, no API key."""

    authentication_classes = [RecipientTokenAuthentication]
    permission_classes = [IsRecipient]
    throttle_classes = [RecipientRateThrottle]
    recipient_token = True  # no API key scope (notiflow/openapi.py)

    @property
    def recipient(self) -> str:
        reader = self.request.user
        assert isinstance(reader, InboxReader)  # IsRecipient let nothing else through
        return reader.recipient


MESSAGE = inline_serializer(
    "InboxMessage",
    {
        "id": serializers.UUIDField(),
        "title": serializers.CharField(),
        "body": serializers.CharField(help_text="as rendered, with its Markdown marks"),
        "body_html": serializers.CharField(
            help_text="the body as escaped HTML: **bold**, *italic*, `code`, links, paragraphs"
        ),
        "action_url": serializers.CharField(help_text="where a click goes; empty for nowhere"),
        "data": serializers.JSONField(help_text="the node's free JSON"),
        "category": serializers.CharField(),
        "workflow_key": serializers.CharField(),
        "created_at": serializers.DateTimeField(),
        "seen_at": serializers.DateTimeField(allow_null=True),
        "read_at": serializers.DateTimeField(allow_null=True),
        "archived_at": serializers.DateTimeField(allow_null=True),
    },
)
COUNTS = inline_serializer(
    "InboxCounts",
    {
        "unseen": serializers.IntegerField(),
        "unread": serializers.IntegerField(),
        "total": serializers.IntegerField(help_text="messages not archived"),
    },
)
FEED_PARAMETERS = [
    OpenApiParameter("status", str, enum=list(services.STATUSES), description="default all"),
    OpenApiParameter(
        "archived", str, enum=list(services.ARCHIVED), description="default false: not archived"
    ),
    OpenApiParameter("category", str, description="only this category's messages"),
    OpenApiParameter(
        "tenant",
        str,
        description="only the messages of runs sent for this tenant (docs/tenants.md); an "
        "unknown one is a 400 naming `tenant`",
    ),
    OpenApiParameter("cursor", str, description="the `next_cursor` of the page before"),
    OpenApiParameter(
        "limit", int, description=f"1-{services.PAGE_MAX}, default {services.PAGE_SIZE}"
    ),
]


def _choice(params: Any, name: str, allowed: tuple[str, ...], default: str) -> str:
    value = params.get(name, default)
    if value not in allowed:
        raise ValidationError({name: [f"must be one of {', '.join(allowed)}"]})
    return str(value)


def _limit(params: Any) -> int:
    value = params.get("limit")
    if value is None:
        return services.PAGE_SIZE
    if not value.isdigit() or not 1 <= int(value) <= services.PAGE_MAX:
        raise ValidationError({"limit": [f"must be a whole number from 1 to {services.PAGE_MAX}"]})
    return int(value)


class InboxFeedApi(RecipientTokenView):
    query_parameters = {"GET": FEED_PARAMETERS}

    @extend_schema(
        summary="List the recipient's in-app messages",
        description="Newest first, a page at a time: pass `next_cursor` as `cursor` for the next "
        "(null on the last page). Authorization: `Recipient <recipient id>:<token>`.",
        responses=inline_serializer(
            "InboxFeed",
            {
                "results": MESSAGE.__class__(many=True),
                "next_cursor": serializers.CharField(allow_null=True),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        try:
            page = services.inbox_feed(
                recipient=self.recipient,
                status=_choice(params, "status", services.STATUSES, "all"),
                archived=_choice(params, "archived", services.ARCHIVED, "false"),
                category=params.get("category", ""),
                tenant=tenant_requested(request),
                cursor=params.get("cursor", ""),
                limit=_limit(params),
            )
        except services.CursorInvalid as exc:
            raise ValidationError({"cursor": [str(exc)]}) from exc
        return Response(
            {
                "results": [services.message_json(m) for m in page.messages],
                "next_cursor": page.next_cursor,
            }
        )


class InboxCountsApi(RecipientTokenView):
    @extend_schema(
        summary="Count the recipient's unseen, unread and all in-app messages",
        description="Over the messages not archived. "
        "Authorization: `Recipient <recipient id>:<token>`.",
        responses=COUNTS,
    )
    def get(self, request: Request) -> Response:
        return Response(services.inbox_counts(recipient=self.recipient).as_dict())


class MarkSerializer(StrictSerializer):
    ids = serializers.ListField(
        child=serializers.UUIDField(), min_length=1, max_length=services.MARK_MAX_IDS
    )
    # `as` is a Python keyword: the field is declared under its name below.


MarkSerializer._declared_fields["as"] = serializers.ChoiceField(choices=services.MARK_NAMES)


class MarkAllSerializer(StrictSerializer):
    pass


MarkAllSerializer._declared_fields["as"] = serializers.ChoiceField(choices=services.MARK_ALL_NAMES)

MARKED = inline_serializer(
    "InboxMarked",
    {
        "marked": serializers.ListField(
            child=serializers.UUIDField(), help_text="the messages this changed"
        ),
        "counts": COUNTS,
    },
)


class InboxMarkApi(RecipientTokenView):
    @extend_schema(
        summary="Mark some of the recipient's in-app messages",
        description="`as`: seen, read (also seen), unread, archived or unarchived. Ids of "
        "messages that are not the recipient's change nothing. seen, read and archived announce "
        "message.seen, message.read, message.archived for each message they change. "
        "Authorization: `Recipient <recipient id>:<token>`.",
        request=MarkSerializer,
        responses=MARKED,
    )
    def post(self, request: Request) -> Response:
        fields = request_fields(request, MarkSerializer)
        ids = [str(value) for value in fields["ids"]]
        marked = services.inbox_mark(recipient=self.recipient, mark=fields["as"], ids=ids)
        return self._answer(marked)

    def _answer(self, marked: list[str]) -> Response:
        counts = services.inbox_counts(recipient=self.recipient)
        return Response({"marked": marked, "counts": counts.as_dict()})


class InboxMarkAllApi(InboxMarkApi):
    @extend_schema(
        summary="Mark all the recipient's in-app messages",
        description="`as`: seen, read or archived, on every message not archived. "
        "Authorization: `Recipient <recipient id>:<token>`.",
        request=MarkAllSerializer,
        responses=MARKED,
    )
    def post(self, request: Request) -> Response:
        fields = request_fields(request, MarkAllSerializer)
        marked = services.inbox_mark(recipient=self.recipient, mark=fields["as"])
        return self._answer(marked)


TOKEN = inline_serializer("InboxToken", {"token": serializers.CharField()})


def _key_checked(recipient_key: str) -> str:
    if problem := key_problem(recipient_key):
        raise ValidationError({"id": [problem]})
    return recipient_key


class InboxTokenApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER}
    # A token reads and marks the person's whole inbox, every workflow's messages.
    workflow_limits = Refused("issue recipients' inbox tokens")

    @extend_schema(
        summary="Issue a recipient's inbox token",
        description="The token the recipient's browser sends to the feed API as "
        "`Authorization: Recipient <id>:<token>` (docs/security/recipients.md): the HMAC-SHA256 of the id "
        "and the recipient's token generation under NOTIFLOW_INBOX_SECRET (a backend may compute "
        "generation 0's itself, until the first rotate). The recipient need not exist yet.",
        request=NoFieldsSerializer,
        responses=TOKEN,
    )
    def post(self, request: Request, recipient_key: str) -> Response:
        request_fields(request, NoFieldsSerializer)
        return Response({"token": services.inbox_token(_key_checked(recipient_key))})


class InboxTokenRotateApi(StrictQueryParameters, APIView):
    # As issuing one: a backend that may hand a person their token may revoke it.
    api_scopes = {"POST": TRIGGER}
    workflow_limits = Refused("rotate recipients' inbox tokens")

    @extend_schema(
        summary="Revoke a recipient's inbox tokens and issue a new one",
        description="Raises the recipient's token generation: every token issued before is a "
        "401 from now on (an open stream ends), and the answer is the one token that works. "
        "404 when there is no such recipient.",
        request=NoFieldsSerializer,
        responses={200: TOKEN},
    )
    def post(self, request: Request, recipient_key: str) -> Response:
        request_fields(request, NoFieldsSerializer)
        token = services.inbox_token_rotate(recipient_key=_key_checked(recipient_key))
        if token is None:
            raise not_found("recipient", recipient_key)
        return Response({"token": token})


class _EventStream:
    """The stream's media type, as content negotiation compares it."""

    media_type = "text/event-stream"
    format = "event-stream"


class EventStreamNegotiation(DefaultContentNegotiation):
    """The stream is served to a client that accepts `text/event-stream`: what every SSE client
    sends (EventSource, fetch-event-source, httpx-sse), `*/*`, `text/*` or no Accept; any other
    gets a 406 (DRF's default knows only JSON and refused them all). A refusal (400, 401, 429)
    is JSON whatever the Accept: an SSE client reads a non-stream answer as a failed connect."""

    def select_renderer(
        self, request: Any, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        super().select_renderer(request, [_EventStream()], format_suffix)  # type: ignore[list-item]
        json = next(iter(renderers))
        return json, json.media_type


class InboxStreamApi(RecipientTokenView):
    content_negotiation_class = EventStreamNegotiation

    @extend_schema(
        summary="Follow the recipient's inbox as Server-Sent Events",
        description="`text/event-stream`: `message` events (a message as the feed shows it) for "
        "each new message, and a `counts` event after each change (also one from another tab's "
        "mark), within a second of its commit; a comment line every 15 s. Each event's `id` is "
        "a position: reconnect with it as the `Last-Event-ID` header to get every message since "
        "(oldest first, in batches of 50 one after another; the counts after the last). "
        "Authorization: `Recipient <recipient id>:<token>` (use fetch() with that header; the "
        "browser's EventSource cannot send one).",
        parameters=[
            OpenApiParameter("Last-Event-ID", str, location=OpenApiParameter.HEADER, required=False)
        ],
        responses={(200, "text/event-stream"): OpenApiResponse(description="the events")},
    )
    def get(self, request: Request) -> HttpResponse:
        slot = request.META.get(STREAM_ENVIRON_KEY)
        if not isinstance(slot, StreamSlot):
            slot = StreamSlot()  # no adapter: answer the first events and end
        if not slot.redispatch:
            slot.cursor = request.headers.get("Last-Event-ID", "").strip()
            try:
                if slot.cursor:
                    services.cursor_read(slot.cursor)
            except services.CursorInvalid as exc:
                raise ValidationError({"Last-Event-ID": [str(exc)]}) from exc
        body = stream_events(self.recipient, slot)
        slot.recipient = self.recipient
        response = HttpResponse(body, content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
        return response
