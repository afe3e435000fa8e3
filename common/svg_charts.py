"""Small server-rendered SVG charts for the admin (no JavaScript, no build): stacked bars and
lines over a row of labelled intervals. Every text is escaped here; the result is safe to mark
so. Each chart carries its numbers as <title> tooltips and a `data-values` attribute per series
(what a reader, or a test, can check without reading pixels)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape

WIDTH, HEIGHT = 560, 180
LEFT, RIGHT, TOP, BOTTOM = 48, 8, 28, 34
PALETTE = ("#2e7d32", "#c62828", "#1565c0", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037")


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]  # None: no value for that interval (a gap in a line)
    color: str = ""


def _number(value: float) -> str:
    if value >= 100 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:.2g}" if value < 1 else f"{value:.1f}"


def _nice_top(value: float) -> float:
    """The axis' top: 1, 2 or 5 times a power of ten, at least `value`."""
    if value <= 0:
        return 1.0
    scale = 10 ** len(str(int(value))) / 10 if value >= 1 else 1.0
    while scale > value:
        scale /= 10
    for step in (1, 2, 5, 10):
        if step * scale >= value:
            return step * scale
    return 10 * scale


def _frame(title: str, labels: Sequence[str], top: float, unit: str, legend: str) -> list[str]:
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg class="nf-chart" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg" aria-label="{escape(title)}">',
        f'<text class="nf-chart-title" x="{LEFT}" y="16" font-size="13" font-weight="bold">'
        f"{escape(title)}</text>",
        legend,
    ]
    for fraction in (0, 0.5, 1):
        y = TOP + plot_h * (1 - fraction)
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ccc"/>'
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">'
            f"{escape(_number(top * fraction))}{escape(unit)}</text>"
        )
    slot = plot_w / max(len(labels), 1)
    every = max(1, len(labels) // 6)
    for i, label in enumerate(labels):
        if i % every == 0:
            x = LEFT + slot * (i + 0.5)
            parts.append(
                f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 14}" font-size="10" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    return parts


def _legend(series: Sequence[Series]) -> str:
    items, x = [], WIDTH - RIGHT
    for one in reversed(series):
        x -= 12 + 7 * len(one.name)
        items.append(
            f'<rect x="{x}" y="7" width="9" height="9" fill="{one.color}"/>'
            f'<text x="{x + 12}" y="15" font-size="11">{escape(one.name)}</text>'
        )
        x -= 8
    return "".join(items)


def _colored(series: Sequence[Series]) -> list[Series]:
    return [
        Series(s.name, s.values, s.color or PALETTE[i % len(PALETTE)]) for i, s in enumerate(series)
    ]


def _values_attr(values: Sequence[float | None]) -> str:
    return " ".join("-" if v is None else _number(v).replace(",", "") for v in values)


def bars_svg(title: str, labels: Sequence[str], series: Sequence[Series], unit: str = "") -> str:
    """Stacked bars, one per label, one colour per series."""
    series = _colored(series)
    totals = [sum(s.values[i] or 0 for s in series) for i in range(len(labels))]
    top = _nice_top(max(totals, default=0))
    parts = _frame(title, labels, top, unit, _legend(series))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(len(labels), 1)
    base = [0.0] * len(labels)
    for one in series:
        parts.append(
            f'<g class="nf-series" data-name="{escape(one.name)}" '
            f'data-values="{_values_attr(one.values)}" fill="{one.color}">'
        )
        for i, value in enumerate(one.values):
            if not value:
                continue
            height = plot_h * value / top
            y = TOP + plot_h - plot_h * base[i] / top - height
            parts.append(
                f'<rect x="{LEFT + slot * i + 1:.1f}" y="{y:.1f}" width="{slot - 2:.1f}" '
                f'height="{height:.1f}"><title>{escape(labels[i])}: {escape(_number(value))} '
                f"{escape(one.name)}</title></rect>"
            )
            base[i] += value
        parts.append("</g>")
    if not any(totals):
        parts.append(_nothing())
    return "".join([*parts, "</svg>"])


def lines_svg(title: str, labels: Sequence[str], series: Sequence[Series], unit: str = "") -> str:
    """Lines with a dot per value; an interval without a value breaks the line."""
    series = _colored(series)
    known = [v for s in series for v in s.values if v is not None]
    top = _nice_top(max(known, default=0))
    parts = _frame(title, labels, top, unit, _legend(series))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(len(labels), 1)
    for one in series:
        parts.append(
            f'<g class="nf-series" data-name="{escape(one.name)}" '
            f'data-values="{_values_attr(one.values)}" fill="{one.color}">'
        )
        points: list[str] = []
        runs: list[list[str]] = [points]
        for i, value in enumerate(one.values):
            if value is None:
                points = []
                runs.append(points)
                continue
            x, y = LEFT + slot * (i + 0.5), TOP + plot_h * (1 - value / top)
            points.append(f"{x:.1f},{y:.1f}")
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5"><title>{escape(labels[i])}: '
                f"{escape(one.name)} {escape(_number(value))}{escape(unit)}</title></circle>"
            )
        for run in runs:
            if len(run) > 1:
                parts.append(
                    f'<polyline fill="none" stroke="{one.color}" stroke-width="1.5" '
                    f'points="{" ".join(run)}"/>'
                )
        parts.append("</g>")
    if not known:
        parts.append(_nothing())
    return "".join([*parts, "</svg>"])


def _nothing() -> str:
    return (
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT / 2:.0f}" font-size="12" '
        'text-anchor="middle" fill="#777">nothing to show</text>'
    )
