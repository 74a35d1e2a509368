"""`babelflow review --sign`: the sample shown side by side, one verdict per unit (pass, or fail with its
MQM category and severity), and the count against the plan's Ac/Re deciding signed or rejected."""

from __future__ import annotations

from pathlib import Path

import orjson
import typer
from pydantic import TypeAdapter, ValidationError
from rich.prompt import Prompt
from rich.table import Table

from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings
from flows.cli.common import console, shown_text
from flows.review.acceptance import MqmCategory, MqmSeverity, UnitVerdict
from flows.review.signoff import SampledUnit, Signer, SignOffSample
from flows.review.store import ReviewStore

FAIL_FORMAT = "UNIT=CATEGORY:SEVERITY[:note]"


def parsed_failures(given: list[str]) -> list[UnitVerdict]:
    """`--fail UNIT=accuracy:major:note` items as verdicts (UNIT: a key or a unique 6+ prefix)."""
    verdicts = []
    for item in given:
        key, _, rest = item.partition("=")
        category, _, rest = rest.partition(":")
        severity, _, note = rest.partition(":")
        try:
            verdicts.append(
                UnitVerdict(
                    unit_key=key.strip(),
                    verdict="fail",
                    category=MqmCategory(category.strip()),
                    severity=MqmSeverity(severity.strip()),
                    note=note.strip(),
                )
            )
        except ValueError:
            raise BabelflowError(
                f"Bad failure {item!r}",
                field="--fail",
                fix=f"write {FAIL_FORMAT}: CATEGORY one of {', '.join(c.value for c in MqmCategory)}; SEVERITY one"
                f" of {', '.join(s.value for s in MqmSeverity)}",
            ) from None
    return verdicts


def read_verdicts(path: Path) -> list[UnitVerdict]:
    """A JSON list of verdicts ({"unit_key", "verdict": "pass"|"fail", "category", "severity", "note"})."""
    try:
        return TypeAdapter(list[UnitVerdict]).validate_python(orjson.loads(Path(path).read_bytes()))
    except FileNotFoundError:
        raise BabelflowError("No such verdicts file", file=path, fix="give a JSON list of verdicts") from None
    except (orjson.JSONDecodeError, ValidationError) as exc:
        first = str(exc).splitlines()[:3]
        raise BabelflowError(
            "Verdicts file is not a list of unit verdicts",
            file=path,
            field="; ".join(first),
            fix='write [{"unit_key": "…", "verdict": "fail", "category": "accuracy", "severity": "major"}, …]'
            " (a failing unit names its MQM category and severity)",
        ) from None


def _resolved(given: list[UnitVerdict], sample: SignOffSample) -> dict[str, UnitVerdict]:
    """Verdicts keyed by the sampled unit each names (a key or a unique prefix of 6+); one not sampled is
    refused (its verdict would count for nothing)."""
    keys = [u.unit_key for u in sample.units]
    out: dict[str, UnitVerdict] = {}
    for verdict in given:
        matches = [k for k in keys if k == verdict.unit_key] or (
            [k for k in keys if k.startswith(verdict.unit_key)] if len(verdict.unit_key) >= 6 else []
        )
        if len(matches) != 1:
            raise BabelflowError(
                f"Unit {verdict.unit_key!r} is not in the sign-off sample",
                field="--fail",
                fix="give a unit shown in the sample table (its key, or a unique prefix of 6+ characters)",
            )
        out[matches[0]] = verdict.model_copy(update={"unit_key": matches[0]})
    return out


def _asked(number: int, unit: SampledUnit) -> UnitVerdict:
    verdict = Prompt.ask(f"unit {number} {unit.unit_key[:12]}", choices=["pass", "fail"], default="pass")
    if verdict == "pass":
        return UnitVerdict(unit_key=unit.unit_key, verdict="pass")
    category = Prompt.ask("  MQM category", choices=[c.value for c in MqmCategory], default="accuracy")
    severity = Prompt.ask("  severity", choices=[s.value for s in MqmSeverity], default="major")
    note = Prompt.ask("  note", default="")
    return UnitVerdict(
        unit_key=unit.unit_key,
        verdict="fail",
        category=MqmCategory(category),
        severity=MqmSeverity(severity),
        note=note,
    )


def judged(sample: SignOffSample, given: list[UnitVerdict], rest_pass: bool) -> list[UnitVerdict]:
    """One verdict per sampled unit: given ones, then (with --yes) pass, else asked unit by unit."""
    by_key = _resolved(given, sample)
    out = []
    for number, unit in enumerate(sample.units, start=1):
        if unit.unit_key in by_key:
            out.append(by_key[unit.unit_key])
        elif rest_pass:
            out.append(UnitVerdict(unit_key=unit.unit_key, verdict="pass"))
        else:
            out.append(_asked(number, unit))
    return out


def show_sample(sample: SignOffSample, translator_id: str, tier: str, tier_text: str) -> None:
    from flows.cli.units import out  # noqa: PLC0415
    from flows.review.material import plan_line  # noqa: PLC0415
    from flows.review.signoff import SAMPLE_RULE  # noqa: PLC0415

    out.print(f"translator {translator_id}: tier {tier} — {tier_text}", highlight=False)
    out.print(
        f"sample: {SAMPLE_RULE}: lot {sample.lot_size} units -> code letter {sample.code_letter} -> n ="
        f" {sample.sample_size}; by stratum " + ", ".join(f"{s} {n}" for s, n in sample.strata.items()),
        highlight=False,
    )
    out.print(plan_line(sample).replace("**", ""), highlight=False)
    table = Table(show_lines=True, expand=True)
    table.add_column("# · unit · stratum · origin", overflow="fold", ratio=1)
    table.add_column("source", overflow="fold", ratio=3)
    table.add_column("target", overflow="fold", ratio=3)
    table.add_column("checks", overflow="fold", ratio=2)
    for number, unit in enumerate(sample.units, start=1):
        table.add_row(
            f"{number}. {unit.unit_key[:12]}\n{unit.stratum}"
            + (f" · task {unit.task}" if unit.task else "")
            + f"\n{unit.origin}",
            shown_text(unit.source),
            shown_text(unit.target),
            shown_text("; ".join(unit.checks) or "pass"),
        )
    out.print(table)


def sign_sampled(
    settings: BabelflowSettings,
    benchmark: str,
    lang: str,
    store: ReviewStore,
    signer: Signer,
    given: list[UnitVerdict],
    *,
    yes: bool,
) -> None:
    """Show the tier, the plan and the sample; judge each unit; the count signs or rejects (exit 1)."""
    from flows.cli.units import out  # noqa: PLC0415
    from flows.pipeline.flow_results import mark_run_state  # noqa: PLC0415
    from flows.review.signoff import TIERS, signing_tier  # noqa: PLC0415
    from flows.review.signoff_log import conclude  # noqa: PLC0415
    from flows.review.signoff_sample import sign_sample  # noqa: PLC0415
    from flows.review.workbench import Workbench  # noqa: PLC0415

    with console.status(f"reading {benchmark} {lang} and drawing the sample …"):
        bench = Workbench.of_variant(settings, benchmark, lang)
        not_ready = [r.key for r in bench.records if r.origin_class in ("pending", "failed")]
        if not_ready:
            raise BabelflowError(
                f"{len(not_ready)} unit(s) have no translation in this variant yet ({', '.join(not_ready[:3])} …)",
                fix=f"run `babelflow flow {benchmark} --lang {lang}` (or `babelflow adapt`) first, then sign",
            )
        sample = sign_sample(bench)
    translator_id, tier = signing_tier(bench)
    show_sample(sample, translator_id, tier, TIERS[tier])
    verdicts = judged(sample, given, rest_pass=yes)
    decision = conclude(bench, store, sample, verdicts, signer)
    outcome = decision.outcome
    assert outcome is not None
    state = mark_run_state(settings, store.flow_run_id(), decision)
    if decision.decision == "signed":
        out.print(
            f"signed off by {signer.reviewer} ({tier}: {outcome.reason}; {len(sample.units)} verdicts recorded):"
            f" {bench.run.paths.variant / 'babelflow_signoff.json'}" + (f"; {state}" if state else ""),
            highlight=False,
        )
        return
    plan = "; ".join(
        f"{step.stratum}: {step.failing}/{step.sampled} failing -> {step.action.replace('_', ' ')}"
        for step in decision.plan
    )
    out.print(
        f"SIGN-OFF REJECTED by {signer.reviewer}: {outcome.reason}. Plan: {plan}. {len(decision.rejected_units)}"
        f" failing unit(s) queued for review (`babelflow review {benchmark} --lang {lang}`, `babelflow units"
        f" {benchmark} --lang {lang} --failing`); correct them (`babelflow correct … --id UNIT --text …`), rerun"
        f" `babelflow flow {benchmark} --lang {lang}`, then sign a new sample. Logged in"
        f" {store.folder / 'signoff_log.jsonl'}" + (f"; {state}" if state else ""),
        highlight=False,
    )
    raise typer.Exit(1)
