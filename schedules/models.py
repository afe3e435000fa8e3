"""Recurring schedules (docs/guide/schedules.md): what the client asked for (the PUT's fields)
and, beside it, how far the workers got (the firing state, leased work of common/leased_work.py).

Times. `starts_at` and `ends_at` are *local* wall-clock times (`2026-12-07T09:00:00`), as RFC
5545 writes a DTSTART with a TZID: in `timezone`, or in each recipient's own zone when it is
`"recipient"`. The rule is evaluated in local time (schedules/rules.py); each local occurrence
becomes an instant per zone when it fires.

Firing state. `next_local` is the local occurrence under way ('' once the rule has no more);
`zones` lists, for it, the zones of the audience still to fire with their instants (null until
they are read, close to the time); `cursor` is how far into the first of them the chunks got
(a subscription id, or a place in `recipients`), `zone_runs` the runs it made so far;
`fires_from` is the instant before which nothing fires (the schedule's creation, its last change
or its resumption: a change takes effect from the next occurrence).
"""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Now

ID_MAX_LENGTH = 100
RECIPIENT_ZONE = "recipient"
LOCAL_LENGTH = 19  # YYYY-MM-DDTHH:MM:SS


class Schedule(models.Model):
    """A workflow run for each recipient at each occurrence of `repeat`."""

    id = models.CharField(primary_key=True, max_length=ID_MAX_LENGTH)
    workflow_key = models.CharField(max_length=200)
    # Exactly one of the two names the audience: a list of recipient ids, or a topic.
    recipients = models.JSONField(null=True, blank=True)
    topic_key = models.CharField(max_length=200, blank=True, default="")
    repeat = models.TextField()
    timezone = models.CharField(max_length=64, default=RECIPIENT_ZONE)
    payload = models.JSONField(default=dict, blank=True)
    starts_at = models.CharField(max_length=LOCAL_LENGTH)
    ends_at = models.CharField(max_length=LOCAL_LENGTH, blank=True, default="")
    # The tenant its runs carry (docs/tenants.md): one that exists when the schedule is stored.
    tenant = models.CharField(max_length=200, blank=True, default="")
    active = models.BooleanField(default=True)
    catch_up_seconds = models.FloatField(default=3600)
    created_by = models.CharField(max_length=255, blank=True, default="")
    # The API key whose `trigger` rate each occurrence of a topic is charged to, as a fan-out's
    # request is (schedules/admission.py): the one that stored it last; none when stored
    # otherwise, or when that key was deleted since.
    api_key = models.ForeignKey(
        "triggers.ApiKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(db_default=Now(), editable=False)
    updated_at = models.DateTimeField(db_default=Now())
    # The firing state (the module's docstring).
    fires_from = models.DateTimeField(db_default=Now())
    next_local = models.CharField(max_length=LOCAL_LENGTH, blank=True, default="")
    zones = models.JSONField(null=True, blank=True)
    cursor = models.BigIntegerField(default=0)
    zone_runs = models.PositiveIntegerField(default=0)
    # The runs the occurrence under way was charged to `api_key`'s rate, recorded with its first
    # zone (ScheduleOccurrence.charged).
    charged = models.PositiveIntegerField(default=0)
    runs_created = models.BigIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    # Leased work (common/leased_work.py; schedules/work.py SCHEDULES): due at `available_at`,
    # leased by `leased_by` until `lease_until`, its task last published at `nudged_at`.
    available_at = models.DateTimeField(db_default=Now())
    lease_until = models.DateTimeField(null=True, blank=True)
    leased_by = models.CharField(max_length=255, blank=True, default="")
    nudged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "schedule"
        ordering = ["id"]
        indexes = [
            # The schedules' sweeps (schedules/statements/schedules_sweep_*.sql).
            models.Index(
                fields=["available_at"],
                name="schedule_due_idx",
                condition=models.Q(active=True) & ~models.Q(next_local=""),
            ),
            models.Index(fields=["workflow_key", "id"], name="schedule_workflow_idx"),
        ]

    def __str__(self) -> str:
        return self.id


class OccurrenceStatus(models.TextChoices):
    FIRED = "fired"
    # Missed by more than the schedule's catch_up (the service was down): no run.
    SKIPPED = "skipped"
    # A topic's audience over NOTIFLOW_FANOUT_MAX_AUDIENCE, or the key's `trigger` rate did not
    # let it pass within catch_up (schedules/admission.py): no run.
    REFUSED = "refused"


class ScheduleOccurrence(models.Model):
    """What became of one occurrence in one zone: fired (with its runs) or skipped, and why."""

    schedule = models.ForeignKey(Schedule, on_delete=models.CASCADE, related_name="occurrences")
    local = models.CharField(max_length=LOCAL_LENGTH)
    zone = models.CharField(max_length=64)
    occurs_at = models.DateTimeField()
    status = models.CharField(max_length=16, choices=OccurrenceStatus.choices)
    runs = models.PositiveIntegerField(default=0)
    # The runs charged to the schedule's key's `trigger` rate for this occurrence (a topic's
    # audience, on the record of its first zone; 0 otherwise).
    charged = models.PositiveIntegerField(default=0)
    reason = models.TextField(blank=True, default="")
    recorded_at = models.DateTimeField(db_default=Now(), editable=False)

    class Meta:
        db_table = "schedule_occurrence"
        ordering = ["-occurs_at", "zone"]
        indexes = [models.Index(fields=["schedule", "-occurs_at"], name="schedule_occ_idx")]

    def __str__(self) -> str:
        return f"{self.schedule_id} {self.occurs_at:%Y-%m-%dT%H:%M:%SZ} {self.zone}: {self.status}"
