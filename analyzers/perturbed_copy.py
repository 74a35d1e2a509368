"""The perturbation trial's copy: how each field is rendered, which tokens a free text keeps, and the replay.

A canonical value is rendered one way everywhere (accented, marked at both ends); free prose word by word, its
canonical mentions and kept literals as tokens (perturbed the way a translator would render them). The copy
opens through the family's `open_variant` and replays every task's ground truth.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from analyzers.heuristics import WORD, kept_spans
from analyzers.mentions import always_token
from babelflow.ir import (
    ArtifactFormat,
    ArtifactRole,
    DataValueLocator,
    IRElement,
    PreserveReason,
    PythonLiteralLocator,
    TranslationType,
)
from babelflow.literal_overlay import literal_overlay_text
from babelflow.text import ACCENT_TABLE, FORMAT_SLOT
from babelflow.variant import CodeOverlay
from source_benchmarks.protocol import ReplayOutcome
from source_benchmarks.registry import family_of
from source_benchmarks.yaml_io import dump_yaml, load_yaml, set_at


def task_scope(element: IRElement) -> str:
    """The task class a literal of task code belongs to ("" for module level, tools and data)."""
    qualname = element.locator.qualname if isinstance(element.locator, PythonLiteralLocator) else ""
    return qualname.split(".")[0] if element.role.startswith("task_code:") and "." in qualname else ""


# ---- inline tokens: what a free text keeps verbatim (its canonical values and the trial's kept literals) ----
def assign_inline_tokens(elements: list[IRElement]) -> None:
    canonical = {
        e.source_text
        for e in elements
        if e.translation_type is TranslationType.TRANSLATE_CANONICAL
        and len(e.source_text.strip()) >= 3
        and e.source_text == e.source_text.strip()
    }
    kept = {
        e.source_text
        for e in elements
        if e.translation_type is TranslationType.PRESERVE
        and e.source_text == e.source_text.strip()
        and len(e.source_text) >= 3
        and (always_token(e.source_text) or e.typing_rule.startswith("trial"))
    }
    vocabulary = sorted(canonical | kept, key=lambda v: (-len(v), v))
    if not vocabulary:
        return
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(v) for v in vocabulary) + r")(?![\w])")
    checked: dict[tuple[str, str], set[str]] = {}  # (module, task class) -> lowercase values its checks keep
    for e in elements:
        scope = task_scope(e)
        if (
            scope
            and e.translation_type is TranslationType.PRESERVE
            and e.locator.kind == "python_literal"
            and e.preserve_reason is not PreserveReason.ARGUMENT_NAME
            and len(e.source_text.strip()) >= 3
            and WORD.search(e.source_text)
        ):
            checked.setdefault((e.artifact, scope), set()).add(e.source_text.strip())
    found_by_id: dict[str, set[str]] = {}
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            found = {m.group(0) for m in pattern.finditer(element.source_text) if m.group(0) != element.source_text}
            if (
                element.role == "task_code:attribute"
            ):  # the task's own answer and prompt keep what its checks look for ("island trailhead")
                for value in checked.get((element.artifact, task_scope(element)), ()):
                    found |= {
                        m.group(0)
                        for m in re.finditer(
                            r"(?<![\w])" + re.escape(value) + r"(?![\w])", element.source_text, re.IGNORECASE
                        )
                    }
            found_by_id[element.id] = found
    # fields with one text are one translation unit: they share their tokens (a v1 and a v1.2.2 PROMPT)
    shared: dict[tuple[str, str], set[str]] = {}
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            shared.setdefault((element.source_text, element.role), set()).update(found_by_id[element.id])
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_FREE:
            element.inline_tokens = sorted(shared[(element.source_text, element.role)], key=lambda v: (-len(v), v))


# ---- the perturbed renderings -------------------------------------------------------------------------
def _canonical(text: str) -> str:
    out, last = [], 0
    for start, end in kept_spans(text):
        out.append(text[last:start].translate(ACCENT_TABLE))
        out.append(text[start:end])
        last = end
    out.append(text[last:].translate(ACCENT_TABLE))
    return (
        "ᵃ" + "".join(out) + "ᵃ"
    )  # marks at both ends: one canonical value is no substring of another, as in a real translation


def _free(text: str, tokens: list[str], canonical: set[str]) -> str:
    """Word by word (so a substring of the source survives only as a protected token)."""
    spans: list[tuple[int, int, str]] = []
    taken = [False] * len(text)
    for token in tokens:
        for match in re.finditer(r"(?<![\w])" + re.escape(token) + r"(?![\w])", text):
            if not any(taken[match.start() : match.end()]):
                spans.append((match.start(), match.end(), _canonical(token) if token in canonical else token))
                for i in range(match.start(), match.end()):
                    taken[i] = True
    slots = [match.span() for match in FORMAT_SLOT.finditer(text)]
    for start, end in slots + kept_spans(text):
        if not any(taken[start:end]):
            spans.append((start, end, text[start:end]))
            for i in range(start, end):
                taken[i] = True
    out, last = [], 0
    for start, end, rendered in sorted(spans):
        out.append(re.sub(r"[^\W\d_]+", lambda m: m.group(0).translate(ACCENT_TABLE) + "ᵇ", text[last:start]))
        out.append(rendered)
        last = end
    out.append(re.sub(r"[^\W\d_]+", lambda m: m.group(0).translate(ACCENT_TABLE) + "ᵇ", text[last:]))
    return "ᵇ" + "".join(out) + "ᵇ"  # a unit is translated whole: its rendering is no substring of a longer unit's


def perturbed_targets(elements: list[IRElement]) -> dict[str, str]:
    canonical = {e.source_text for e in elements if e.translation_type is TranslationType.TRANSLATE_CANONICAL}
    targets = {}
    for element in elements:
        if element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            targets[element.id] = _canonical(element.source_text)
        elif element.translation_type is TranslationType.TRANSLATE_FREE:
            targets[element.id] = _free(element.source_text, element.inline_tokens, canonical)
    return targets


def replay_perturbed_copy(
    bench: Any, elements: list[IRElement], workdir: Path, round_no: int, task_ids: list[str]
) -> dict[str, ReplayOutcome]:
    """Write this round's perturbed copy (data files and a code overlay), open it as a variant and replay
    the tasks' ground truth on it; `bench` is a PerturbedBenchmark."""
    targets = perturbed_targets(elements)
    root = workdir / f"trial{round_no}"
    by_artifact: dict[str, list[IRElement]] = {}
    for element in elements:
        by_artifact.setdefault(element.artifact, []).append(element)
    overlay = CodeOverlay(language="trial")
    for spec in bench.artifacts():
        items = [e for e in by_artifact.get(spec.path, []) if e.id in targets]
        if spec.format is ArtifactFormat.YAML:
            document = load_yaml(bench.artifact_path(spec))
            for element in items:
                if isinstance(element.locator, DataValueLocator):
                    set_at(document, tuple(element.locator.path), targets[element.id])
            (root / spec.path).parent.mkdir(parents=True, exist_ok=True)
            dump_yaml(root / spec.path, document)
        elif spec.role is ArtifactRole.PROMPT_CODE or spec.role is ArtifactRole.TOOL_CODE:
            for element in items:
                locator = element.locator
                if not isinstance(locator, PythonLiteralLocator) or locator.role == "docstring":
                    continue  # descriptions reach no check
                overlay.texts.append(literal_overlay_text(element, locator, targets[element.id]))
    variant = family_of(bench.id).open_variant(bench.id, root, overlay)
    try:
        variant.validate_artifacts()
    except Exception as exc:  # noqa: BLE001 - a trial that does not load is a finding of the analysis itself
        raise RuntimeError(f"perturbation trial {round_no} does not load: {exc}") from exc
    return {o.task_id: o for o in variant.replay_golden(task_ids, label=f"analysis: perturbation trial {round_no}")}
