"""`GET /api/workflows/<key>/funnel/?since=&until=&tenant=`: a workflow's engagement funnel
(deliveries.funnel, docs/funnel.md), of all its runs or of one tenant's. Reading it needs what
reading the workflow's runs needs (`trigger`); a key limited to workflows reaches its own only
(another's is a 404, as its stats), for any tenant, as it lists its own runs by `?tenant=`."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404
from common.http import StrictQueryParameters
from common.scopes import FILTERED, TRIGGER, api_key_of
from deliveries.funnel import OUTCOMES, RATES, funnel_data, workflow_funnel
from tenants.api import tenant_requested
from tenants.models import TENANT_ID_MAX_LENGTH
from workflows.models import Workflow

DEFAULT_WINDOW = timedelta(hours=24)
MAX_WINDOW = timedelta(days=400)

_COUNT_HELP = {
    "sent": "messages sent (the step's decision; in-app: stored in the inbox)",
    "skipped": "sends a rule stopped (preference, suppression, missing address...): the run went on",
    "failed": "steps that failed the run at this node",
}


class FunnelCountsSerializer(serializers.Serializer):
    locals().update(
        {
            outcome: serializers.IntegerField(
                help_text=_COUNT_HELP.get(
                    outcome, f"messages sent whose provider reported them {outcome} (once each)"
                )
            )
            for outcome in OUTCOMES
        }
    )


class FunnelRatesSerializer(serializers.Serializer):
    locals().update(
        {
            rate.name: serializers.FloatField(
                allow_null=True, help_text=f"{rate.text}; null when that is 0"
            )
            for rate in RATES
        }
    )


class FunnelNodeSerializer(serializers.Serializer):
    node = serializers.CharField()
    channel = serializers.CharField()
    counts = FunnelCountsSerializer()
    rates = FunnelRatesSerializer()


class FunnelSerializer(serializers.Serializer):
    workflow = serializers.CharField()
    since = serializers.DateTimeField(help_text="the window counted: `since` down to its hour")
    until = serializers.DateTimeField(help_text="the window counted: `until` up to its hour")
    nodes = FunnelNodeSerializer(
        many=True,
        help_text="the current version's sending nodes in its order, then any other node that "
        "counted in the window",
    )


def _time(name: str, value: str | None, default: datetime) -> datetime:
    if value is None:
        return default
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ValidationError({name: ["must be an ISO-8601 time with an offset"]})
    return moment


def _parameter(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        name, {"type": "string", "format": "date-time"}, description=description
    )


class WorkflowFunnelApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED
    query_parameters = {
        "GET": [
            _parameter(
                "since",
                "messages sent from this time (ISO-8601 with an offset), taken down to its hour; "
                f"default: {DEFAULT_WINDOW.total_seconds() / 3600:.0f} hours before `until`",
            ),
            _parameter(
                "until",
                "messages sent before this time, taken up to its hour; default: now. At most "
                f"{MAX_WINDOW.days} days after `since`",
            ),
            OpenApiParameter(
                "tenant",
                {"type": "string", "minLength": 1, "maxLength": TENANT_ID_MAX_LENGTH},
                description="only the messages of runs for this tenant (docs/tenants.md); an "
                "unknown one is a 400 naming `tenant`. Left out: every run's",
            ),
        ]
    }

    @extend_schema(
        summary="Get a workflow's engagement funnel: per sending node, sent to clicked, and rates",
        responses=FunnelSerializer,
    )
    def get(self, request: Request, key: str) -> Response:
        until = _time("until", request.query_params.get("until"), timezone.now())
        since = _time("since", request.query_params.get("since"), until - DEFAULT_WINDOW)
        if since >= until:
            raise ValidationError({"since": ["must be before `until`"]})
        if until - since > MAX_WINDOW:
            raise ValidationError({"since": [f"at most {MAX_WINDOW.days} days before `until`"]})
        workflow = found_or_404(
            api_key_of(request).limit_queryset(Workflow.objects.all(), "key"), "workflow", key=key
        )
        tenant = tenant_requested(request) or None
        funnel = workflow_funnel(workflow=workflow, since=since, until=until, tenant=tenant)
        return Response(FunnelSerializer(funnel_data(funnel)).data)
