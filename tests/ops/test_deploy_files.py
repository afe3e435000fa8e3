"""deploy/: the Grafana dashboard and the Prometheus alerting rules name only metrics the service
exports, with their real labels, and are well-formed for their tools (checked without promtool
or Grafana: JSON and YAML structure, PromQL's brackets, durations, template labels)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from common.metrics import ALL_METRICS
from notiflow.metrics import GAUGES

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "notiflow.json"
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"

ALERT_NAMES = {
    "NotiflowQueueWithoutWorker",
    "NotiflowStepsFailing",
    "NotiflowLatenessHigh",
    "NotiflowProviderFailingOver",
    "NotiflowWebhookEndpointDisabled",
    "NotiflowRunsStuckPastLease",
    "NotiflowWaitsOverdue",
    "NotiflowFanoutStuck",
    "NotiflowStepLogPartitionsRunningOut",
}
METRIC = re.compile(r"\bnotiflow_[a-z0-9_]+\b")
DURATION = re.compile(r"^(\d+(ms|s|m|h|d|w|y))+$")
# Grafana's own variables, and PromQL's label-less words, that are not label names.
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")


def exported() -> dict[str, tuple[str, ...]]:
    """Every series name the service exposes, with its label names (histograms add `le`)."""
    names: dict[str, tuple[str, ...]] = {}
    for metric in ALL_METRICS:
        labels = tuple(metric._labelnames)
        if metric._type == "counter":
            names[f"{metric._name}_total"] = labels
        elif metric._type == "gauge":
            names[metric._name] = labels
        else:
            names[f"{metric._name}_bucket"] = (*labels, "le")
            names[f"{metric._name}_sum"] = names[f"{metric._name}_count"] = labels
    for name, (_, gauge_labels) in GAUGES.items():
        names[name] = tuple(gauge_labels)
    return names


def balanced(expr: str) -> bool:
    stack: list[str] = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for char in re.sub(r'"[^"]*"', '""', expr):
        if char in "([{":
            stack.append(char)
        elif char in pairs and (not stack or stack.pop() != pairs[char]):
            return False
    return not stack


def check_expr(expr: str) -> list[str]:
    """What is wrong with a PromQL expression: unknown metrics, labels they do not have,
    unbalanced brackets, a bad range duration."""
    problems, names = [], exported()
    used = set(METRIC.findall(expr))
    if not used:
        problems.append(f"names no notiflow metric: {expr}")
    for name in used - set(names):
        problems.append(f"{name} is not exported")
    known = {label for name in used & set(names) for label in names[name]}
    for selector in re.findall(r"notiflow_[a-z0-9_]+\{([^}]*)\}", expr):
        for label in re.findall(r"([a-z_]+)\s*(?:=~|!~|!=|=)", selector):
            if label not in known:
                problems.append(f"label {label!r} is not one of {sorted(known)}: {expr}")
    for grouping in GROUPING.findall(expr):
        for label in filter(None, (part.strip() for part in grouping.split(","))):
            if label not in known:
                problems.append(f"grouping label {label!r} is not one of {sorted(known)}")
    for window in re.findall(r"\[([^\]]+)\]", expr):
        if window != "$__rate_interval" and not DURATION.match(window):
            problems.append(f"range [{window}] is not a duration")
    if not balanced(expr):
        problems.append(f"unbalanced brackets: {expr}")
    return problems


def test_the_dashboard_imports_and_names_only_exported_metrics():
    dashboard = json.loads(DASHBOARD.read_text())

    assert dashboard["title"] and dashboard["uid"] == "notiflow"
    assert [i["name"] for i in dashboard["__inputs"]] == ["DS_PROMETHEUS"]
    panels = dashboard["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    problems: list[str] = []
    shown: set[str] = set()
    for panel in panels:
        assert {"x", "y", "w", "h"} <= set(panel["gridPos"]) and panel["gridPos"]["w"] <= 24
        if panel["type"] == "row":
            continue
        assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}", panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["refId"] and target["datasource"] == panel["datasource"]
            problems += check_expr(target["expr"].replace('"$workflow"', '"x"'))
            shown |= set(METRIC.findall(target["expr"]))
    variable = dashboard["templating"]["list"][0]
    found = re.fullmatch(r"label_values\((\w+), (\w+)\)", variable["definition"])
    assert found, variable["definition"]
    metric, label = found.groups()
    assert label in exported()[metric]

    assert problems == []
    # Every family the service records is on the board, but for the three only alerts or
    # debugging need.
    families = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in exported()}
    seen = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in shown}
    assert families - seen == {
        "notiflow_rate_limit_wait_seconds",
        "notiflow_metrics_database_seconds",
        "notiflow_step_log_partitions_ahead_seconds",
    }


def test_the_alerting_rules_are_the_nine_and_name_only_exported_metrics():
    document = yaml.safe_load(ALERTS.read_text())

    (group,) = document["groups"]
    rules = group["rules"]
    assert {rule["alert"] for rule in rules} == ALERT_NAMES
    problems: list[str] = []
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert rule["labels"]["severity"] in {"critical", "warning"}
        assert DURATION.match(rule.get("for", "0s")), rule["alert"]
        problems += check_expr(rule["expr"])
        grouped = {
            label.strip()
            for grouping in GROUPING.findall(rule["expr"])
            for label in grouping.split(",")
        }
        labels = {
            label for name in METRIC.findall(rule["expr"]) for label in exported().get(name, ())
        }
        # Aggregated expressions keep only their grouping labels.
        available = grouped or labels
        for text in rule["annotations"].values():
            for label in re.findall(r"\$labels\.([a-z_]+)", text):
                if label not in available:
                    problems.append(f"{rule['alert']}: $labels.{label} not in {available}")
        assert rule["annotations"]["summary"]

    assert problems == []


def test_the_checks_catch_an_unknown_metric_label_and_bracket():
    assert check_expr("rate(notiflow_steps_total[5m])") == []
    assert check_expr("rate(notiflow_step_total[5m])")
    assert check_expr('notiflow_steps_total{trigger="x"}')
    assert check_expr("sum by (recipient) (notiflow_steps_total)")
    assert check_expr("rate(notiflow_steps_total[5m]")
    assert check_expr("rate(notiflow_steps_total[5 minutes])")
