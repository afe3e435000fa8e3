"""The registry in the admin: read-only, as the workers write it (registry.services)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from common.admin import ReadOnlyAdminMixin, json_block, list_time
from registry.models import Worker
from registry.selectors import worker_list


@admin.register(Worker)
class WorkerAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["name", "is_live", "queue_list", "concurrency", "version", "seen", "stopped"]
    search_fields = ["name", "host"]
    fields = readonly_fields = (
        "name",
        "host",
        "pid",
        "queues",
        "concurrency",
        "node_types",
        "providers_json",
        "version",
        "started_at",
        "last_seen_at",
        "stopped_at",
    )

    def get_queryset(self, request: HttpRequest):
        return worker_list()

    @admin.display(description="Live", boolean=True, ordering="-live")
    def is_live(self, worker: Worker) -> bool:
        return bool(getattr(worker, "live", False))

    @admin.display(description="Queues")
    def queue_list(self, worker: Worker) -> str:
        return ", ".join(worker.queues)

    @admin.display(description="Last seen", ordering="last_seen_at")
    def seen(self, worker: Worker) -> str:
        return list_time(worker.last_seen_at)

    @admin.display(description="Stopped", ordering="stopped_at")
    def stopped(self, worker: Worker) -> str:
        return list_time(worker.stopped_at)

    @admin.display(description="Providers")
    def providers_json(self, worker: Worker) -> str:
        return json_block(worker.providers)
