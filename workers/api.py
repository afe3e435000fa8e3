"""REST endpoints for step logs and health."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from celery import current_app
from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404
from common.http import StrictQueryParameters
from common.scopes import ADMIN, FILTERED, TRIGGER, AnonymousOrHasScope, api_key_of
from registry.selectors import live_workers_by_queue, queue_unserved_list, worker_list
from triggers.models import TriggerInstance
from triggers.selectors import trigger_oldest_waiting
from workers.models import StepExecutionLog
from workers.selectors import step_log_list
from workers.services.history import partitions_ahead, partitions_horizon

logger = logging.getLogger(__name__)


class StepLogSerializer(serializers.ModelSerializer):
    trigger = serializers.UUIDField(source="trigger_id")
    workflow = serializers.CharField(source="workflow.key", help_text="the workflow's key")

    class Meta:
        model = StepExecutionLog
        fields = [
            "id",
            "trigger",
            "workflow",
            "node_id",
            "node_type",
            "attempt",
            "started_at",
            "finished_at",
            "input",
            "output",
            "success",
            "error",
        ]


class TriggerLogsApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(summary="List a trigger's step logs", responses=StepLogSerializer(many=True))
    def get(self, request: Request, trigger_id: uuid.UUID) -> Response:
        triggers = api_key_of(request).limit_queryset(
            TriggerInstance.objects.only("id", "created_at")
        )
        trigger = found_or_404(triggers, "trigger", pk=trigger_id)
        logs = step_log_list(trigger_id=str(trigger_id), run_created_at=trigger.created_at)
        return Response(StepLogSerializer(logs, many=True).data)


class StepLogListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED
    serializer_class = StepLogSerializer
    query_parameters = {
        "GET": [
            OpenApiParameter("trigger", uuid.UUID, description="trigger id"),
            OpenApiParameter("node_id", {"type": "string", "minLength": 1}),
        ]
    }

    def get_queryset(self):
        # Given empty is a mistake (a blank form field), not "no filter": a 400, not every log.
        params = self.request.query_params
        for name in ("trigger", "node_id"):
            if params.get(name) == "":
                raise ValidationError({name: ["must not be empty"]})
        trigger_id = params.get("trigger")
        if trigger_id:
            try:
                uuid.UUID(trigger_id)
            except ValueError:
                raise ValidationError({"trigger": ["must be a trigger id (UUID)"]}) from None
        logs = step_log_list(
            trigger_id=trigger_id, node_id=self.request.query_params.get("node_id")
        )
        return api_key_of(self.request).limit_queryset(logs)

    @extend_schema(summary="List step logs")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


# --- health ---------------------------------------------------------------------------------------
# Two faces (docs/security/deployment.md, "The health endpoint"). Without a key, for load balancers and
# anyone: {"status"} alone, computed at most once per NOTIFLOW_HEALTH_CACHE_SECONDS per process
# from the database, a broker connection and the backlog, never a broadcast ping (a 0.5 s wait
# that every worker must answer; unauthenticated clients used to trigger one each). With an API
# key, for operators: each check, fresh, with the live workers of the registry (registry/: each
# worker's heartbeat, no broadcast) per queue; a failure is a short category, its full text only
# in the log (it named hosts, ports and database roles).
#
# ok: the database and the broker answer, and no work has waited past
#     NOTIFLOW_HEALTH_MAX_LAG_SECONDS [60] (a due trigger unclaimed, or an expired lease not yet
#     taken over): whatever workers there are keep up. The details also want a live worker, and
#     one for the queue of every active workflow.
# degraded: both answer but work waits (no worker, too few, or stuck); in the details also no
#     live worker at all, or an active workflow's queue that no live worker serves.
# down (503): the database or the broker does not answer.
# The details' `partitions` check: the step log's partitions reach less than half of
#     NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS ahead (beat, which extends them hourly, has not run
#     for days): degraded, days before a run created past the last one could not log its steps.


class HealthCheckSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    error = serializers.ChoiceField(
        choices=["timeout", "connection refused", "authentication failed", "unavailable"],
        required=False,
        help_text="why not ok; the full error is in the web process's log",
    )


class WorkersHealthSerializer(HealthCheckSerializer):
    count = serializers.IntegerField(required=False, help_text="live workers in the registry")
    names = serializers.ListField(child=serializers.CharField(), required=False)
    queues = serializers.DictField(
        child=serializers.IntegerField(),
        required=False,
        help_text="live workers per queue (a queue nobody serves is absent)",
    )
    unserved_queues = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="queues of active workflows that no live worker serves (their triggers are "
        "refused with 503 while NOTIFLOW_TRIGGER_REQUIRES_WORKER is on)",
    )


class BacklogHealthSerializer(HealthCheckSerializer):
    # Absent when the database did not answer.
    oldest_waiting_seconds = serializers.FloatField(
        allow_null=True,
        required=False,
        help_text="how long the longest-waiting due work has waited; null when none waits",
    )
    limit_seconds = serializers.FloatField(
        required=False, help_text="NOTIFLOW_HEALTH_MAX_LAG_SECONDS"
    )


class PartitionsHealthSerializer(HealthCheckSerializer):
    # Absent when the database did not answer.
    until = serializers.DateTimeField(
        allow_null=True,
        required=False,
        help_text="where the step log's last partition ends: a run created after it could not "
        "log its steps (null: no partition)",
    )
    ahead_days = serializers.FloatField(required=False, help_text="days from now to `until`")
    min_ahead_days = serializers.FloatField(
        required=False, help_text="half of NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS: ok above it"
    )


class HealthSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ok", "degraded", "down"])
    database = HealthCheckSerializer(required=False, help_text="with an API key only")
    broker = HealthCheckSerializer(required=False, help_text="with an API key only")
    workers = WorkersHealthSerializer(required=False, help_text="with an API key only")
    backlog = BacklogHealthSerializer(required=False, help_text="with an API key only")
    partitions = PartitionsHealthSerializer(required=False, help_text="with an API key only")


class HealthApi(StrictQueryParameters, APIView):
    """Public liveness (`status` only, cached); the details of each check with an API key."""

    # Anyone without a key; the details need an admin key. Never throttled (load balancers).
    api_scopes = {"GET": ADMIN}
    permission_classes = [AnonymousOrHasScope]
    throttle_classes: list[type] = []

    @extend_schema(
        summary="Check the service's health",
        responses={
            200: HealthSerializer,
            503: OpenApiResponse(HealthSerializer, description="down: the database or broker"),
            401: OpenApiResponse(
                {"$ref": "#/components/schemas/Error"},
                description="a wrong or revoked API key (no key at all is fine)",
            ),
            400: OpenApiResponse(
                {"$ref": "#/components/schemas/Error"},
                description="a query parameter: it takes none (`errors` names it), or one "
                "containing NUL (%00)",
            ),
        },
        description="Without a key: `status` only (cached a few seconds). With an API key: "
        "every check, fresh, including the registry's live workers per queue.",
    )
    def get(self, request: Request) -> Response:
        public = request.auth is None
        body = {"status": PUBLIC_HEALTH.status()} if public else health_details()
        return Response(body, status=503 if body["status"] == "down" else 200)


class PublicHealth:
    """The public status, computed at most once per NOTIFLOW_HEALTH_CACHE_SECONDS in a process.
    A request that finds it stale computes it while the others of this process wait for that
    answer, so a burst of callers costs one check."""

    def __init__(self) -> None:
        self.clock: Callable[[], float] = time.monotonic
        self._lock = threading.Lock()
        self._value = ""
        self._expires = 0.0

    def status(self) -> str:
        with self._lock:
            now = self.clock()
            if not self._value or now >= self._expires:
                database, backlog = _check_database()
                self._value = _status(database, _check_broker(), backlog)
                self._expires = now + settings.NOTIFLOW_HEALTH_CACHE_SECONDS
            return self._value

    def clear(self) -> None:
        with self._lock:
            self._value = ""


PUBLIC_HEALTH = PublicHealth()


def health_details() -> dict[str, Any]:
    """Every check, now, for an operator; the workers are the registry's live ones."""
    (database, backlog), broker = _check_database(), _check_broker()
    workers = _check_workers() if database["ok"] else {"ok": False}
    partitions = _check_partitions() if database["ok"] else {"ok": False}
    return {
        "status": _status(database, broker, backlog, workers, partitions),
        "database": database,
        "broker": broker,
        "workers": workers,
        "backlog": backlog,
        "partitions": partitions,
    }


Check = dict[str, Any]


def _status(database: Check, broker: Check, backlog: Check, *details: Check) -> str:
    if not (database["ok"] and broker["ok"]):
        return "down"
    if not backlog["ok"] or not all(check["ok"] for check in details):
        return "degraded"
    return "ok"


def _check_database() -> tuple[Check, Check]:
    """The database and the backlog: the backlog's query is the database check, one round trip
    for both."""
    limit = settings.NOTIFLOW_HEALTH_MAX_LAG_SECONDS
    now = timezone.now()
    try:
        oldest = trigger_oldest_waiting(now=now)
    except Exception as exc:
        return _failed("database", exc), {"ok": False}
    waited = (now - oldest).total_seconds() if oldest else None
    backlog = {
        "ok": waited is None or waited <= limit,
        "oldest_waiting_seconds": waited,
        "limit_seconds": limit,
    }
    return {"ok": True}, backlog


def _check_broker() -> Check:
    try:
        with current_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return _failed("broker", exc)
    return {"ok": True}


def _check_workers() -> Check:
    """The registry's live workers, by name and per queue, and the active workflows' queues that
    none serves; ok when there is a live worker and no such queue."""
    try:
        names = list(worker_list(live=True).values_list("name", flat=True))
        queues = live_workers_by_queue()
        unserved = queue_unserved_list(served=queues)
    except Exception as exc:
        return _failed("workers", exc)
    return {
        "ok": bool(names) and not unserved,
        "count": len(names),
        "names": sorted(names),
        "queues": queues,
        "unserved_queues": unserved,
    }


def _check_partitions() -> Check:
    """How far ahead the history's partitions reach (workers/services/history.py); ok while at
    least half of NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS is left."""
    try:
        until = partitions_horizon()
    except Exception as exc:
        return _failed("partitions", exc)
    ahead = partitions_ahead(until).total_seconds() / 86400
    least = settings.NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS / 2
    return {
        "ok": ahead >= least,
        "until": until,
        "ahead_days": round(ahead, 2),
        "min_ahead_days": least,
    }


def _failed(check: str, exc: BaseException) -> Check:
    logger.warning("health: the %s check failed: %s: %s", check, type(exc).__name__, exc)
    return {"ok": False, "error": failure_category(exc)}


def failure_category(exc: BaseException) -> str:
    """A few words for an API answer, from an error whose text names hosts, ports and roles."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    text = " ".join(f"{type(e).__name__} {e}" for e in chain).lower()
    if any(isinstance(e, TimeoutError) for e in chain) or "timeout" in text or "timed out" in text:
        return "timeout"
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "refused" in text:
        return "connection refused"
    if any(word in text for word in ("authentication", "password", "noauth", "wrongpass")):
        return "authentication failed"
    return "unavailable"
