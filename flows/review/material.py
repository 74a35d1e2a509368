"""What a reviewer reads before deciding: each group of findings with its units' source and target in
full, their context (file, field, task, tool), who made the text, the unit's checks, and the commands
that read or correct the unit. Published as a Markdown artifact the review form links to.

Prefect's Markdown tables never wrap (their cells are `white-space: nowrap`: a long target runs
off-screen), so source and target sit side by side in an HTML table (Prefect renders sanitized HTML in
Markdown: no style attribute, but `width` attributes pass): two half-width columns that wrap.
"""

from __future__ import annotations

import html

from babelflow.errors import BabelflowError
from flows.review.html_cells import cell, inline, proposed_line
from flows.review.signoff import SampledUnit, SignOffSample
from flows.review.unit_lines import checks_line, context_line, provenance
from flows.review.unit_records import UnitRecord
from flows.review.workbench import Workbench
from validators.findings import FailureSet, Finding, FindingGroup, group_findings

SHOWN_PER_GROUP = 8


def side_by_side(rows: list[tuple[str | None, str | None]], language: str, head: str = "") -> list[str]:
    """Source and target in two half-width columns that wrap at any width; one Markdown HTML block
    (no blank line inside, which would end it)."""
    cells = "".join(
        f'<tr><td valign="top">{cell(source)}</td><td valign="top">{cell(target)}</td></tr>' for source, target in rows
    )
    return [
        f'<table width="100%"><colgroup><col width="50%"><col width="50%"></colgroup>'
        f"<thead><tr><th>{head}source (en)</th><th>target ({html.escape(language)})</th></tr></thead>"
        f"<tbody>{cells}</tbody></table>",
        "",
    ]


def _unit(bench: Workbench | None, finding: Finding) -> UnitRecord | None:
    if bench is None or finding.element_id is None:
        return None
    try:
        return bench.unit_of_element(finding.element_id)
    except BabelflowError:  # a Preserve field: the finding's evidence is all there is
        return None


def _finding_block(
    finding: Finding, unit: UnitRecord | None, bench: Workbench | None, benchmark: str, language: str
) -> list[str]:
    where = f"{inline(finding.artifact)} · {inline(finding.location)}"
    if finding.task_id:
        where += f" · task `{finding.task_id}`"
    lines = ["", f"#### `{finding.id}` · {finding.kind} · {finding.severity.value}", "", f"{where}", ""]
    lines += [f"**What:** {inline(finding.message)}", ""]
    if proposal := proposed_line(finding.fixes):
        lines += [proposal, ""]
    evidence = finding.evidence[0] if finding.evidence else None
    source = unit.source if unit else evidence.source if evidence else None
    target = unit.target if unit else evidence.target if evidence else None
    lines += side_by_side([(source, target)], language)
    if unit is not None:
        lines += [
            f"- **context:** {inline(context_line(unit))}",
            f"- **made by:** {inline(provenance(unit))} ({unit.origin_class})",
            f"- **checks:** {inline(checks_line(bench.checks(unit))) if bench else '—'}",
            f"- **read it:** `babelflow units {benchmark} --lang {language} --id {unit.key[:12]}`",
            f'- **correct it:** `babelflow correct {benchmark} --lang {language} --finding {finding.id} --text "…"` '
            "or give the text in the form's replacement field",
        ]
    elif evidence is not None and evidence.reasoning:
        lines.append(f"- **why:** {inline(evidence.reasoning)}")
    return lines


def review_material_markdown(failures: FailureSet, round_no: int, bench: Workbench | None, form_hint: str = "") -> str:
    """The reading for one review round: groups most severe first, numbered as the form numbers them."""
    groups = group_findings(failures.findings)
    by_id = {f.id: f for f in failures.findings}
    benchmark, language = failures.benchmark, failures.language
    lines = [
        f"# Review {benchmark} → {language}, round {round_no}",
        "",
        f"**{len(failures.findings)} findings in {len(groups)} groups**, most severe first. "
        "Each group is numbered as in the review form. " + form_hint,
    ]
    for number, group in enumerate(groups, start=1):
        lines += _group_block(number, group, by_id, bench, benchmark, language)
    if not groups:
        lines += ["", "No findings this round."]
    return "\n".join(lines)


def _group_block(
    number: int,
    group: FindingGroup,
    by_id: dict[str, Finding],
    bench: Workbench | None,
    benchmark: str,
    language: str,
) -> list[str]:
    lines = [
        "",
        "---",
        "",
        f"## {number}. {group.layer.value}/{group.kind} · {group.severity.value} · {len(group.finding_ids)} finding(s)",
        "",
        f"`{group.id}` · {inline(group.artifact)} · {inline(group.pattern)}",
    ]
    for finding_id in group.finding_ids[:SHOWN_PER_GROUP]:
        finding = by_id[finding_id]
        lines += _finding_block(finding, _unit(bench, finding), bench, benchmark, language)
    hidden = len(group.finding_ids) - SHOWN_PER_GROUP
    if hidden > 0:
        lines += ["", f"… and {hidden} more of this group: `babelflow review {benchmark} --lang {language}` lists all."]
    return lines


def plan_line(sample: SignOffSample) -> str:
    """The count that decides, in words."""
    plan = sample.plan
    if plan is None:  # a record signed before the plan was kept
        return "No acceptance plan recorded."
    return (
        f"**Acceptance:** AQL {plan.aql} %: accepted with at most **{plan.accept}** failing of {plan.sample_size}"
        f" (Ac), rejected from **{plan.reject}** (Re); one critical error rejects whatever the count."
    )


def signoff_material_markdown(
    sample: SignOffSample, benchmark: str, language: str, translator_id: str, tier: str
) -> str:
    """The sign-off reading: every sampled unit, source and target side by side, by stratum."""
    lines = [
        f"# Sign-off sample {benchmark} → {language}",
        "",
        f"Translator {inline(translator_id)}, tier **{tier}**. {sample.sample_size} of {sample.lot_size} units, drawn "
        f"by role and risk (ISO 2859-1 general inspection level II, code letter {sample.code_letter}); "
        "strata: " + ", ".join(f"{name} {count}" for name, count in sample.strata.items()) + ".",
        "",
        plan_line(sample),
        "",
        "Mark each unit pass or fail in the form (field *unit N* is unit N below); a failing unit takes its MQM"
        f' category and severity. Correct a unit: `babelflow correct {benchmark} --lang {language} --id ID --text "…"`'
        " (allowed while the run waits here); the next round applies it.",
    ]
    by_stratum: dict[str, list[tuple[int, SampledUnit]]] = {}
    for number, unit in enumerate(sample.units, start=1):
        by_stratum.setdefault(unit.stratum, []).append((number, unit))
    for stratum, units in by_stratum.items():
        lines += ["", f"## {stratum} ({len(units)})", ""]
        for number, unit in units:
            where = f"{number}. `{unit.unit_key[:12]}` · {inline(unit.role)}" + (
                f" · task {inline(unit.task)}" if unit.task else ""
            )
            checks = f" · checks: {inline('; '.join(unit.checks))}" if unit.checks else ""
            lines += [f"**{where}** · made by {inline(unit.origin)} · risk {unit.risk}{checks}", ""]
            lines += side_by_side([(unit.source, unit.target)], language)
    return "\n".join(lines)
