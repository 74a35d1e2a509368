"""Defects that translate or change Preserve values, references and control tokens (layers 2 and 4)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from babelflow.ir import ArtifactRole, IRDocument, IRElement, PreserveReason, TranslationType
from bench.defects._common import (
    BEHAVIOR,
    CONSISTENCY,
    FIDELITY,
    INTEGRITY,
    InjectedDefect,
    _accent,
    _artifacts,
    _Doc,
    _edit_element,
    _elements,
    _mistranslate,
    _mistranslate_preserved,
    _pick,
    _record,
    _tasks_json,
    _translated_prose,
    read_by_a_model,
    variant_language,
)

# ---- Layer 2 (consistency) and behaviour: Preserve values translated ----------------------


def db_enum_code_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A status/enum code in the DB translated (retail order status 'pending' -> 'þéñðîñĝ')."""
    dbs = _artifacts(ir, ArtifactRole.DATABASE)
    candidates = _elements(
        ir,
        artifacts=dbs,
        types=[TranslationType.PRESERVE],
        reasons=[PreserveReason.ENUM_CODE],
        role=lambda r: r.endswith("status"),
    )
    candidates = candidates or _elements(
        ir, artifacts=dbs, types=[TranslationType.PRESERVE], reasons=[PreserveReason.ENUM_CODE]
    )
    return _mistranslate_preserved(
        "db_enum_code_translated", "DB status code", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR]
    )


def gold_arg_id_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An identifier in a gold action's arguments translated (task_1 -> ţåšķ_1)."""
    candidates = _elements(
        ir,
        artifacts=[_tasks_json(ir)],
        types=[TranslationType.PRESERVE],
        reasons=[PreserveReason.IDENTIFIER],
        role=lambda r: ".actions[*].arguments." in r and "{key}" not in r,
    )
    return _mistranslate_preserved(
        "gold_arg_id_translated", "gold action id argument", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR]
    )


def gold_tool_name_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """The tool name of a gold action translated."""
    candidates = _elements(
        ir,
        artifacts=[_tasks_json(ir)],
        types=[TranslationType.PRESERVE],
        reasons=[PreserveReason.TOOL_NAME],
        role=lambda r: r.endswith("actions[*].name"),
    )
    return _mistranslate_preserved(
        "gold_tool_name_translated", "gold action tool name", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR]
    )


def argument_name_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An argument name (a key of a gold action's arguments) translated."""
    candidates = _elements(
        ir,
        artifacts=[_tasks_json(ir)],
        types=[TranslationType.PRESERVE],
        reasons=[PreserveReason.ARGUMENT_NAME],
        kinds=("data_key",),
        role=lambda r: ".actions[*].arguments" in r,
    )
    return _mistranslate_preserved(
        "argument_name_translated",
        "gold action argument name",
        candidates,
        variant_dir,
        ir,
        rng,
        [CONSISTENCY, INTEGRITY, BEHAVIOR],
    )


def db_value_changed_not_task(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A DB value the tasks look up (a user's first name) translated in the DB only."""
    tasks = _tasks_json(ir)
    wanted = {
        e.source_text for e in _elements(ir, artifacts=[tasks], role=lambda r: r.endswith("arguments.first_name"))
    }
    candidates = _elements(
        ir,
        artifacts=_artifacts(ir, ArtifactRole.DATABASE),
        types=[TranslationType.PRESERVE],
        role=lambda r: r.endswith("first_name"),
        where=lambda e: e.source_text in wanted,
    )
    return _mistranslate_preserved(
        "db_value_changed_not_task",
        "DB first name used by a task",
        candidates,
        variant_dir,
        ir,
        rng,
        [CONSISTENCY, BEHAVIOR],
    )


def db_option_value_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A product variant option value translated in the DB only (retail 'blue' -> 'ƀļûé')."""
    candidates = _elements(
        ir,
        artifacts=_artifacts(ir, ArtifactRole.DATABASE),
        types=[TranslationType.PRESERVE],
        role=lambda r: "variants.*.options.*" in r and "{key}" not in r,
    )
    return _mistranslate_preserved(
        "db_option_value_translated",
        "DB variant option value",
        candidates,
        variant_dir,
        ir,
        rng,
        [CONSISTENCY, BEHAVIOR],
    )


def db_date_localized(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An ISO date in the DB rewritten in a local format (2024-05-18 -> 18/05/2024)."""
    iso = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
    candidates = _elements(
        ir,
        artifacts=_artifacts(ir, ArtifactRole.DATABASE),
        types=[TranslationType.PRESERVE],
        reasons=[PreserveReason.DATE_TIME],
        where=lambda e: bool(iso.match(e.source_text)),
    )
    element = _pick(rng, candidates, "ISO date in the DB")
    before, after = _edit_element(variant_dir, ir, element, lambda text: iso.sub(r"\3/\2/\1", text))
    return _record(
        "db_date_localized",
        f"DB date localized: {before!r} -> {after!r}",
        element,
        [CONSISTENCY, BEHAVIOR],
        variant_dir,
        ir,
    )


def task_domain_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A task's user_scenario.instructions.domain translated."""
    candidates = _elements(
        ir,
        artifacts=[_tasks_json(ir)],
        types=[TranslationType.PRESERVE],
        role=lambda r: r.endswith("instructions.domain"),
    )
    return _mistranslate_preserved(
        "task_domain_translated", "task domain field", candidates, variant_dir, ir, rng, [CONSISTENCY, INTEGRITY]
    )


def reward_basis_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A reward_basis code (DB, ACTION, COMMUNICATE, ...) translated."""
    candidates = _elements(
        ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: r.endswith("reward_basis[*]")
    )
    return _mistranslate_preserved(
        "reward_basis_translated", "reward_basis code", candidates, variant_dir, ir, rng, [CONSISTENCY, INTEGRITY]
    )


def env_assertion_arg_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An env-assertion argument translated (telecom expected_desc 'excellent')."""
    candidates = _elements(
        ir,
        artifacts=[_tasks_json(ir)],
        types=[TranslationType.PRESERVE],
        role=lambda r: r.endswith("env_assertions[*].arguments.expected_desc"),
    )
    candidates = candidates or _elements(
        ir,
        artifacts=[_tasks_json(ir)],
        types=[TranslationType.PRESERVE],
        role=lambda r: "env_assertions[*].arguments." in r and "{key}" not in r,
    )
    return _mistranslate_preserved(
        "env_assertion_arg_translated",
        "env-assertion argument",
        candidates,
        variant_dir,
        ir,
        rng,
        [CONSISTENCY, BEHAVIOR],
    )


def cancel_reason_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A cancel reason in retail's gold arguments translated ('no longer needed')."""
    candidates = _elements(
        ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: r.endswith("arguments.reason")
    )
    return _mistranslate_preserved(
        "cancel_reason_translated",
        "cancel reason in gold arguments",
        candidates,
        variant_dir,
        ir,
        rng,
        [CONSISTENCY, BEHAVIOR],
    )


def communicate_info_number_format(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A number in communicate_info written in a local format ('1628' -> '1.628', '24.99' -> '24,99')."""
    number = re.compile(r"^\d+(?:\.\d+)?$")

    def localize(text: str) -> str:
        if "." in text:
            return text.replace(".", ",")
        return f"{int(text):,}".replace(",", ".") if len(text) >= 4 else text + ",00"

    candidates = _elements(
        ir,
        artifacts=[_tasks_json(ir)],
        types=[TranslationType.PRESERVE],
        role=lambda r: r.endswith("communicate_info[*]"),
        where=lambda e: bool(number.match(e.source_text)),
    )
    element = _pick(rng, candidates, "number in communicate_info")
    before, after = _edit_element(variant_dir, ir, element, localize)
    return _record(
        "communicate_info_number_format",
        f"communicate_info number reformatted: {before!r} -> {after!r}",
        element,
        [CONSISTENCY],
        variant_dir,
        ir,
    )


def canonical_entity_two_renderings(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A canonical entity (fixture book title) rendered one way in the DB, another in a gold argument."""
    language = variant_language(variant_dir)
    candidates = _elements(
        ir, artifacts=[_tasks_json(ir)], types=[TranslationType.TRANSLATE_CANONICAL], role=lambda r: ".arguments." in r
    )
    element = _pick(rng, candidates, "canonical entity in a gold argument")
    words = element.source_text.split()
    second = " ".join(words[1:]) if len(words) > 1 else element.source_text.upper()  # a shortened second translation
    before, after = _edit_element(variant_dir, ir, element, lambda text: _mistranslate(second, language))
    return _record(
        "canonical_entity_two_renderings",
        f"canonical entity {element.source_text!r} rendered {after!r} here but {before!r} elsewhere",
        element,
        [CONSISTENCY, BEHAVIOR],
        variant_dir,
        ir,
    )


# ---- references and control tokens inside translated prose --------------------------------


def _token_candidates(ir: IRDocument, variant_dir: Path, data_only: bool = True) -> list[tuple[IRElement, str]]:
    pairs = []
    docs: dict[str, _Doc] = {}
    for element in _translated_prose(ir, variant_dir, tokens=True, data_only=data_only):
        if not read_by_a_model(ir, element):
            continue  # maintainer metadata: not held to fidelity
        if element.artifact not in docs:
            docs[element.artifact] = _Doc(variant_dir, ir, element.artifact)
        doc = docs[element.artifact]
        target = doc.text_of(element) or ""
        for token in element.inline_tokens:
            if target.count(token) == element.source_text.count(token) >= 1:
                pairs.append((element, token))
    return pairs


def inline_token_dropped(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """One protected inline token (an id, a quoted name) dropped from translated prose."""
    element, token = _pick(rng, _token_candidates(ir, variant_dir), "translated prose with inline tokens")
    _edit_element(variant_dir, ir, element, lambda text: re.sub(r"\s*" + re.escape(token), "", text, count=1))
    return _record(
        "inline_token_dropped",
        f"inline token {token!r} removed from the translation",
        element,
        [CONSISTENCY],
        variant_dir,
        ir,
    )


def inline_token_duplicated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """One protected inline token written twice in translated prose."""
    element, token = _pick(rng, _token_candidates(ir, variant_dir), "translated prose with inline tokens")
    _edit_element(variant_dir, ir, element, lambda text: text.replace(token, f"{token} {token}", 1))
    return _record(
        "inline_token_duplicated",
        f"inline token {token!r} duplicated in the translation",
        element,
        [FIDELITY],
        variant_dir,
        ir,
    )


def guideline_control_token_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """###STOP### in the user-simulator guidelines translated (###ŠŢÖÞ###)."""
    language = variant_language(variant_dir)
    guidelines = _artifacts(ir, ArtifactRole.USER_GUIDELINES)
    candidates = [
        (e, t)
        for e, t in _token_candidates(ir, variant_dir, data_only=False)
        if e.artifact in guidelines and t.startswith("###") and t.endswith("###")
    ]
    stops = [(e, t) for e, t in candidates if t == "###STOP###"]
    element, token = _pick(rng, stops or candidates, "control token in the user-simulator guidelines")
    translated = "###" + _accent(token.strip("#"), language) + "###"
    _edit_element(variant_dir, ir, element, lambda text: text.replace(token, translated))
    return _record(
        "guideline_control_token_translated",
        f"control token {token!r} translated to {translated!r}",
        element,
        [CONSISTENCY],
        variant_dir,
        ir,
    )
