"""The ablation's three arms: independent and canonical per-field translation, and the full
babelflow workflow with a scripted reviewer (see bench/ablation.py)."""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from babelflow.ir import ArtifactRole
from bench.ablation_oracle import (
    _SLOT,
    BATCH,
    MAX_RETRANSLATIONS,
    MAX_ROUNDS,
    ArmResult,
    Domain,
)

# ---- naive arms ------------------------------------------------------------------------------


def db_translated(domain: Domain, targets: dict[str, str]) -> bool:
    """Whether the arm wrote any DB value other than the source's (the oracle then maps the final DB back)."""
    by_id = domain.ir.by_id()
    return any(
        domain.roles.get(by_id[e].artifact) is ArtifactRole.DATABASE and text != by_id[e].source_text
        for e, text in targets.items()
    )


@dataclass
class Job:
    element_ids: list[str]
    text: str
    originals: list[str]
    context: str
    kind: str


def _slot_patterns() -> list[re.Pattern[str]]:
    from translators.placeholders import GENERIC_PATTERNS  # the engine's own template-slot patterns

    return [pattern for kind, pattern in GENERIC_PATTERNS if kind in ("template", "printf")]


def protect_slots(text: str) -> tuple[str, list[str]]:
    """Only template slots ({name}, %s) become ⟦N⟧ placeholders: what a naive pipeline protects."""
    spans = sorted(
        {(m.start(), m.end()) for pattern in _slot_patterns() for m in pattern.finditer(text) if m.end() > m.start()}
    )
    pieces, originals, cursor = [], [], 0
    for start, end in spans:
        if start < cursor:
            continue
        pieces += [text[cursor:start], f"⟦{len(originals)}⟧"]
        originals.append(text[start:end])
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), originals


def restore_lenient(text: str, originals: list[str]) -> str:
    """Put slots back; a dropped slot stays dropped (no check, as in a naive pipeline)."""
    return _SLOT.sub(lambda m: originals[int(m.group(1))] if int(m.group(1)) < len(originals) else m.group(), text)


def naive_fields(domain: Domain) -> tuple[list[Any], list[Any]]:
    """(prose fields, entity-like fields) a naive pipeline translates."""
    from babelflow.ir import ArtifactRole, PreserveReason, TranslationType

    entity_reasons = (PreserveReason.LINKED_ENTITY, PreserveReason.EVALUATOR_TOKEN)
    prose, entities = [], []
    for element in domain.ir.elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            prose.append(element)
        elif element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            entities.append(element)
        elif element.preserve_reason in entity_reasons and domain.roles.get(element.artifact) in (
            ArtifactRole.DATABASE,
            ArtifactRole.TASKS,
        ):
            entities.append(element)
    return prose, entities


def naive_jobs(domain: Domain, arm: str) -> list[Job]:
    prose, entities = naive_fields(domain)
    jobs = []
    for element in prose:
        text, originals = protect_slots(element.source_text)
        jobs.append(Job([element.id], text, originals, f"{domain.id} {element.role} @ {element.id}", "free"))
    if arm == "independent":
        for element in entities:
            text, originals = protect_slots(element.source_text)
            jobs.append(Job([element.id], text, originals, f"{domain.id} {element.role} @ {element.id}", "canonical"))
    else:  # canonical: one rendering per distinct entity value, reused in every field that holds it
        by_value: dict[str, list[str]] = defaultdict(list)
        for element in entities:
            by_value[element.source_text].append(element.id)
        for value, ids in by_value.items():
            text, originals = protect_slots(value)
            jobs.append(Job(ids, text, originals, "canonical term (entity)", "canonical"))
    return jobs


def run_jobs(jobs: list[Job], model: Any, language: str) -> dict[str, str]:
    from translators.interface import ProtectedSegment, TranslationRequest

    targets: dict[str, str] = {}
    for start in range(0, len(jobs), BATCH):
        batch = jobs[start : start + BATCH]
        request = TranslationRequest(
            source_language="en",
            target_language=language,
            segments=[
                ProtectedSegment(segment_id=str(start + i), text=job.text, context=job.context, kind=job.kind)
                for i, job in enumerate(batch)
            ],
        )
        by_id = {s.segment_id: s.text for s in model.translate(request).segments}
        for i, job in enumerate(batch):
            targets.update(dict.fromkeys(job.element_ids, restore_lenient(by_id[str(start + i)], job.originals)))
    return targets


def run_naive(domain: Domain, arm: str, seed: int, rates: Any = None) -> ArmResult:
    from babelflow.variant import VariantBuild
    from flows.components import domain_name_for
    from translators.rebuild import rebuild_variant
    from translators.simulated_model import ERROR_FREE, SimulatedModelTranslator

    started = time.perf_counter()
    result = ArmResult(benchmark=domain.id, arm=arm, tasks=len(domain.task_ids))
    jobs = naive_jobs(domain, arm)
    model = SimulatedModelTranslator(domain.language, seed=seed, rates=rates)
    domain.console.log(f"{domain.id}/{arm}: translating {len(jobs)} segments")
    targets = run_jobs(jobs, model, domain.language)
    clean = run_jobs(jobs, SimulatedModelTranslator(domain.language, seed=seed, rates=ERROR_FREE), domain.language)
    variant_dir = domain.work / domain.id / arm
    rebuild_variant(
        domain.bench,
        domain.ir,
        targets,
        variant_dir,
        VariantBuild(
            language=domain.language,
            domain_name=domain_name_for(domain.id, domain.language),
            canonical_map_version="none",
            translator_id=model.translator_id,
            failed_units=0,
        ),
    )
    domain.judge(result, variant_dir, targets, db_translated(domain, targets))
    result.characters_sent, result.characters_received = model.characters_in, model.characters_out
    result.tokens, result.requests, result.segments = model.estimated_tokens, model.requests, model.segments
    result.fields_translated = len(targets)
    result.defective_fields = sum(1 for e, text in targets.items() if text != clean[e])
    result.model_events = dict(model.events)
    result.seconds = time.perf_counter() - started
    return result


# ---- the full babelflow arm ------------------------------------------------------------------

VALIDATOR_AGENTS = 3  # BabelArena's heterogeneous validators; here three simulated reviewers


def simulated_validators(ledger: Any, remember: bool = True) -> list:
    """Three isolated model validator agents on the model layer, each answered by a simulated
    client: they read every task and unit the agents of a real run read (batched, with context),
    uphold the probes' findings and raise nothing else, and their tokens go to ``ledger``. With
    ``remember`` they live across the run's review rounds and re-read only what changed."""
    from babelflow.llm.simulated import SimulatedChatClient, simulated_config
    from validators.agents import ValidatorAgent
    from validators.model_backends import ModelReviewer

    def uphold(request: dict) -> dict:
        actions = [
            {"kind": "uphold", "finding_id": f["id"], "reasoning": "the probe's evidence holds"}
            for f in request.get("probe_findings", [])
        ]
        return {"actions": actions + [{"kind": "done", "reasoning": "batch read"}]}

    return [
        ValidatorAgent(
            f"validator-{n}-simulated",
            model=ModelReviewer(
                simulated_config(f"simulated-reviewer-{n}"), costs=ledger, client=SimulatedChatClient(uphold)
            ),
            remember=remember,
        )
        for n in range(1, VALIDATOR_AGENTS + 1)
    ]


def run_full(
    domain: Domain, seed: int, max_rounds: int = MAX_ROUNDS, rates: Any = None, remember: bool = True
) -> ArmResult:
    """engine → release checks → rebuild → validate → scripted review, until nothing is open."""
    from babelflow.canonical_map import CanonicalMap
    from babelflow.entity_policy import entity_renderings
    from babelflow.language_pack import load_pack
    from babelflow.llm.costs import CostLedger, cost_rows
    from babelflow.settings import BabelflowSettings
    from babelflow.variant import VariantBuild
    from flows.components import domain_name_for
    from translators.engine import TranslationEngine
    from translators.memory import TranslationMemory
    from translators.pack_checks import check_pack, check_translations
    from translators.rebuild import rebuild_variant
    from translators.simulated_model import ERROR_FREE, SimulatedModelTranslator
    from validators.run import validate_variant, variant_context

    started = time.perf_counter()
    ledger = CostLedger()
    agents = simulated_validators(ledger, remember)
    console, ir, language = domain.console, domain.ir, domain.language
    result = ArmResult(
        benchmark=domain.id, arm="full", tasks=len(domain.task_ids), review_rounds=0, validation_passes=0
    )
    pack = load_pack(language, BabelflowSettings().project_root)
    # each entity class rendered as a real run renders it in this language (keep / translate / localize)
    renderings = entity_renderings(
        ir.entity_classes,
        script=pack.script,
        pseudo=pack.offline_rendering is not None,
        pack=pack.entities,
        overrides={},
    )
    model = SimulatedModelTranslator(language, seed=seed, rates=rates)
    engine = TranslationEngine(model, language, TranslationMemory(None))
    cmap = CanonicalMap(benchmark=domain.id, language=language)
    clean = (
        TranslationEngine(
            SimulatedModelTranslator(language, seed=seed, rates=ERROR_FREE), language, TranslationMemory(None)
        )
        .translate(ir, CanonicalMap(benchmark=domain.id, language=language), renderings=renderings)
        .targets
    )
    by_id = ir.by_id()
    by_where: dict[str, set[str]] = defaultdict(set)
    by_qualname: dict[tuple[str, str], set[str]] = defaultdict(set)
    for element_id in clean:
        element = by_id[element_id]
        by_where[f"{element.artifact} {element.role}"].add(element_id)
        if element.locator.kind == "python_literal":
            by_qualname[(element.artifact, element.locator.qualname)].add(element_id)
    variant_dir = domain.work / domain.id / "full"
    reviewed: dict[str, str] = {}
    confirmations: Counter[str] = Counter()
    dismissed: dict[str, tuple] = {}

    def candidates(finding: Any) -> set[str]:
        if finding.element_id:
            return {finding.element_id} & clean.keys()
        if finding.task_id is not None:
            return domain.task_elements.get(finding.task_id, set()) & clean.keys()
        match = re.match(r"(.+) \((\w+)\)$", finding.location)
        if match and (finding.artifact, match.group(1)) in by_qualname:
            return by_qualname[(finding.artifact, match.group(1))]
        return {e for e in clean if by_id[e].artifact == finding.artifact}

    outcome = None
    for round_no in range(1, max_rounds + 1):
        outcome = engine.translate(ir, cmap, reviewed=reviewed, renderings=renderings)
        items: list[tuple[str, str, set[str]]] = [
            (f"unit:{f.unit_key}", "unit failure: " + "; ".join(f.problems)[:120], set(f.element_ids))
            for f in outcome.failures
        ]
        problems = check_pack(pack) + check_translations(
            pack, ir, outcome.targets
        )  # babelflow's enforce(): nothing is written on failure
        if problems:
            items += [
                (f"release:{p}", f"release check: {p[:120]}", by_where.get(p.split(": ", 1)[0], set()))
                for p in problems
            ]
        if not problems or round_no == max_rounds:
            rebuild_variant(
                domain.bench,
                ir,
                outcome.targets,
                variant_dir,
                VariantBuild(
                    language=language,
                    domain_name=domain_name_for(domain.id, language),
                    canonical_map_version=cmap.version(),
                    translator_id=model.translator_id,
                    failed_units=len(outcome.failures),
                    language_pack_version=f"{pack.tag}@{pack.version}",
                ),
            )
        if not problems:
            result.validation_passes += 1
            failures = validate_variant(
                variant_context(
                    domain.bench, variant_dir, ir, language, canonical_map=cmap, source_pairs=domain.source_pairs
                ),
                agents=agents,
            )
            items += [
                (f.id, f"[{f.layer.value}/{f.kind}] {f.artifact} {f.location}", candidates(f))
                for f in failures.findings
            ]
        # the scripted reviewer: confirm iff a named field really differs from the error-free rendering
        retranslate: set[str] = set()
        open_items = 0
        for key, description, fields in items:
            state = tuple(sorted((e, outcome.targets.get(e)) for e in fields))
            if dismissed.get(key) == state:
                continue  # dismissed earlier and its fields have not changed since
            open_items += 1
            defective = {e for e in fields if outcome.targets.get(e) != clean.get(e)}
            if not defective:
                dismissed[key] = state
                result.dismissed += 1
                console.log(f"{domain.id}/full round {round_no}: dismissed {description}")
                continue
            result.confirmed += 1
            retranslate |= defective
        console.log(
            f"{domain.id}/full round {round_no}: {open_items} open item(s), {len(retranslate)} field(s) to retranslate"
        )
        if not retranslate:
            result.converged = not any(
                dismissed.get(key) != tuple(sorted((e, outcome.targets.get(e)) for e in fields))
                for key, _, fields in items
            )
            break
        result.review_rounds += 1
        forget: set[str] = set()
        for element_id in retranslate:
            confirmations[element_id] += 1
            if confirmations[element_id] > MAX_RETRANSLATIONS and element_id in outcome.targets:
                reviewed[element_id] = clean[element_id]  # the reviewer writes the fix by hand
                result.hand_fixed += 1
            else:
                forget.add(element_id)
        if forget:
            engine.memory.forget(engine.memory_keys(ir, cmap, forget))
    else:
        result.converged = False
    assert outcome is not None
    # entities are Translate-Canonical now: the DB is renamed through the map, and mapped back to compare
    domain.judge(result, variant_dir, outcome.targets, db_translated(domain, outcome.targets))
    result.characters_sent, result.characters_received = model.characters_in, model.characters_out
    result.tokens, result.requests, result.segments = model.estimated_tokens, model.requests, model.segments
    result.fields_translated = len(outcome.targets)
    result.defective_fields = sum(1 for e, text in clean.items() if outcome.targets.get(e) != text)
    result.model_events = dict(model.events)
    result.validator_tokens = sum(ledger.report().total(stage="validate"))
    result.validator_costs = cost_rows(ledger.report())
    result.seconds = time.perf_counter() - started
    return result
