from django.apps import AppConfig


class TriggersConfig(AppConfig):
    name = "triggers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # While tracing is on, a webhook delivery of an event about a run is a span of the run's
        # trace (docs/design.md, "Traces"): the dispatcher reads the run's stored context here.
        from events.services.dispatcher import run_trace_context_set
        from triggers.selectors import run_trace_context

        run_trace_context_set(run_trace_context)
