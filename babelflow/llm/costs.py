"""Token accounting per stage (translate / validate / evaluate-*), language, provider and agent.

Every model response's usage is recorded; when a provider omits it (or reports zeros), the
tokens are estimated offline as characters / 4 and the row is marked ``estimated``. The report
prints as a rich table (the CLI does so after adapt/validate), saves as JSON, and publishes as a
Prefect table artifact with ``publish_costs`` (call it inside a flow or task run).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from pydantic import Field
from rich.table import Table

from babelflow.atomic_io import write_bytes_atomic
from babelflow.ir import Record

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


class CostRow(Record):
    stage: str = Field(description="terms | translate | validate | evaluate-*")
    language: str
    provider: str
    model: str
    agent: str = Field(
        default="", description="the validator agent that spent them (one row per agent, even on one model)"
    )
    requests: int = Field(
        default=0, description="responses received; failed attempts (429, 5xx, timeouts) are not billed"
    )
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_requests: int = Field(default=0, description="requests whose tokens were estimated (chars/4)")
    price_in: float = Field(default=0.0, description="USD per million input tokens (a spec's price_in; 0: not priced)")
    price_out: float = Field(default=0.0, description="USD per million output tokens (price_out)")

    @property
    def estimated(self) -> bool:
        return self.estimated_requests > 0

    @property
    def usd(self) -> float | None:
        """What these tokens cost at the user's prices; None when the provider was not priced."""
        if not (self.price_in or self.price_out):
            return None
        return (self.input_tokens * self.price_in + self.output_tokens * self.price_out) / 1_000_000


class CostReport(Record):
    rows: list[CostRow] = Field(default_factory=list)

    def total(
        self,
        *,
        stage: str | None = None,
        provider: str | None = None,
        language: str | None = None,
        agent: str | None = None,
    ) -> tuple[int, int]:
        """(input tokens, output tokens) over the matching rows."""
        rows = [
            r
            for r in self.rows
            if stage in (None, r.stage)
            and provider in (None, r.provider)
            and language in (None, r.language)
            and agent in (None, r.agent)
        ]
        return sum(r.input_tokens for r in rows), sum(r.output_tokens for r in rows)

    def usd(self) -> float | None:
        """The priced rows' cost (None when no row is priced)."""
        priced = [r.usd for r in self.rows if r.usd is not None]
        return sum(priced) if priced else None


class CostLedger:
    """Thread-safe accumulator shared by every translator and reviewer of one run."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, str, str, str, str], CostRow] = {}
        self._lock = threading.Lock()

    def record(
        self,
        *,
        stage: str,
        language: str,
        provider: str,
        model: str,
        input_tokens: int,
        output_tokens: int,
        estimated: bool,
        agent: str = "",
        prices: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        with self._lock:
            key = (stage, language, provider, model, agent)
            row = self._rows.setdefault(
                key,
                CostRow(
                    stage=stage,
                    language=language,
                    provider=provider,
                    model=model,
                    agent=agent,
                    price_in=prices[0],
                    price_out=prices[1],
                ),
            )
            row.requests += 1
            row.input_tokens += input_tokens
            row.output_tokens += output_tokens
            row.estimated_requests += int(estimated)

    def report(self) -> CostReport:
        with self._lock:
            return CostReport(rows=[row.model_copy() for _, row in sorted(self._rows.items())])


def cost_rows(report: CostReport) -> list[dict[str, str]]:
    """Table rows (strings) with a total line: the shape of both the terminal and the artifact table."""
    rows = [
        {
            "stage": r.stage,
            "language": r.language,
            "provider": r.provider,
            "model": r.model,
            "agent": r.agent,
            "requests": str(r.requests),
            "input tokens": f"{r.input_tokens:,}" + (" (est.)" if r.estimated else ""),
            "output tokens": f"{r.output_tokens:,}" + (" (est.)" if r.estimated else ""),
            "USD": _usd(r.usd),
        }
        for r in report.rows
    ]
    if report.rows:
        total_in, total_out = report.total()
        total_usd = report.usd()
        estimated = " (incl. est.)" if any(r.estimated for r in report.rows) else ""
        rows.append(
            {
                "stage": "total",
                "language": "",
                "provider": "",
                "model": "",
                "agent": "",
                "requests": str(sum(r.requests for r in report.rows)),
                "input tokens": f"{total_in:,}{estimated}",
                "output tokens": f"{total_out:,}{estimated}",
                "USD": _usd(total_usd)
                + (" (priced rows)" if total_usd is not None and any(r.usd is None for r in report.rows) else ""),
            }
        )
    return rows


def _usd(value: float | None) -> str:
    return "—" if value is None else f"{value:,.4f}" if value < 1 else f"{value:,.2f}"


def against_estimate(estimate: CostReport, actual: CostReport) -> list[dict[str, str]]:
    """Per stage and agent, and in total: the estimate's calls, tokens and USD beside the run's, and the
    tokens' error (the shape of the terminal table and of the flow's artifact)."""
    keys = sorted({(r.stage, r.agent) for r in estimate.rows + actual.rows})
    rows = []
    for stage, agent in [*keys, ("total", "")]:
        picked = [
            [r for r in report.rows if stage == "total" or (r.stage, r.agent) == (stage, agent)]
            for report in (estimate, actual)
        ]
        calls = [sum(r.requests for r in chosen) for chosen in picked]
        tokens = [sum(r.input_tokens + r.output_tokens for r in chosen) for chosen in picked]
        usd = [CostReport(rows=chosen).usd() for chosen in picked]
        rows.append(
            {
                "stage": stage,
                "agent": agent,
                "calls (estimate / run)": f"{calls[0]:,} / {calls[1]:,}",
                "tokens (estimate / run)": f"{tokens[0]:,} / {tokens[1]:,}",
                "USD (estimate / run)": f"{_usd(usd[0])} / {_usd(usd[1])}",
                "tokens error": f"{tokens[0] / tokens[1] - 1:+.1%}" if tokens[1] else "—",
            }
        )
    return rows


def rows_table(rows: list[dict[str, str]], title: str) -> Table:
    table = Table(title=title)
    for column in rows[0] if rows else ():
        table.add_column(column)
    for row in rows:
        table.add_row(*row.values(), style="bold" if row.get("stage") == "total" else None)
    return table


def cost_table(report: CostReport, title: str = "model usage"):
    table = Table(title=title)
    numbers = ("requests", "input tokens", "output tokens", "USD")
    for column in ("stage", "language", "provider", "model", "agent", *numbers):
        table.add_column(column, justify="right" if column in numbers else "left")
    for row in cost_rows(report):
        table.add_row(*row.values(), style="bold" if row["stage"] == "total" else None)
    return table


def save_costs(report: CostReport, path: Path) -> Path:
    write_bytes_atomic(Path(path), report.model_dump_json(indent=2).encode() + b"\n")
    return Path(path)


def publish_costs(
    report: CostReport, key: str = "model-costs", description: str = "token usage per stage, language and provider"
):
    """Publish the report as a Prefect table artifact (inside a flow/task run); returns its id."""
    from prefect.artifacts import create_table_artifact  # noqa: PLC0415 - Prefect (~6 s), in a run

    safe_key = re.sub(r"[^a-z0-9-]+", "-", key.lower()).strip("-") or "model-costs"
    return create_table_artifact(
        key=safe_key, table=cost_rows(report) or [{"stage": "none", "requests": "0"}], description=description
    )


def report_costs(report: CostReport, console, path: Path | None, title: str) -> None:
    """Print the usage table (when a model was used) and save it as JSON next to the run's state."""
    if not report.rows:
        return
    console.print(cost_table(report, title))
    if report.usd() is None:
        console.print("[dim]not priced: add ?price_in=USD&price_out=USD (per million tokens) to a model spec[/]")
    if path is not None:
        save_costs(report, path)
        console.print(f"[dim]token usage saved to {path}[/]")
