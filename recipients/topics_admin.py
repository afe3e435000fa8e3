"""Topics and fan-outs in the admin (docs/operations/people-and-channels.md, "Topics and fan-outs"): topics with
their subscriber count and a page of their subscribers, subscriptions searchable by topic and
recipient, fan-outs read-only (the workers write them). Registered from RecipientsConfig.ready,
beside the profiles' admin."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from common.admin import ReadOnlyAdminMixin, json_block, list_time
from recipients.models import Fanout, Topic, TopicSubscription

# How many subscribers a topic's page lists; the rest are behind the link to all of them.
SUBSCRIBERS_SHOWN = 100


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["key", "name", "subscriber_count", "created"]
    search_fields = ["key", "name"]
    fields = ["key", "name", "description", "subscriber_count", "subscriber_list"]
    readonly_fields = ["subscriber_count", "subscriber_list"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Topic]:
        return super().get_queryset(request).annotate(subscribers=Count("subscriptions"))

    def get_readonly_fields(self, request: HttpRequest, obj: Topic | None = None) -> list[str]:
        # The key is the topic's identity (the API's URL): set once.
        return [*self.readonly_fields, "key"] if obj is not None else list(self.readonly_fields)

    @admin.display(description="Subscribers", ordering="subscribers")
    def subscriber_count(self, topic: Topic) -> int:
        return getattr(topic, "subscribers", 0)

    @admin.display(description="Created", ordering="created_at")
    def created(self, topic: Topic) -> str:
        return list_time(topic.created_at)

    @admin.display(description="Subscribers (oldest first)")
    def subscriber_list(self, topic: Topic) -> SafeString:
        keys = list(
            TopicSubscription.objects.filter(topic=topic)
            .order_by("id")
            .values_list("recipient_id", flat=True)[:SUBSCRIBERS_SHOWN]
        )
        every = (
            reverse("admin:recipients_topicsubscription_changelist") + f"?topic__key={topic.key}"
        )
        items = format_html_join("", "<li>{}</li>", ((key,) for key in keys))
        return format_html('<ul>{}</ul><a href="{}">All subscriptions</a>', items, every)


@admin.register(TopicSubscription)
class TopicSubscriptionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["topic", "recipient", "subscribed"]
    list_filter = ["topic"]
    search_fields = ["=topic__key", "recipient__key"]
    fields = readonly_fields = ("topic", "recipient", "created_at")
    list_select_related = False

    @admin.display(description="Subscribed", ordering="id")
    def subscribed(self, subscription: TopicSubscription) -> str:
        return list_time(subscription.created_at)


@admin.register(Fanout)
class FanoutAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["id", "workflow_key", "topic_key", "status", "created", "started", "finished"]
    list_filter = ["status"]
    search_fields = ["=id", "workflow_key", "topic_key", "idempotency_key"]
    fields = readonly_fields = (
        "id",
        "workflow_key",
        "topic_key",
        "idempotency_key",
        "status",
        "created",
        "cursor",
        "priority",
        "cancellation_key",
        "exclude",
        "payload_json",
        "last_error",
        "created_by",
        "created_at",
        "updated_at",
        "finished_at",
    )

    @admin.display(description="Started", ordering="created_at")
    def started(self, fanout: Fanout) -> str:
        return list_time(fanout.created_at)

    @admin.display(description="Finished", ordering="finished_at")
    def finished(self, fanout: Fanout) -> str:
        return list_time(fanout.finished_at)

    @admin.display(description="Payload")
    def payload_json(self, fanout: Fanout) -> str:
        return json_block(fanout.payload)
