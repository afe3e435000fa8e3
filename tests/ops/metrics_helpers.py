"""Reading a Prometheus exposition in tests: every sample by name and labels."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Sample = tuple[str, frozenset[tuple[str, str]]]


def samples(text: str) -> dict[Sample, float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(parsed: dict[Sample, float], name: str, **labels: str) -> float | None:
    """The sample `name` with exactly `labels`, or None when the scrape has none."""
    return parsed.get((name, frozenset(labels.items())))


def total(parsed: dict[Sample, float], name: str, **labels: str) -> float:
    """The sum of the samples `name` whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, have), v in parsed.items() if n == name and wanted <= have)
