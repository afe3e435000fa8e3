"""The table `make bench` prints, and its copy in BENCHMARKS.md (between two markers)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

BEGIN = "<!-- bench:begin (written by `make bench`; edit outside the markers) -->"
END = "<!-- bench:end -->"


@dataclass(frozen=True)
class Row:
    figure: str
    result: str
    ratio: str = ""
    target: str = ""
    met: bool | None = None
    command: str = ""


def spread(values: list[float], unit: str = "", digits: int = 1) -> str:
    """`median` alone, or `median (min-max of n)` when a figure was measured more than once."""
    if not values:
        return "not run"
    median = statistics.median(values)
    text = f"{median:,.{digits}f}{unit}"
    if len(values) > 1:
        text += f" ({min(values):,.{digits}f}-{max(values):,.{digits}f}, n={len(values)})"
    return text


def ratio(numerator: list[float], denominator: list[float]) -> tuple[float | None, str]:
    """Median of the per-round ratios when both sides ran in the same rounds (the machine's load
    drifts between rounds, less within one), else the ratio of the medians."""
    if not numerator or not denominator or 0 in denominator:
        return None, ""
    if len(numerator) == len(denominator) > 1:
        each = [n / d for n, d in zip(numerator, denominator, strict=True)]
        value = statistics.median(each)
        return value, f"{value:.2f} ({min(each):.2f}-{max(each):.2f})"
    value = statistics.median(numerator) / statistics.median(denominator)
    return value, f"{value:.2f}"


def table(rows: list[Row]) -> str:
    lines = [
        "| figure | result | ratio | target | met | reproduce |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        met = {True: "yes", False: "**no**", None: ""}[row.met]
        command = f"`{row.command}`" if row.command else ""
        lines.append(
            f"| {row.figure} | {row.result} | {row.ratio} | {row.target} | {met} | {command} |"
        )
    return "\n".join(lines)


def write_benchmarks(path: Path, *, machine: dict[str, str], body: str, args: str) -> None:
    """Replace the generated section of BENCHMARKS.md, keeping every word outside it."""
    generated = "\n".join(
        [
            BEGIN,
            "",
            f'Latest run: `make bench ARGS="{args}"`' if args else "Latest run: `make bench`",
            "",
            "| machine | |",
            "|---|---|",
            *[f"| {key} | {value} |" for key, value in machine.items()],
            "",
            body,
            "",
            END,
        ]
    )
    text = path.read_text() if path.exists() else "# Benchmarks\n\n" + BEGIN + "\n" + END + "\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = head + generated + tail
    else:
        text = text.rstrip() + "\n\n" + generated + "\n"
    path.write_text(text)
