"""Defects a reviewer finds without a model on pseudo-locales and AgentDojo (issue 24).

- one source word left untranslated inside a translated evaluation assertion (en-XA: the word
  stands unaccented in accented text);
- a status literal forced into a sentence that uses the word in its ordinary sense ("the item
  was delivered" -> "… ŵåš 'delivered'"): the sentence now names an order status;
- a status rendered twice side by side (the word translated and its literal kept: "ðéļîṽéŕéð
  'delivered'", the Chinese corpus's "已 已送达");
- AgentDojo: a quoted entity of a task prompt that the task's own checks compare (a Slack channel)
  renamed by the translation;
- a product the task's prose names, written with another product's rendering (the Chinese
  variant's tasks 5-9 say 水壶, the kettle's name, for the water bottle its catalogue calls 水瓶).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from babelflow.ir import ArtifactRole, IRDocument, PreserveReason, TranslationType
from babelflow.variant import OVERLAY_NAME, load_overlay, save_record
from bench.defects._common import (
    CONSISTENCY,
    FIDELITY,
    DefectNotApplicable,
    InjectedDefect,
    _accent,
    _artifacts,
    _Doc,
    _edit_element,
    _pick,
    _record,
    _translated_prose,
    read_by_a_model,
    variant_language,
)

_WORD = re.compile(r"(?<![\w'-])[a-z]{4,}(?![\w'-])")


def _accented_only(variant_dir: Path) -> str:
    language = variant_language(variant_dir)
    if language != "en-XA":
        raise DefectNotApplicable(f"a pseudo-locale leak needs an accented variant, not {language}")
    return language


def _current(variant_dir: Path, ir: IRDocument, element) -> str | None:
    return _Doc(variant_dir, ir, element.artifact).text_of(element)


def pseudo_word_left_in_assertion(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """One source word of a translated evaluation assertion (nl_assertions) left in English."""
    language = _accented_only(variant_dir)
    tasks = _artifacts(ir, ArtifactRole.TASKS)
    candidates = []
    for element in _translated_prose(ir, variant_dir, min_length=20, artifacts=tasks, data_only=True):
        if "nl_assertions" not in element.role:
            continue
        target = _current(variant_dir, ir, element) or ""
        words = [w for w in _WORD.findall(element.source_text) if w not in element.inline_tokens]
        words = [w for w in words if re.search(rf"(?<!\w){re.escape(_accent(w, language))}(?!\w)", target)]
        if words:
            candidates.append((element, words))
    element, words = _pick(rng, candidates, "translated evaluation assertion")
    word = words[rng.randrange(len(words))]
    accented = _accent(word, language)
    _edit_element(
        variant_dir, ir, element, lambda text: re.sub(rf"(?<!\w){re.escape(accented)}(?!\w)", word, text, count=1)
    )
    return _record(
        "pseudo_word_left_in_assertion",
        f"{accented!r} put back to English {word!r} in an evaluation assertion",
        element,
        [FIDELITY],
        variant_dir,
        ir,
    )


def _status_values(ir: IRDocument) -> set[str]:
    return {
        e.source_text
        for e in ir.elements
        if e.preserve_reason is PreserveReason.ENUM_CODE and re.fullmatch(r"[a-z]{4,}", e.source_text)
    }


def status_literal_forced_in_prose(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A status literal ('pending', 'delivered') forced into a translated sentence whose source uses the word
    in its ordinary sense: the literal replaces the word's translation."""
    language = _accented_only(variant_dir)
    statuses = _status_values(ir)
    candidates = []
    for element in _translated_prose(ir, variant_dir, min_length=20, data_only=True):
        if not read_by_a_model(ir, element):
            continue
        target = _current(variant_dir, ir, element) or ""
        words = [
            w
            for w in statuses
            if w not in element.inline_tokens
            and re.search(rf"(?<![\w'-]){w}(?![\w'-])", element.source_text)
            # the ordinary sense: not 'pending status' / 'status is pending', where the word names the status
            and not re.search(rf"{w}\W+status|status\W+(?:\w+\W+)?{w}", element.source_text, re.I)
            and re.search(rf"(?<!\w){re.escape(_accent(w, language))}(?!\w)", target)
        ]
        if words:
            candidates.append((element, sorted(words)))
    element, words = _pick(rng, candidates, "translated sentence using a status word in its ordinary sense")
    word = words[rng.randrange(len(words))]
    accented = _accent(word, language)
    _edit_element(
        variant_dir,
        ir,
        element,
        lambda text: re.sub(rf"(?<!\w){re.escape(accented)}(?!\w)", f"'{word}'", text, count=1),
    )
    return _record(
        "status_literal_forced_in_prose",
        f"status literal '{word}' forced where the source says {word!r} as an ordinary word",
        element,
        [FIDELITY],
        variant_dir,
        ir,
    )


def status_rendering_doubled(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A status rendered twice side by side: its translation added before the literal the translation
    keeps ("ðéļîṽéŕéð 'delivered'")."""
    language = variant_language(variant_dir)
    statuses = _status_values(ir)
    candidates = []
    for element in _translated_prose(ir, variant_dir, min_length=20, tokens=True):
        if not read_by_a_model(ir, element):
            continue
        target = _current(variant_dir, ir, element) or ""
        kept = [w for w in statuses if w in element.inline_tokens and re.search(rf"(?<!\w){w}(?!\w)", target)]
        if kept:
            candidates.append((element, sorted(kept)))
    element, words = _pick(rng, candidates, "translated text naming a status")
    word = words[rng.randrange(len(words))]
    rendering = _accent(word, language if language in ("en-XA", "ar-XB") else "en-XA")
    _edit_element(
        variant_dir,
        ir,
        element,
        lambda text: re.sub(rf"(?<!\w)('?){word}(?!\w)", lambda m: f"{rendering} {m.group(0)}", text, count=1),
    )
    return _record(
        "status_rendering_doubled",
        f"status '{word}' doubled: {rendering} '{word}'",
        element,
        [FIDELITY],
        variant_dir,
        ir,
    )


def agentdojo_prompt_entity_changed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A quoted entity of a task prompt (a Slack channel, a file name) that the task's own checks compare,
    renamed in the translated prompt."""
    language = variant_language(variant_dir)
    overlay = load_overlay(Path(variant_dir) / OVERLAY_NAME)
    if overlay is None:
        raise DefectNotApplicable("the variant has no code overlay")
    texts = {(t.module, t.qualname, t.role, t.occurrence): t for t in overlay.texts}
    compared: dict[tuple[str, str], set[str]] = {}  # (module, task class) -> literals its methods hold
    for e in ir.elements:
        if e.locator.kind == "python_literal" and e.locator.qualname.count(".") == 1 and e.role.startswith("task_code"):
            task, member = e.locator.qualname.split(".")
            if member in ("utility", "security", "ground_truth", "utility_from_traces", "security_from_traces"):
                compared.setdefault((e.artifact, task), set()).add(e.source_text)
    candidates = []
    for e in ir.elements:
        if e.role != "task_code:attribute" or e.translation_type is TranslationType.PRESERVE:
            continue
        task, attribute = (e.locator.qualname.split(".") + [""])[:2]
        if attribute not in ("PROMPT", "GOAL"):
            continue
        text = texts.get((e.artifact, e.locator.qualname, e.locator.role, e.locator.occurrence))
        literals = compared.get((e.artifact, task), set())
        quoted = [
            q
            for q in re.findall(r"'([^'\n]{3,40})'|\"([^\"\n]{3,40})\"", e.source_text)
            for q in q
            if q and q in literals and q in e.inline_tokens
        ]
        if text is not None and any(f"'{q}'" in text.target or f'"{q}"' in text.target for q in quoted):
            candidates.append((e, text, quoted))
    element, text, quoted = _pick(rng, candidates, "task prompt quoting a value its checks compare")
    value = next(q for q in quoted if f"'{q}'" in text.target or f'"{q}"' in text.target)
    # a translator's capital ('general' -> 'General'), else the pseudo rendering: either names another value
    renamed = value[:1].upper() + value[1:] if value[:1].islower() else _accent(value, language or "en-XA")
    text.target = text.target.replace(f"'{value}'", f"'{renamed}'").replace(f'"{value}"', f'"{renamed}"')
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(
        kind="agentdojo_prompt_entity_changed",
        description=f"{element.locator.qualname}: quoted {value!r} (compared by the task's checks) renamed {renamed!r}",
        artifact=element.artifact,
        element_id=element.id,
        location=f"{element.locator.qualname} ({element.locator.role})",
        expected_layers=[CONSISTENCY, FIDELITY],
    )


def _catalogue_renderings(variant_dir: Path, ir: IRDocument) -> dict[str, dict[str, str]]:
    """role of a catalogue field (products.*.name) -> {value: the variant's rendering}, where the variant renders
    it (a kept entity the variant's DB renders anyway, or a Translate-Canonical one)."""
    out: dict[str, dict[str, str]] = {}
    for artifact in _artifacts(ir, ArtifactRole.DATABASE):
        doc = _Doc(variant_dir, ir, artifact)
        for element in ir.elements:
            entity = element.preserve_reason is PreserveReason.LINKED_ENTITY or (
                element.translation_type is TranslationType.TRANSLATE_CANONICAL
            )
            if (
                element.artifact != artifact
                or not entity
                or element.locator.kind != "data_value"
                or not element.source_text[:1].isupper()  # a name, not an option word ('2 liters', 'medium')
                or not re.search(r"[A-Za-z]{3}", element.source_text)
            ):
                continue
            rendering = doc.text_of(element)
            if rendering and rendering != element.source_text:
                out.setdefault(element.role, {}).setdefault(element.source_text, rendering)
    return out


def task_names_another_product(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A product named in a task's prose written with another product's catalogue rendering."""
    catalogues = [names for names in _catalogue_renderings(variant_dir, ir).values() if len(names) >= 2]
    candidates = []
    for element in _translated_prose(ir, variant_dir, min_length=20, artifacts=_artifacts(ir, ArtifactRole.TASKS)):
        if not read_by_a_model(ir, element):
            continue
        target = _current(variant_dir, ir, element) or ""
        for names in catalogues:
            named = [v for v in names if re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", element.source_text, re.I)]
            for value in named:
                if names[value].casefold() not in target.casefold():
                    continue
                others = [
                    v
                    for v in names
                    if v not in named
                    and value.casefold() not in v.casefold()
                    and names[v].casefold() not in target.casefold()
                ]
                if others:
                    candidates.append((element, value, names[value], names[others[rng.randrange(len(others))]]))
    element, value, rendering, other = _pick(rng, candidates, "task prose naming a rendered catalogue entity")
    _edit_element(variant_dir, ir, element, lambda text: re.sub(re.escape(rendering), other, text, count=1, flags=re.I))
    return _record(
        "task_names_another_product",
        f"{value!r} named in task prose as {other!r}, another product's rendering (the catalogue: {rendering!r})",
        element,
        [CONSISTENCY],
        variant_dir,
        ir,
    )


__all__ = [
    "agentdojo_prompt_entity_changed",
    "pseudo_word_left_in_assertion",
    "status_literal_forced_in_prose",
    "status_rendering_doubled",
    "task_names_another_product",
]
