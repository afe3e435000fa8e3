"""The engine's side of a node type's run (workflows.nodes.base.StepPort): what a node that
sends nothing may use of its step. Throttle and digest state stays here, in PostgreSQL
(workers.services.flow), next to its tables, and an in-app message's store is the inbox's SQL
(inbox/sql.py); the node types' logic is in their modules."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings

from common import tracing
from inbox.live import inbox_changed
from inbox.sql import inbox_message
from triggers.models import TriggerInstance
from waits.services import WaitState, wait_park, wait_register
from workers.services.fetch import fetch_perform
from workers.services.flow import DigestReach, ThrottleCount, digest_reach, throttle_take
from workflows.nodes.fetch import FetchAnswer, FetchRequest


@dataclass(frozen=True)
class EngineStep:
    """One claimed step, as a node type's `run` sees it (workflows.nodes.base.StepPort)."""

    trigger: TriggerInstance
    context: dict[str, Any]
    now: datetime
    # The step's clock (StepClock.now), for what happens after `now`; None: `now` stands still.
    clock: Callable[[], datetime] | None = None

    @property
    def payload(self) -> dict[str, Any]:
        return dict(self.trigger.payload)

    @property
    def trigger_id(self) -> str:
        return str(self.trigger.pk)

    @property
    def workflow_id(self) -> int:
        return int(self.trigger.workflow_id)

    @property
    def workflow_key(self) -> str:
        return str(self.context["workflow"]["key"])

    @property
    def recipient(self) -> str:
        return str(self.trigger.recipient)

    def inbox_store(
        self, *, message_id: str, node_id: str, message: dict[str, Any]
    ) -> dict[str, Any]:
        return inbox_message(
            message_id=message_id,
            recipient=self.recipient,
            workflow_key=self.workflow_key,
            message=message,
        )

    def inbox_notifier(self) -> Callable[[], None]:
        return partial(inbox_changed, self.recipient)

    def throttle_pass(
        self, *, node_id: str, key: str, limit: int, window: timedelta
    ) -> ThrottleCount:
        return throttle_take(
            workflow_id=self.trigger.workflow_id,
            node_id=node_id,
            key=key,
            trigger_id=self.trigger.pk,
            limit=limit,
            window=window,
        )

    def digest_join(self, *, node_id: str, key: str, window: timedelta) -> DigestReach:
        return digest_reach(
            workflow_id=self.trigger.workflow_id,
            node_id=node_id,
            key=key,
            trigger_id=self.trigger.pk,
            payload_json=json.dumps(self.trigger.payload),
            window=window,
        )

    def event_wait(
        self,
        *,
        node_id: str,
        name: str,
        match: dict[str, str],
        deadline: datetime,
        lookback: timedelta,
    ) -> WaitState:
        state = wait_register(
            trigger_id=self.trigger_id,
            node_id=node_id,
            workflow_id=self.workflow_id,
            name=name,
            match=match,
            deadline=deadline,
            lookback=lookback,
        )
        # The run goes on in its own trace; the post that resumed it is in the poster's.
        tracing.span_link(state.trace_context)
        return state

    def event_wait_park(self, *, node_id: str, name: str) -> tuple[str, dict[str, Any]]:
        return wait_park(trigger_id=self.trigger_id, node_id=node_id, name=name)

    @property
    def last_attempt(self) -> bool:
        return self.trigger.attempts >= settings.NOTIFLOW_MAX_RETRIES

    def fetch(self, request: FetchRequest) -> FetchAnswer:
        return fetch_perform(
            request,
            trigger_id=self.trigger_id,
            waited=self.trigger.vars.get(f"fetch_{request.node_id}"),
            clock=self.clock or (lambda: self.now),
        )
