"""`GET /api/triggers/<id>/explain/`: a run's story (triggers.explain; docs/design/deliveries.md,
"Explaining a run"). It needs what reading the run needs: `trigger`, and a key limited to
workflows reaches only their runs (another's is the 404 of a run that does not exist)."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404
from common.http import StrictQueryParameters
from common.scopes import FILTERED, TRIGGER, api_key_of
from triggers.explain import run_story
from triggers.models import TriggerInstance, TriggerStatus
from workflows.decisions import DECISIONS


class EarlierSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=DECISIONS)
    reason = serializers.CharField()
    at = serializers.DateTimeField()


class StoryEntrySerializer(serializers.Serializer):
    node = serializers.CharField(help_text="the node's id")
    type = serializers.CharField(help_text="the node's type")
    decision = serializers.ChoiceField(choices=DECISIONS, help_text="what was decided there")
    reason = serializers.CharField(help_text="the decision in one sentence, for a person")
    rule = serializers.CharField(
        allow_blank=True,
        help_text="the rule that decided (`preference`, `opt-out`, `window`, `send_cap`...); "
        "empty when none stopped or held it",
    )
    evidence = serializers.DictField(help_text="the facts the rule decided on, as recorded")
    at = serializers.DateTimeField(help_text="when it was decided (or, pending, is due)")
    earlier = EarlierSerializer(
        many=True, help_text="the node's earlier records, oldest first (failed attempts...)"
    )


class RunStorySerializer(serializers.Serializer):
    trigger = serializers.UUIDField()
    status = serializers.ChoiceField(choices=TriggerStatus.choices)
    story = StoryEntrySerializer(many=True, help_text="one entry per node reached, oldest first")


class TriggerExplainApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(
        summary="Explain a run: what was decided at each node it reached, and why",
        responses=RunStorySerializer,
    )
    def get(self, request: Request, trigger_id: uuid.UUID) -> Response:
        triggers = api_key_of(request).limit_queryset(
            TriggerInstance.objects.select_related("workflow_version")
        )
        trigger = found_or_404(triggers, "trigger", pk=trigger_id)
        story = {"trigger": trigger.pk, "status": trigger.status, "story": run_story(trigger)}
        return Response(RunStorySerializer(story).data)
