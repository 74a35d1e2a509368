"""A catalogue of realistic translation defects, injected into a copy of a clean variant.

Each kind is a small function `inject(variant_dir, ir, rng) -> InjectedDefect` that mutates the
variant folder in place (callers pass a COPY) and records exactly which field it broke: the IR
element id when the defect sits in one IR field of a data or Markdown artifact, otherwise the
artifact and a location (a JSON path, "<file>", or "<qualname>" / "<qualname> (<role>)" for the
code overlay, which validators address by module and qualified name rather than by IR part).

The target is chosen deterministically by the seeded `rng` among the IR elements the kind suits
(a Preserve enum code, a translated prose field with inline tokens, ...). Files are written back
in their own format (JSON: orjson OPT_INDENT_2, TOML: tomlkit round-trip, Markdown: the block
split joined back), so nothing but the defect changes unless the defect is about the file.

`CATALOGUE` maps kind -> `DefectKind` (the benchmarks it applies to, its usual home first);
`inject_defect(kind, ...)` runs one. A kind raises `DefectNotApplicable` on a variant without a
suitable field.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from babelflow.ir import IRDocument
from bench.defects._common import (
    BEHAVIOR,
    CONSISTENCY,
    FIDELITY,
    INTEGRITY,
    DefectKind,
    DefectNotApplicable,
    InjectedDefect,
)
from bench.defects.agentdojo import (
    agentdojo_brace_in_yaml_prose,
    agentdojo_check_literal_translated_not_data,
    agentdojo_compared_name_renamed_in_environment,
    agentdojo_fstring_slot_translated,
)
from bench.defects.canonical import canonical_db_value_renamed, canonical_gold_value_left_in_source
from bench.defects.code_slots import (
    code_slot_dropped,
    code_slot_expression_translated,
    code_slots_swapped,
    parsed_key_translated,
)
from bench.defects.families import (
    agentdojo_prompt_entity_changed,
    pseudo_word_left_in_assertion,
    status_literal_forced_in_prose,
    status_rendering_doubled,
    task_names_another_product,
)
from bench.defects.preserved import (
    argument_name_translated,
    cancel_reason_translated,
    canonical_entity_two_renderings,
    communicate_info_number_format,
    db_date_localized,
    db_enum_code_translated,
    db_option_value_translated,
    db_value_changed_not_task,
    env_assertion_arg_translated,
    gold_arg_id_translated,
    gold_tool_name_translated,
    guideline_control_token_translated,
    inline_token_dropped,
    inline_token_duplicated,
    reward_basis_translated,
    task_domain_translated,
)
from bench.defects.structure import (
    docstring_header_translated,
    file_missing,
    gold_actions_reordered,
    heading_marker_lost,
    json_malformed,
    json_type_changed,
    key_added,
    key_removed,
    list_element_dropped,
    preserved_code_literal_translated,
)
from bench.defects.tau3 import tau3_class_name_renamed_in_data, tau3_tool_name_translated_in_document
from bench.defects.text import (
    answered_not_translated,
    commentary_added,
    paragraph_untranslated,
    placeholder_left,
    prose_number_changed,
    segment_truncated,
    wrong_target_language,
)

# ---- the catalogue -------------------------------------------------------------------------

MOCK, RETAIL, TELECOM, FIXTURE, AIRLINE = "tau2-mock", "tau2-retail", "tau2-telecom", "fixture-library", "tau2-airline"
AD_TRAVEL, AD_BANKING, AD_SLACK, AD_WORKSPACE = (
    "agentdojo-travel",
    "agentdojo-banking",
    "agentdojo-slack",
    "agentdojo-workspace",
)
TAU3_BANKING = "tau3-banking_knowledge"
_ALL = (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)

_KINDS: list[tuple[Callable, tuple[str, ...]]] = [
    # consistency / behaviour: Preserve values translated or changed
    (db_enum_code_translated, (RETAIL, MOCK, FIXTURE, TELECOM, AIRLINE)),
    (gold_arg_id_translated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (gold_tool_name_translated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (argument_name_translated, (FIXTURE, MOCK, RETAIL, TELECOM, AIRLINE)),
    (canonical_entity_two_renderings, (FIXTURE,)),
    # localized entities (Translate-Canonical): a mention the map missed, in the DB or in a golden value
    (canonical_db_value_renamed, (FIXTURE, RETAIL)),
    (canonical_gold_value_left_in_source, (FIXTURE, RETAIL)),
    # home: the fixture; retail's first names are Translate-Canonical in a pseudo-locale (canonical_db_value_renamed)
    (db_value_changed_not_task, (FIXTURE, RETAIL)),
    (db_option_value_translated, (RETAIL,)),
    (db_date_localized, (FIXTURE, TELECOM, AIRLINE)),
    (task_domain_translated, (FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (reward_basis_translated, (FIXTURE, MOCK, TELECOM)),
    (env_assertion_arg_translated, (TELECOM, MOCK)),
    (cancel_reason_translated, (RETAIL,)),
    (communicate_info_number_format, (FIXTURE, RETAIL, AIRLINE)),
    (inline_token_dropped, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (guideline_control_token_translated, (MOCK, RETAIL, TELECOM, AIRLINE)),
    (preserved_code_literal_translated, (TELECOM, MOCK, FIXTURE, RETAIL, AIRLINE)),
    # fidelity
    (inline_token_duplicated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (segment_truncated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (paragraph_untranslated, (FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (wrong_target_language, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (placeholder_left, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (answered_not_translated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (commentary_added, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (prose_number_changed, (FIXTURE, RETAIL, TELECOM, AIRLINE)),
    # integrity
    (docstring_header_translated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (heading_marker_lost, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (file_missing, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (json_malformed, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (json_type_changed, (FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (key_added, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (key_removed, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (list_element_dropped, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (gold_actions_reordered, (FIXTURE, RETAIL, TELECOM, AIRLINE)),
    # AgentDojo: code and data move together; the environment goes through str.format()
    (agentdojo_check_literal_translated_not_data, (AD_TRAVEL, AD_BANKING, AD_SLACK, AD_WORKSPACE)),
    (agentdojo_brace_in_yaml_prose, (AD_TRAVEL, AD_BANKING, AD_SLACK, AD_WORKSPACE)),
    (agentdojo_fstring_slot_translated, (AD_TRAVEL, AD_BANKING, AD_SLACK, AD_WORKSPACE)),
    # issue 24: pseudo-locale leaks, status misuse, AgentDojo prompt entities the checks compare
    (pseudo_word_left_in_assertion, (MOCK, RETAIL)),
    (status_literal_forced_in_prose, (MOCK, RETAIL, TELECOM)),
    (status_rendering_doubled, (MOCK, RETAIL)),
    (agentdojo_prompt_entity_changed, (AD_SLACK, AD_TRAVEL, AD_BANKING, AD_WORKSPACE)),
    # issue 37: the same name read another way by the environment (a calendar event's title)
    (agentdojo_compared_name_renamed_in_environment, (AD_WORKSPACE,)),
    (task_names_another_product, (RETAIL, FIXTURE)),
    # τ³ banking_knowledge: names the data shares with tools.py
    (tau3_class_name_renamed_in_data, ("tau3-banking_knowledge",)),
    (tau3_tool_name_translated_in_document, ("tau3-banking_knowledge",)),
    # issue 38: code slots and parsed keys, in every family (AgentDojo's prompts parse no reply keys)
    (code_slot_expression_translated, (TELECOM, AD_TRAVEL, TAU3_BANKING, AD_WORKSPACE, RETAIL, MOCK)),
    (code_slot_dropped, (TELECOM, AD_TRAVEL, TAU3_BANKING, AD_WORKSPACE, RETAIL, MOCK)),
    (code_slots_swapped, (TELECOM, AD_TRAVEL, TAU3_BANKING, RETAIL)),
    (parsed_key_translated, (TELECOM, TAU3_BANKING, RETAIL, MOCK)),
]

CATALOGUE: dict[str, DefectKind] = {
    function.__name__: DefectKind(
        name=function.__name__,
        inject=function,
        benchmarks=benchmarks,
        summary=(function.__doc__ or "").strip().splitlines()[0],
    )
    for function, benchmarks in _KINDS
}


def inject_defect(kind: str, variant_dir: Path, ir: IRDocument, rng: random.Random | int = 0) -> InjectedDefect:
    """Inject one defect of `kind` into `variant_dir` (a copy: it is modified in place)."""
    if kind not in CATALOGUE:
        raise KeyError(f"unknown defect kind {kind!r}; known: {', '.join(CATALOGUE)}")
    generator = rng if isinstance(rng, random.Random) else random.Random(rng)
    return CATALOGUE[kind].inject(Path(variant_dir), ir, generator)


def finding_names(finding: Any, defect: InjectedDefect) -> bool:
    """Does a finding name the injected field? Same element id when the defect has one, otherwise
    the same artifact and a layer the defect is expected to show on."""
    if defect.element_id is not None:
        return finding.element_id == defect.element_id
    layer = getattr(finding.layer, "value", finding.layer)
    return finding.artifact == defect.artifact and layer in defect.expected_layers


def caught_by(failures: Any, defect: InjectedDefect) -> list:
    """The findings of a failure set that name the injected field."""
    return [f for f in failures.findings if finding_names(f, defect)]


__all__ = [
    "BEHAVIOR",
    "CATALOGUE",
    "CONSISTENCY",
    "FIDELITY",
    "INTEGRITY",
    "DefectKind",
    "DefectNotApplicable",
    "InjectedDefect",
    "caught_by",
    "finding_names",
    "inject_defect",
]
