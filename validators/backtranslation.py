"""An offline validator agent for languages with an installed reverse Apertium pair (es→en, ca→en,
gl→en): it back-translates every unit the model agents would read (each task field, each other
distinct source/target pair) and compares the result with the source.

* similarity: chrF (sacrebleu's implementation: character n-gram F-score, 0-100, lowercased),
  robust to the word-order and word-choice changes a rule-based round trip makes. Measured on
  τ² retail and mock texts sent en→es→en through Apertium: median 75, lowest 27 (a three-word
  heading); a fluent but unrelated Spanish sentence scores 4-21 against them. Below
  ``THRESHOLD`` the unit is raised for review.
* alignment: the source's numbers and protected tokens (ids, names the IR keeps) that the
  back-translation lost. A lost entity lowers the bar: below ``ALIGNED_THRESHOLD`` with one
  missing, the unit is raised too.

A round trip measures the translation and the reverse pair together, so a flagged unit is a
question for a reviewer (the finding quotes the back-translation), not a verdict. Reported as
its own validator (``backtranslation-apertium``); it spends no tokens.
"""

from __future__ import annotations

import re
import subprocess

from pydantic import Field

from babelflow.apertium import apertium_binary, blocks_document, installed_modes, mode_for, read_blocks, run_apertium
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from validators.agents import AgentReport
from validators.context import ValidationContext
from validators.finding_kinds import PAIRED, Layer, Severity, declare_kind
from validators.findings import Finding, Hit, found
from validators.review_material import ReviewMaterial, UnitView

VALIDATOR_ID = "backtranslation-apertium"
KIND = "backtranslation_divergent"
THRESHOLD = 25.0
ALIGNED_THRESHOLD = 40.0
BATCH_CHARACTERS = 100_000  # per Apertium process call
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

BACKTRANSLATION_DIVERGENT = declare_kind(
    KIND,
    Layer.FIDELITY,
    Severity.MAJOR,
    PAIRED,
    "the back-translation says something else than the source (chrF below the threshold)",
)


class UnitScore(Record):
    unit: UnitView
    back_translation: str
    chrf: float = Field(description="chrF of the back-translation against the source, 0-100")
    missing: list[str] = Field(
        default_factory=list, description="source numbers and protected tokens the back-translation lost"
    )

    @property
    def divergent(self) -> bool:
        return self.chrf < THRESHOLD or (bool(self.missing) and self.chrf < ALIGNED_THRESHOLD)


def reverse_mode(language: str) -> tuple[str, str] | None:
    """(apertium binary, mode) translating ``language`` into English, if installed."""
    binary = apertium_binary()
    if binary is None:
        return None
    try:
        mode = mode_for(language, "en", installed_modes(binary))
    except (LookupError, ValueError):  # a tag langcodes cannot map to ISO 639-3 (pseudo-locales)
        return None
    return (binary, mode) if mode else None


def _numbers(text: str) -> set[str]:
    return {re.sub(r"[.,]", "", n) for n in _NUMBER.findall(text)}


def _missing(unit: UnitView, back: str) -> list[str]:
    """Numbers compare modulo separators (Spanish 1.628,50 comes back 1,628.50 or 1628.50)."""
    lost = sorted(_numbers(unit.source) - _numbers(back))
    lost += [t for t in unit.protected_tokens if not _NUMBER.fullmatch(t) and t in unit.source and t not in back]
    return lost


class BacktranslationAgent:
    """Same interface as ``ValidatorAgent`` (``validator_id``, ``review``), no model."""

    def __init__(self, validator_id: str = VALIDATOR_ID, *, timeout: float = 600.0):
        self.validator_id = validator_id
        self.timeout = timeout

    def units(self, ctx: ValidationContext, probe_findings: list[Finding]) -> list[UnitView]:
        tasks, units = ReviewMaterial(ctx, probe_findings).items
        fields = [f for t in tasks for f in t.fields] + units
        return [
            u for u in fields if u.target.strip() and u.target != u.source
        ]  # copied text: the `untranslated` probe's

    def _back_translate(self, binary: str, mode: str, texts: list[str]) -> list[str]:
        out: list[str] = []
        start = 0
        while start < len(texts):
            end, size = start, 0
            while end < len(texts) and (end == start or size + len(texts[end]) <= BATCH_CHARACTERS):
                size += len(texts[end])
                end += 1
            try:
                done = run_apertium(binary, mode, blocks_document(texts[start:end]), self.timeout)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise BabelflowError(
                    f"Apertium ({mode}) did not run: {exc}",
                    field="--validators",
                    fix="check the Apertium install (scripts/install.sh)",
                ) from exc
            if done.returncode != 0:
                raise BabelflowError(
                    f"Apertium ({mode}) failed: {done.stderr.strip()[:300]}",
                    field="--validators",
                    fix="check the Apertium install (scripts/install.sh)",
                )
            blocks = read_blocks(done.stdout)
            out += [blocks.get(k, "") for k in range(end - start)]
            start = end
        return out

    def score(self, ctx: ValidationContext, probe_findings: list[Finding]) -> list[UnitScore] | None:
        """Every unit's back-translation and scores; None when no reverse pair is installed."""
        # sacrebleu takes ~0.5-1.5 s to import; only this offline agent uses it
        from sacrebleu.metrics import CHRF  # noqa: PLC0415

        found = reverse_mode(ctx.language)
        if found is None:
            return None
        units = self.units(ctx, probe_findings)
        # task fields repeat across tasks (telecom: 2,285 tasks, a few thousand distinct texts): each distinct pair once
        distinct = list(dict.fromkeys((u.source, u.target) for u in units))
        backs = dict(zip(distinct, self._back_translate(*found, [target for _, target in distinct]), strict=True))
        chrf = CHRF(lowercase=True)
        scored = {(s, t): round(chrf.sentence_score(b.strip(), [s]).score, 1) for (s, t), b in backs.items()}
        return [
            UnitScore(
                unit=u,
                back_translation=backs[(u.source, u.target)].strip(),
                chrf=scored[(u.source, u.target)],
                missing=_missing(u, backs[(u.source, u.target)]),
            )
            for u in units
        ]

    def review(self, ctx: ValidationContext, probe_findings: list[Finding]) -> AgentReport:
        scores = self.score(ctx, probe_findings)
        found = None if scores is None else reverse_mode(ctx.language)
        if scores is None or found is None:
            return AgentReport(
                validator_id=self.validator_id,
                model_id=None,
                findings=[],
                turns=0,
                note=f"no Apertium pair {ctx.language}→en installed: back-translation not run",
            )
        mode = found[1]
        findings = [self._finding(ctx, s, mode) for s in scores if s.divergent]
        return AgentReport(
            validator_id=self.validator_id,
            model_id=f"apertium:{mode}",
            findings=findings,
            turns=0,
            note=(
                f"back-translated {len(scores)} units with {mode}: {len(findings)} below chrF {THRESHOLD:g} "
                f"(or {ALIGNED_THRESHOLD:g} with an entity lost)"
            ),
            units_read=len(scores),
        )

    def _finding(self, ctx: ValidationContext, score: UnitScore, mode: str) -> Finding:
        unit = score.unit
        lost = f"; lost {', '.join(score.missing)}" if score.missing else ""
        reasoning = (
            f"back-translated ({mode}): {score.back_translation!r} — chrF {score.chrf:g} against the source{lost}"
        )
        hit = Hit(
            artifact=unit.artifact,
            location=unit.role,
            message=f"the back-translation is far from the source (chrF {score.chrf:g}){lost}: "
            "does the translation still say the same thing?",
            element_id=unit.unit_id,
            task_id=unit.task_id,
            source=unit.source,
            target=unit.target,
            reasoning=reasoning,
            detail={
                "back_translation": score.back_translation[:240],
                "chrf": f"{score.chrf:g}",
                "missing": ", ".join(score.missing),
            },
        )
        return found(BACKTRANSLATION_DIVERGENT, self.validator_id, hit)
