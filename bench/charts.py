"""The admin charts' cost on the `scale` history (issue 36): one workflow's 24-hour chart panel
(triggers/admin/charts.py `workflow_charts_panel`, as the admin's workflow page draws it: the
two queries of triggers/charts.py, the four SVGs and the template), at the end of the history,
whose last 24 hours are full (43,200 runs and their 129,600 step logs at the loader's one run
per 2 s, once it holds that many), uncached (its cache entry deleted before each) and cached
(read from Django's cache, Redis in the bench, then drawn), timed `repeat` times each.

The `scale` part of `make bench` runs it right after loading the history (bench/__main__.py,
row "6. admin charts"); on a database loaded by bench.scale.history_load it also runs alone:

    DATABASE_URL=postgres://.../<that database> DJANGO_DEBUG=1 \\
        python -m bench.charts --workflow history
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from typing import Any

CHARTS_REPEAT = 3


@dataclass(frozen=True)
class ChartsRun:
    """Milliseconds per draw of the panel, uncached and cached, and the runs its window held."""

    window_runs: int
    uncached_ms: list[float]
    cached_ms: list[float]

    def __str__(self) -> str:
        from bench.report import spread

        return (
            f"charts: uncached {spread(self.uncached_ms, ' ms', 0)}, cached "
            f"{spread(self.cached_ms, ' ms', 1)}; {self.window_runs:,} runs in the 24 h window"
        )


def charts_run(workflow: Any, *, repeat: int = CHARTS_REPEAT) -> ChartsRun:
    """Time `workflow`'s chart panel at the end of its history (its last run's `completed_at`).
    Imported and called only after django.setup()."""
    from django.core.cache import cache
    from django.db.models import Max

    from triggers.admin.charts import workflow_charts_panel
    from triggers.charts import workflow_charts_cache_key, workflow_charts_cached
    from triggers.models import TriggerInstance

    runs = TriggerInstance.objects.filter(workflow=workflow)
    end = runs.aggregate(end=Max("completed_at"))["end"]
    if end is None:
        raise ValueError(f"workflow {workflow.key!r} has no completed run to chart")
    key = workflow_charts_cache_key(workflow=workflow, now=end)

    def drawn() -> float:
        started = time.perf_counter()
        html = workflow_charts_panel(workflow, now=end)
        spent = 1000 * (time.perf_counter() - started)
        assert html.count("<svg") == 4, html[:200]
        return spent

    uncached, cached = [], []
    for _ in range(repeat):
        cache.delete(key)
        uncached.append(drawn())
        cached.append(drawn())
    charts = workflow_charts_cached(workflow=workflow, now=end)
    cache.delete(key)
    return ChartsRun(sum(charts.completed) + sum(charts.failed), uncached, cached)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workflow", default="history")
    parser.add_argument("--repeat", type=int, default=CHARTS_REPEAT)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
    import django

    django.setup()
    from django.db import connection

    from workflows.models import Workflow

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM trigger_instance")
        (total,) = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM step_log")
        (steps,) = cursor.fetchone()
    run = charts_run(Workflow.objects.get(key=args.workflow), repeat=args.repeat)
    print(f"{total:,} runs, {steps:,} step logs; {run}")


if __name__ == "__main__":
    main()
