"""AgentDojo defect kinds: code and data that must move together, and the environment's str.format().

The variant's YAML is edited through the same ruamel round trip the rebuild uses; texts that live
in Python are edited in the code overlay.
"""

from __future__ import annotations

import random
from pathlib import Path

from babelflow.ir import IRDocument, PreserveReason, TranslationType
from babelflow.variant import OVERLAY_NAME, CodeText, load_overlay, save_record
from bench.defects._common import (
    BEHAVIOR,
    CONSISTENCY,
    INTEGRITY,
    DefectNotApplicable,
    InjectedDefect,
    _accent,
    _pick,
    variant_language,
)
from source_benchmarks.yaml_io import dump_yaml, load_yaml, set_at, string_leaves


def _yaml_value(variant_dir: Path, element) -> str | None:
    return dict(string_leaves(load_yaml(Path(variant_dir) / element.artifact))).get(tuple(element.locator.path))


def _set_yaml(variant_dir: Path, element, text: str) -> None:
    path = Path(variant_dir) / element.artifact
    document = load_yaml(path)
    set_at(document, tuple(element.locator.path), text)
    dump_yaml(path, document)


def agentdojo_check_literal_translated_not_data(
    variant_dir: Path, ir: IRDocument, rng: random.Random
) -> InjectedDefect:
    """A value a check compares (a canonical literal of utility()/security()/ground_truth()) translated in the code,
    its YAML value left in English."""
    in_code = {
        e.source_text
        for e in ir.elements
        if e.locator.kind == "python_literal"
        and e.locator.role == "constant"
        and e.translation_type is TranslationType.TRANSLATE_CANONICAL
    }
    candidates = [
        e
        for e in ir.elements
        if e.locator.kind == "data_value"
        and e.translation_type is TranslationType.TRANSLATE_CANONICAL
        and e.source_text in in_code
    ]
    if (
        not candidates
    ):  # every link of this suite is kept: translate a kept check literal, its YAML value stays as it is
        return _kept_check_literal_translated(variant_dir, ir, rng)
    element = _pick(rng, candidates, "YAML value a check literal holds")
    before = _yaml_value(variant_dir, element)
    if before is None or before == element.source_text:
        raise DefectNotApplicable(f"{element.id} is not translated in the variant")
    _set_yaml(variant_dir, element, element.source_text)
    return InjectedDefect(
        kind="agentdojo_check_literal_translated_not_data",
        description=(
            f"YAML value {before!r} put back to English {element.source_text!r} while the check literal stays "
            "translated"
        ),
        artifact=element.artifact,
        element_id=element.id,
        location=str(list(element.locator.path)),
        expected_layers=[CONSISTENCY, BEHAVIOR],
    )


def _kept_check_literal_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    language = variant_language(variant_dir)
    in_data = [e.source_text.lower() for e in ir.elements if e.locator.kind == "data_value"]
    candidates = [
        e
        for e in ir.elements
        if e.locator.kind == "python_literal"
        and e.locator.role == "constant"
        and e.translation_type is TranslationType.PRESERVE
        and (e.typing_rule.startswith("trial") or e.typing_rule == "code: lowercase check token")
        and len(e.source_text) >= 3
        and any(e.source_text.lower() in value for value in in_data)
        and _accent(e.source_text, language) != e.source_text
    ]
    element = _pick(rng, candidates, "kept check literal the data holds")
    overlay = load_overlay(Path(variant_dir) / OVERLAY_NAME)
    if overlay is None:
        raise DefectNotApplicable("the variant has no code overlay")
    target = _accent(element.source_text, language)
    loc = element.locator
    overlay.texts.append(
        CodeText(
            module=element.artifact,
            qualname=loc.qualname,
            role=loc.role,
            occurrence=loc.occurrence,
            source=element.source_text,
            target=target,
        )
    )
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(
        kind="agentdojo_check_literal_translated_not_data",
        description=(
            f"check literal {element.source_text!r} of {loc.qualname} translated to {target!r}; its YAML value kept"
        ),
        artifact=element.artifact,
        element_id=element.id,
        location=f"{loc.qualname} ({loc.role})",
        expected_layers=[CONSISTENCY, BEHAVIOR],
    )


def agentdojo_brace_in_yaml_prose(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A stray brace added to translated prose of the environment YAML
    (the whole environment goes through str.format())."""
    candidates = [
        e
        for e in ir.elements
        if e.locator.kind == "data_value"
        and e.translation_type is TranslationType.TRANSLATE_FREE
        and (e.artifact.endswith("environment.yaml") or "/include/" in e.artifact)
    ]
    element = _pick(rng, candidates, "translated environment prose")
    before = _yaml_value(variant_dir, element)
    if before is None:
        raise DefectNotApplicable(f"{element.id} cannot be located in the variant")
    words = before.split(" ")
    cut = rng.randrange(1, len(words)) if len(words) > 1 else 1
    after = " ".join(
        words[:cut] + ["{" + words[cut - 1].strip(".,") + "}"] + words[cut:]
    )  # a translator that "formatted" a word
    _set_yaml(variant_dir, element, after)
    return InjectedDefect(
        kind="agentdojo_brace_in_yaml_prose",
        description=f"brace slot added: {after[:120]!r}",
        artifact=element.artifact,
        element_id=element.id,
        location=str(list(element.locator.path)),
        expected_layers=[INTEGRITY],
    )


def agentdojo_fstring_slot_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An f-string prompt's slot value (a module or class constant the data and checks hold) rendered differently
    from the constant in the translated prompt."""
    language = variant_language(variant_dir)
    overlay = load_overlay(Path(variant_dir) / OVERLAY_NAME)
    if overlay is None:
        raise DefectNotApplicable("the variant has no code overlay")
    targets = {(t.module, t.qualname, t.role, t.occurrence): t for t in overlay.texts}
    constants = {
        e.source_text
        for e in ir.elements
        if e.locator.kind == "python_literal"
        and e.role in ("task_code:class_constant", "task_code:module_constant", "task_code:function_literal")
    }
    candidates = []
    for e in ir.elements:
        if e.role != "task_code:attribute" or e.locator.qualname.split(".")[-1] not in ("PROMPT", "GOAL"):
            continue
        text = targets.get((e.artifact, e.locator.qualname, e.locator.role, e.locator.occurrence))
        slots = [t for t in e.inline_tokens if t in constants and len(t) >= 4]
        if text is not None and slots:
            candidates.append((e, text, slots))
    element, text, slots = _pick(rng, candidates, "prompt with a constant's value in a slot")
    token = slots[rng.randrange(len(slots))]
    rendered = next((t.target for t in overlay.texts if t.source == token and t.role == "constant"), token)
    wrong = _accent(token, language) + "·"
    if rendered not in text.target:
        raise DefectNotApplicable(f"{token!r} is not rendered in {element.locator.qualname}")
    text.target = text.target.replace(rendered, wrong)
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(
        kind="agentdojo_fstring_slot_translated",
        description=f"{element.locator.qualname}: slot value {token!r} rendered {wrong!r} instead of {rendered!r}",
        artifact=element.artifact,
        element_id=element.id,
        location=f"{element.locator.qualname} (prompt)",
        expected_layers=[CONSISTENCY],
    )


__all__ = [
    "agentdojo_brace_in_yaml_prose",
    "agentdojo_check_literal_translated_not_data",
    "agentdojo_fstring_slot_translated",
]


def agentdojo_compared_name_renamed_in_environment(
    variant_dir: Path, ir: IRDocument, rng: random.Random
) -> InjectedDefect:
    """A name a task's prompt quotes and its check compares (a calendar event's title) rendered one new way in
    every environment field that holds it, the prompt and the check unchanged."""
    language = variant_language(variant_dir)
    compared: dict[tuple[str, str], set[str]] = {}  # (module, task class) -> literals of its checks and constants
    prompts: list = []
    for e in ir.elements:
        if e.locator.kind != "python_literal" or e.locator.qualname.count(".") != 1:
            continue
        task, member = e.locator.qualname.split(".")
        if member in ("PROMPT", "GOAL"):
            prompts.append(e)
        else:
            compared.setdefault((e.artifact, task), set()).add(e.source_text)
    quoted = {
        token
        for e in prompts
        for token in e.inline_tokens
        if token in compared.get((e.artifact, e.locator.qualname.split(".")[0]), set())
    }
    holders: dict[str, list] = {}
    for e in ir.elements:
        if e.locator.kind == "data_value" and e.source_text in quoted and "injection_vectors" not in e.artifact:
            holders.setdefault(e.source_text, []).append(e)
    # a name several fields hold, each as a linked entity: renamed in all of them it reads as the variant's policy
    candidates = sorted(
        value
        for value, elements in holders.items()
        if len(elements) >= 2 and all(e.preserve_reason is PreserveReason.LINKED_ENTITY for e in elements)
    )
    value = _pick(rng, candidates, "name a prompt quotes, its check compares and several environment fields hold")
    renamed = _accent(value, language or "en-XA")
    for element in holders[value]:
        if _yaml_value(variant_dir, element) != value:
            raise DefectNotApplicable(f"{element.id} does not hold {value!r} in the variant")
        _set_yaml(variant_dir, element, renamed)
    first = holders[value][0]
    return InjectedDefect(
        kind="agentdojo_compared_name_renamed_in_environment",
        description=f"{value!r} (quoted by a prompt, compared by its check) reads {renamed!r} in "
        f"{len(holders[value])} environment field(s)",
        artifact=first.artifact,
        element_id=first.id,
        location=str(list(first.locator.path)),
        expected_layers=[CONSISTENCY],
    )
