"""The admin charts' cost on the `scale` history (issue 36): `workflow_charts` uncached, at the
end of the history (its last 24 hours are full: 43,200 runs and their 129,600 step logs at the
loader's one run per 2 s), timed `--repeat` times in one process. Not a `make bench` part yet:

    DATABASE_URL=postgres://.../<a database loaded by bench.scale.history_load> DJANGO_DEBUG=1 \\
        python -m bench.charts --workflow history
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workflow", default="history")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notiflow.settings")
    import django

    django.setup()
    from django.db import connection
    from django.db.models import Max

    from triggers.charts import workflow_charts
    from triggers.models import TriggerInstance
    from workflows.models import Workflow

    workflow = Workflow.objects.get(key=args.workflow)
    runs = TriggerInstance.objects.filter(workflow=workflow)
    now = runs.aggregate(end=Max("completed_at"))["end"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM trigger_instance")
        (total,) = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM step_log")
        (steps,) = cursor.fetchone()
    seconds = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        charts = workflow_charts(workflow=workflow, now=now)
        seconds.append(time.perf_counter() - started)
    print(
        f"{total:,} runs, {steps:,} step logs; window: {sum(charts.completed):,} runs ended; "
        f"workflow_charts median {1000 * statistics.median(seconds):.0f} ms, "
        f"min {1000 * min(seconds):.0f} ms, max {1000 * max(seconds):.0f} ms "
        f"({args.repeat} runs, uncached)"
    )


if __name__ == "__main__":
    main()
