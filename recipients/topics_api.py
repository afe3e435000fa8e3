"""REST endpoints of topics and their subscribers (docs/design/recipients.md, "Topics and fan-out"). Views
parse and translate; the rules are in recipients/topics.py. Their URL patterns are `urlpatterns`
below, included under /api/ by the project's URLconf."""

from __future__ import annotations

import re
from typing import Any

from django.urls import path
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404, not_found
from common.http import (
    NoFieldsSerializer,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import ADMIN, TRIGGER, Refused
from recipients.models import KEY_MAX_LENGTH, Recipient, Topic
from recipients.preferences_api import RECIPIENT_PARAMETER
from recipients.topics import (
    SUBSCRIBERS_PAGE_DEFAULT,
    SUBSCRIBERS_PAGE_MAX,
    TOPIC_BATCH_MAX,
    InvalidCursor,
    ItemResult,
    topic_delete,
    topic_put,
    topic_subscribe,
    topic_subscriber_count,
    topic_subscribers,
    topic_unsubscribe,
    topics_counted,
    topics_of,
)


class TopicInputSerializer(StrictSerializer):
    name = StrictCharField(required=False, allow_blank=True, max_length=200, default="")
    description = StrictCharField(required=False, allow_blank=True, max_length=2000, default="")


class TopicOutputSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    subscribers = serializers.IntegerField(help_text="how many recipients are subscribed")
    created_at = serializers.DateTimeField()


class RecipientTopicSerializer(serializers.Serializer):
    key = serializers.CharField(source="topic.key")
    name = serializers.CharField(source="topic.name")
    description = serializers.CharField(source="topic.description")
    subscribed_at = serializers.DateTimeField(source="created_at")


class SubscribersInputSerializer(StrictSerializer):
    recipients = serializers.ListField(
        child=StrictCharField(min_length=1, max_length=KEY_MAX_LENGTH, trim_whitespace=False),
        min_length=1,
        max_length=TOPIC_BATCH_MAX,
        help_text=f"1 to {TOPIC_BATCH_MAX} recipient ids",
    )


class SubscriberResultSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="the id's place in `recipients`, from 0")
    recipient = serializers.CharField()
    status = serializers.IntegerField(
        help_text="201 subscribed now; 200 already subscribed, or unsubscribed; 404 no such "
        "recipient"
    )
    subscribed = serializers.BooleanField(required=False, help_text="with 201 and 200")
    changed = serializers.BooleanField(required=False, help_text="with 201 and 200")
    detail = serializers.CharField(required=False, help_text="with 404")


class SubscribersOutputSerializer(serializers.Serializer):
    results = SubscriberResultSerializer(many=True, help_text="one per id, in request order")


class SubscriberSerializer(serializers.Serializer):
    recipient = serializers.CharField()
    subscribed_at = serializers.DateTimeField()


class SubscriberPageSerializer(serializers.Serializer):
    results = SubscriberSerializer(many=True)
    next_cursor = serializers.CharField(
        allow_null=True, help_text="give it as ?cursor= for the next page; null on the last"
    )


def _topic_key_checked(topic_key: str) -> None:
    if len(topic_key) > KEY_MAX_LENGTH:
        message = f"a topic key has at most {KEY_MAX_LENGTH} characters"
        raise ValidationError({"detail": message, "errors": {"topic_key": [message]}})


def _topic_json(topic: Topic) -> dict[str, Any]:
    return {
        "key": topic.key,
        "name": topic.name,
        "description": topic.description,
        "subscribers": topic_subscriber_count(topic),
        "created_at": topic.created_at,
    }


def _results_json(results: list[ItemResult]) -> dict[str, Any]:
    answers = []
    for index, result in enumerate(results):
        answer: dict[str, Any] = {
            "index": index,
            "recipient": result.recipient,
            "status": result.status,
        }
        if result.status == 404:
            answer["detail"] = f"recipient {result.recipient!r} does not exist"
        else:
            answer.update(subscribed=result.subscribed, changed=result.changed)
        answers.append(answer)
    return {"results": SubscribersOutputSerializer({"results": answers}).data["results"]}


class TopicListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = Refused("read or change topics")
    serializer_class = TopicOutputSerializer

    def get_queryset(self):
        return topics_counted()

    @extend_schema(summary="List topics")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class RecipientTopicListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = Refused("read recipients' topics")
    serializer_class = RecipientTopicSerializer

    def get_queryset(self):
        return topics_of(recipient=self.kwargs["recipient_id"])

    @extend_schema(summary="List a recipient's topics", parameters=[RECIPIENT_PARAMETER])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not Recipient.objects.filter(key=kwargs["recipient_id"]).exists():
            raise not_found("recipient", kwargs["recipient_id"])
        return super().get(request, *args, **kwargs)


class TopicDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER, "PUT": TRIGGER, "DELETE": ADMIN}
    # Topics and their audiences span every workflow (docs/security/keys.md, "Keys limited to
    # workflows").
    workflow_limits = Refused("read or change topics")

    @extend_schema(summary="Get a topic", responses=TopicOutputSerializer)
    def get(self, request: Request, topic_key: str) -> Response:
        topic = found_or_404(Topic, "topic", key=topic_key)
        return Response(TopicOutputSerializer(_topic_json(topic)).data)

    @extend_schema(
        summary="Create or replace a topic",
        request=TopicInputSerializer,
        responses={201: TopicOutputSerializer, 200: TopicOutputSerializer},
        examples=[
            OpenApiExample(
                "a project's watchers",
                value={"name": "Project 42", "description": "who follows project 42"},
                request_only=True,
            )
        ],
    )
    def put(self, request: Request, topic_key: str) -> Response:
        fields = request_fields(request, TopicInputSerializer)
        _topic_key_checked(topic_key)
        topic, created = topic_put(key=topic_key, **fields)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(TopicOutputSerializer(_topic_json(topic)).data, status=code)

    @extend_schema(summary="Delete a topic and its subscriptions", responses={204: None})
    def delete(self, request: Request, topic_key: str) -> Response:
        request_fields(request, NoFieldsSerializer)
        if topic_delete(key=topic_key) is None:
            raise not_found("topic", topic_key)
        return Response(status=status.HTTP_204_NO_CONTENT)


SUBSCRIBERS_EXAMPLE = OpenApiExample(
    "two people", value={"recipients": ["user-1", "user-2"]}, request_only=True
)


class TopicSubscribersApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER, "POST": TRIGGER, "DELETE": TRIGGER}
    workflow_limits = Refused("read or change topics' subscribers")
    query_parameters = {
        "GET": [
            OpenApiParameter(
                "cursor", str, description="the `next_cursor` of the page before; absent: first"
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": SUBSCRIBERS_PAGE_MAX},
                description=f"subscribers per page [{SUBSCRIBERS_PAGE_DEFAULT}]",
            ),
        ]
    }

    @extend_schema(
        summary="List a topic's subscribers",
        responses=SubscriberPageSerializer,
        description="Oldest subscription first, a page at a time: follow `next_cursor`.",
    )
    def get(self, request: Request, topic_key: str) -> Response:
        cursor = request.query_params.get("cursor")
        limit = _limit(request.query_params.get("limit"))
        topic = found_or_404(Topic, "topic", key=topic_key)
        try:
            page = topic_subscribers(topic=topic, cursor=cursor, limit=limit)
        except InvalidCursor as exc:
            raise ValidationError({"cursor": [str(exc)]}) from None
        results = [{"recipient": key, "subscribed_at": at} for key, at in page.subscribers]
        body = {"results": results, "next_cursor": page.next_cursor}
        return Response(SubscriberPageSerializer(body).data)

    @extend_schema(
        summary="Subscribe recipients to a topic",
        request=SubscribersInputSerializer,
        responses={200: SubscribersOutputSerializer},
        examples=[SUBSCRIBERS_EXAMPLE],
        description="Each id is answered alone, in order (an unknown one is its item's 404); "
        "the answer is 200 whatever the items' outcomes.",
    )
    def post(self, request: Request, topic_key: str) -> Response:
        fields = request_fields(request, SubscribersInputSerializer)
        topic = found_or_404(Topic, "topic", key=topic_key)
        return Response(
            _results_json(topic_subscribe(topic=topic, recipients=fields["recipients"]))
        )

    @extend_schema(
        summary="Unsubscribe recipients from a topic",
        request=SubscribersInputSerializer,
        responses={200: SubscribersOutputSerializer},
        examples=[SUBSCRIBERS_EXAMPLE],
        description="Each id is answered alone, in order (an unknown one is its item's 404; one "
        "that was not subscribed is a 200 with `changed: false`).",
    )
    def delete(self, request: Request, topic_key: str) -> Response:
        fields = request_fields(request, SubscribersInputSerializer)
        topic = found_or_404(Topic, "topic", key=topic_key)
        results = topic_unsubscribe(topic=topic, recipients=fields["recipients"])
        return Response(_results_json(results))


def _limit(value: str | None) -> int:
    if value is None:
        return SUBSCRIBERS_PAGE_DEFAULT
    if not _LIMIT.fullmatch(value) or not 1 <= int(value) <= SUBSCRIBERS_PAGE_MAX:
        message = f"must be a whole number from 1 to {SUBSCRIBERS_PAGE_MAX}"
        raise ValidationError({"limit": [message]})
    return int(value)


_LIMIT = re.compile(r"[0-9]{1,4}")

# The body of DELETE .../subscribers/, which drf-spectacular does not document for a DELETE
# (notiflow.openapi.add_delete_bodies adds it).
SUBSCRIBERS_DELETE_PATH = "/api/topics/{topic_key}/subscribers/"
SUBSCRIBERS_BODY_SCHEMA = {
    "type": "object",
    "properties": {
        "recipients": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH},
            "minItems": 1,
            "maxItems": TOPIC_BATCH_MAX,
        }
    },
    "required": ["recipients"],
}

urlpatterns = [
    path("topics/", TopicListApi.as_view(), name="topic-list"),
    path("topics/<str:topic_key>/", TopicDetailApi.as_view(), name="topic-detail"),
    path(
        "topics/<str:topic_key>/subscribers/",
        TopicSubscribersApi.as_view(),
        name="topic-subscribers",
    ),
    path(
        "recipients/<str:recipient_id>/topics/",
        RecipientTopicListApi.as_view(),
        name="recipient-topics",
    ),
]
