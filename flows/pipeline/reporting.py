"""Failure reports for people: Markdown (Prefect artifact, side by side) and table rows."""

from __future__ import annotations

from pathlib import Path

from flows.review.html_cells import cell, fenced, inline, joints, proposed_line
from validators.findings import FailureSet, count_line, group_findings


def _cell(text: str | None, limit: int = 160) -> str:
    """The text on one line, cut at `limit` characters (HTML-escaped where it is shown: `cell`)."""
    if text is None:
        return "—"
    text = text.replace("\n", " ⏎ ")
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
        f"**{count_line(failures.findings, groups)}** "
        f"Variant: [`{variant}`]({variant.resolve().as_uri()}) · validators: {', '.join(failures.validators)}",
        "",
    ]
    if made_by:
        lines += [made_by, ""]
    if groups:  # HTML, not a pipe table: its cells wrap at any width (a Thai sentence has few spaces)
        rows = "".join(
            f"<tr><td>{cell(g.id)}</td><td>{g.severity.value}</td>"
            f"<td>{cell(joints(f'{g.layer.value} / {g.kind}'))}</td>"
            f"<td>{len(g.finding_ids)}</td><td>{cell(joints(f'{g.artifact} {_cell(g.pattern, 80)}'))}</td>"
            f"<td>{cell(_cell(g.example, 160))}</td></tr>"
            for g in groups
        )
        lines += [
            '<table width="100%"><thead><tr><th>group</th><th>severity</th><th>layer / kind</th><th>findings</th>'
            f"<th>where</th><th>example</th></tr></thead><tbody>{rows}</tbody></table>",
            "",
        ]
    lines += [f"> {inline(note)}" for note in failures.notes[:3]]
    for item in failures.suppressed:
        lines.append(f"- suppressed {item.layer.value} checks of {inline(item.artifact)}: {inline(item.reason)}")
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
        f"- **field:** {inline(finding.artifact)} — {inline(finding.location)}"
        + (f" (element `{finding.element_id}`)" if finding.element_id else ""),
        f"- **raised by:** {inline(', '.join(finding.validators))}",
        f"- **what:** {inline(finding.message)}",
        *([f"- {proposal}"] if (proposal := proposed_line(finding.fixes)) else []),
        "",
    ]
    rows = "".join(
        f'<tr><td valign="top">{cell(e.validator_id)}</td><td valign="top">{cell(_cell(e.reasoning))}</td>'
        f'<td valign="top">{cell(_cell(e.source))}</td><td valign="top">{cell(_cell(e.target))}</td></tr>'
        for e in finding.evidence
    )
    lines.append(
        '<table width="100%"><colgroup><col width="12%"><col width="28%"><col width="30%"><col width="30%">'
        "</colgroup><thead><tr><th>validator</th><th>reasoning</th><th>source</th><th>target</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    for name, value in finding.evidence[0].detail.items() if finding.evidence else []:
        # HTML, where Markdown's escapes are not read: `inline` would show 'db\\_renderings'
        lines.append(f"\n<details><summary>{cell(name)}</summary>\n\n{fenced(value)}\n</details>")
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
