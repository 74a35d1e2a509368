"""Failure reports for people: Markdown (Prefect artifact, side by side) and table rows."""

from __future__ import annotations

from pathlib import Path

from validators.findings import FailureSet, group_findings


def _cell(text: str | None, limit: int = 160) -> str:
    if text is None:
        return "—"
    text = text.replace("|", "\\|").replace("\n", " ⏎ ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


SHOWN_PER_GROUP = 5


def units_made_by(units_by_origin: dict[str, int]) -> str:
    """'apertium:eng-spa@… 518, reviewed 2': who made the units, most first."""
    return ", ".join(f"{who} {count}" for who, count in sorted(units_by_origin.items(), key=lambda item: -item[1]))


def failure_report_markdown(failures: FailureSet, round_no: int, variant: Path, made_by: str = "") -> str:
    groups = group_findings(failures.findings)
    by_id = {f.id: f for f in failures.findings}
    lines = [
        f"# {failures.benchmark} → {failures.language}: round {round_no}",
        "",
        (
            f"**{len(failures.findings)} open findings in {len(groups)} groups.** "
            f"Variant: [`{variant}`]({variant.resolve().as_uri()}) · validators: {', '.join(failures.validators)}"
        ),
        "",
    ]
    if made_by:
        lines += [made_by, ""]
    if groups:
        lines += ["| group | severity | layer / kind | findings | where | example |", "|---|---|---|---|---|---|"]
        lines += [
            f"| `{g.id}` | {g.severity.value} | {g.layer.value} / {g.kind} | {len(g.finding_ids)} "
            f"| `{g.artifact}` {_cell(g.pattern, 80)} | {_cell(g.example, 100)} |"
            for g in groups
        ]
        lines.append("")
    lines += [f"> {note}" for note in failures.notes[:3]]
    for item in failures.suppressed:
        lines.append(f"- suppressed {item.layer.value} checks of `{item.artifact}`: {item.reason}")
    for group in groups:
        lines += [
            "",
            (
                f"## `{group.id}` · {group.severity.value} · {group.layer.value}/{group.kind} "
                f"· {len(group.finding_ids)} finding(s)"
            ),
        ]
        for finding in (by_id[f] for f in group.finding_ids[:SHOWN_PER_GROUP]):
            lines += _finding_section(finding)
        if len(group.finding_ids) > SHOWN_PER_GROUP:
            lines.append(
                f"\n… and {len(group.finding_ids) - SHOWN_PER_GROUP} more of this group "
                "(all are in the findings table artifact)"
            )
    if not failures.findings:
        lines.append("No findings: the variant is ready for the final spot check and sign-off.")
    return "\n".join(lines)


def _finding_section(finding) -> list[str]:
    lines = [
        "",
        f"### `{finding.id}` · {finding.layer.value} · {finding.kind} · {finding.severity.value}",
        "",
        f"- **field:** `{finding.artifact}` — {finding.location}"
        + (f" (element `{finding.element_id}`)" if finding.element_id else ""),
        f"- **raised by:** {', '.join(finding.validators)}",
        f"- **what:** {finding.message}",
        "",
        "| validator | reasoning | source | target |",
        "|---|---|---|---|",
    ]
    for evidence in finding.evidence:
        lines.append(
            f"| {evidence.validator_id} | {_cell(evidence.reasoning)} "
            f"| {_cell(evidence.source)} | {_cell(evidence.target)} |"
        )
    for name, value in finding.evidence[0].detail.items() if finding.evidence else []:
        lines.append(f"\n<details><summary>{name}</summary>\n\n```\n{value}\n```\n</details>")
    return lines


def failure_table_rows(failures: FailureSet) -> list[dict[str, str]]:
    return [
        {
            "id": f.id,
            "layer": f.layer.value,
            "kind": f.kind,
            "severity": f.severity.value,
            "artifact": f.artifact,
            "location": f.location,
            "validators": ", ".join(f.validators),
            "message": f.message,
        }
        for f in failures.findings
    ]
