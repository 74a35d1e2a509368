"""A validator agent that back-translates every unit the model agents would read (each task field,
each other distinct source/target pair) and compares the result with the source. Offline it uses an
installed reverse Apertium pair (es→en, ca→en, gl→en); with ``--validators
backtranslation:PROVIDER:MODEL`` a model reads any language back (``model_backends.ModelBackTranslator``).

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
its own validator (``backtranslation-apertium``, spending no tokens, or ``backtranslation-<provider>``).
"""

from __future__ import annotations

import re
import subprocess
from typing import Protocol

from pydantic import Field

from babelflow.apertium import apertium_binary, blocks_document, installed_modes, mode_for, read_blocks, run_apertium
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from validators.agent_exchange import AgentReport
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


class BackTranslator(Protocol):
    """Turns target texts back into English: Apertium's reverse pair, or a model (``model_backends``)."""

    model_id: str

    def back_translate(self, texts: list[str], language: str) -> list[str | None]:
        """One English text per input, None where it could not be had (that unit is not scored)."""
        ...


class ApertiumBackTranslator:
    """The installed reverse pair (es→en, ca→en, gl→en), whole batches through one process call."""

    def __init__(self, binary: str, mode: str, timeout: float = 600.0):
        self.binary, self.mode, self.timeout = binary, mode, timeout
        self.model_id = f"apertium:{mode}"

    @classmethod
    def for_language(cls, language: str, timeout: float = 600.0) -> ApertiumBackTranslator | None:
        found = reverse_mode(language)
        return cls(*found, timeout=timeout) if found else None

    def back_translate(self, texts: list[str], language: str) -> list[str | None]:
        out: list[str | None] = []
        start = 0
        while start < len(texts):
            end, size = start, 0
            while end < len(texts) and (end == start or size + len(texts[end]) <= BATCH_CHARACTERS):
                size += len(texts[end])
                end += 1
            try:
                done = run_apertium(self.binary, self.mode, blocks_document(texts[start:end]), self.timeout)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise BabelflowError(
                    f"Apertium ({self.mode}) did not run: {exc}",
                    field="--validators",
                    fix="check the Apertium install (scripts/install.sh)",
                ) from exc
            if done.returncode != 0:
                raise BabelflowError(
                    f"Apertium ({self.mode}) failed: {done.stderr.strip()[:300]}",
                    field="--validators",
                    fix="check the Apertium install (scripts/install.sh)",
                )
            blocks = read_blocks(done.stdout)
            out += [blocks.get(k, "") for k in range(end - start)]
            start = end
        return out


class BacktranslationAgent:
    """Same interface as ``ValidatorAgent`` (``validator_id``, ``review``). ``back_translator`` None: the
    installed Apertium reverse pair of the variant's language (no model, no tokens)."""

    def __init__(
        self, validator_id: str = VALIDATOR_ID, *, timeout: float = 600.0, back_translator: BackTranslator | None = None
    ):
        self.validator_id = validator_id
        self.timeout = timeout
        self.back_translator = back_translator

    def units(self, ctx: ValidationContext, probe_findings: list[Finding]) -> list[UnitView]:
        tasks, units = ReviewMaterial(ctx, probe_findings).items
        fields = [f for t in tasks for f in t.fields] + units
        # a person or place the run localized on purpose ('Test User' -> '黄秀珍') cannot read back as its source
        entries = ctx.canonical_map.entries if ctx.canonical_map is not None else []
        localized = {(e.source, e.target) for e in entries if e.origin == "localized"}
        return [
            u for u in fields if u.target.strip() and u.target != u.source and (u.source, u.target) not in localized
        ]  # copied text: the `untranslated` probe's

    def _translator(self, language: str) -> BackTranslator | None:
        return self.back_translator or ApertiumBackTranslator.for_language(language, self.timeout)

    def score(self, ctx: ValidationContext, probe_findings: list[Finding]) -> list[UnitScore] | None:
        """Every unit's back-translation and scores (a unit whose back-translation could not be had is
        left out); None when there is no back-translator for the language."""
        translator = self._translator(ctx.language)
        return None if translator is None else self._scores(ctx.language, self.units(ctx, probe_findings), translator)

    @staticmethod
    def _scores(language: str, units: list[UnitView], translator: BackTranslator) -> list[UnitScore]:
        # sacrebleu takes ~0.5-1.5 s to import; only this agent uses it
        from sacrebleu.metrics import CHRF  # noqa: PLC0415

        # task fields repeat across tasks (telecom: 2,285 tasks, a few thousand distinct texts): each distinct pair once
        distinct = list(dict.fromkeys((u.source, u.target) for u in units))
        backs = dict(
            zip(distinct, translator.back_translate([target for _, target in distinct], language), strict=True)
        )
        chrf = CHRF(lowercase=True)
        scored = {pair: round(chrf.sentence_score(b.strip(), [pair[0]]).score, 1) for pair, b in backs.items() if b}
        return [
            UnitScore(
                unit=u,
                back_translation=(backs[(u.source, u.target)] or "").strip(),
                chrf=scored[(u.source, u.target)],
                missing=_missing(u, backs[(u.source, u.target)] or ""),
            )
            for u in units
            if (u.source, u.target) in scored
        ]

    def review(self, ctx: ValidationContext, probe_findings: list[Finding]) -> AgentReport:
        translator = self._translator(ctx.language)
        if translator is None:
            return AgentReport(
                validator_id=self.validator_id,
                model_id=None,
                findings=[],
                turns=0,
                note=f"no Apertium pair {ctx.language}→en installed: back-translation not run"
                " (a model back-translates any language: --validators backtranslation:PROVIDER:MODEL)",
            )
        units = self.units(ctx, probe_findings)
        scores = self._scores(ctx.language, units, translator)
        how = translator.model_id
        findings = [self._finding(ctx, s, how) for s in scores if s.divergent]
        unscored = f"; {len(units) - len(scores)} could not be back-translated" if len(units) > len(scores) else ""
        return AgentReport(
            validator_id=self.validator_id,
            model_id=how,
            findings=findings,
            turns=0,
            note=(
                f"back-translated {len(scores)} units with {how}: {len(findings)} below chrF {THRESHOLD:g} "
                f"(or {ALIGNED_THRESHOLD:g} with an entity lost){unscored}"
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
