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
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import orjson
import tomlkit
from pydantic import Field

from babelflow.atomic_io import write_bytes_atomic, write_text_atomic
from babelflow.ir import ArtifactFormat, ArtifactRole, IRElement, IRDocument, PreserveReason, Record, TranslationType
from babelflow.markdown_blocks import split_markdown
from babelflow.variant import MANIFEST_NAME, OVERLAY_NAME, CodeOverlay, CodeText, save_record
from translators.pseudo_locale import pseudo_translate_text

INTEGRITY, CONSISTENCY, FIDELITY, BEHAVIOR = "integrity", "consistency", "fidelity", "behavior"


class InjectedDefect(Record):
    kind: str
    description: str
    artifact: str = Field(description="artifact path (data file, or module path for code-overlay defects)")
    element_id: str | None = Field(default=None, description="IR element id when the defect is in one IR field")
    location: str = Field(description="JSON path, markdown block, '<file>', or overlay qualname")
    expected_layers: list[str]
    task_id: str | None = Field(default=None, description="task the defect touches, when there is one")


class DefectNotApplicable(Exception):
    """The variant has no field this defect kind can target."""


@dataclass(frozen=True)
class DefectKind:
    name: str
    inject: Callable[[Path, IRDocument, random.Random], InjectedDefect]
    benchmarks: tuple[str, ...]  # where the kind applies; the first is its usual home
    summary: str


# ---- file helpers ---------------------------------------------------------------------------


def variant_language(variant_dir: Path) -> str:
    """The variant's language, from its manifest (overlay as fallback)."""
    for name in (MANIFEST_NAME, OVERLAY_NAME):
        path = Path(variant_dir) / name
        if path.exists():
            return orjson.loads(path.read_bytes())["language"]
    raise DefectNotApplicable(f"{variant_dir} has neither {MANIFEST_NAME} nor {OVERLAY_NAME}")


def _format_of(ir: IRDocument, artifact: str) -> ArtifactFormat:
    for fingerprint in ir.artifacts:
        if fingerprint.path == artifact:
            return fingerprint.format
    suffix = Path(artifact).suffix
    return {".json": ArtifactFormat.JSON, ".toml": ArtifactFormat.TOML, ".md": ArtifactFormat.MARKDOWN}.get(suffix, ArtifactFormat.PYTHON)


def _artifacts(ir: IRDocument, role: ArtifactRole, fmt: ArtifactFormat | None = None) -> list[str]:
    return [a.path for a in ir.artifacts if a.role is role and (fmt is None or a.format is fmt)]


def _load(variant_dir: Path, artifact: str, fmt: ArtifactFormat) -> Any:
    path = Path(variant_dir) / artifact
    if fmt is ArtifactFormat.JSON:
        return orjson.loads(path.read_bytes())
    if fmt is ArtifactFormat.TOML:
        return tomlkit.parse(path.read_text(encoding="utf-8"))  # a tomlkit document: layout kept on dump
    return path.read_text(encoding="utf-8")


def _save(variant_dir: Path, artifact: str, fmt: ArtifactFormat, value: Any) -> None:
    path = Path(variant_dir) / artifact
    if fmt is ArtifactFormat.JSON:
        write_bytes_atomic(path, orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS) + b"\n")
    elif fmt is ArtifactFormat.TOML:
        write_text_atomic(path, tomlkit.dumps(value))
    else:
        write_text_atomic(path, value)


def _get(document: Any, path: Iterable) -> Any:
    for segment in path:
        document = document[segment]
    return document


def json_path(path: Iterable) -> str:
    """The `$['a'][0]` notation the integrity probe uses for locations."""
    return "$" + "".join(f"[{p!r}]" for p in path)


class _Doc:
    """One loaded data/Markdown artifact of the variant, edited then written back once."""

    def __init__(self, variant_dir: Path, ir: IRDocument, artifact: str):
        self.variant_dir, self.artifact = Path(variant_dir), artifact
        self.fmt = _format_of(ir, artifact)
        self.value = _load(variant_dir, artifact, self.fmt)

    def text_of(self, element: IRElement) -> str | None:
        locator = element.locator
        try:
            if locator.kind == "data_value":
                value = _get(self.value, locator.path)
                return str(value) if isinstance(value, str) else None
            if locator.kind == "data_key":
                return locator.path[-1] if locator.path[-1] in _get(self.value, locator.path[:-1]) else None
            if locator.kind == "markdown_block":
                blocks = split_markdown(self.value).blocks
                return blocks[locator.block_index].text if locator.block_index < len(blocks) else None
        except (KeyError, IndexError, TypeError):
            return None
        return None

    def set_text(self, element: IRElement, text: str) -> None:
        locator = element.locator
        if locator.kind == "data_value":
            _get(self.value, locator.path[:-1])[locator.path[-1]] = text
        elif locator.kind == "data_key":
            parent = _get(self.value, locator.path[:-1])
            renamed = {(text if key == locator.path[-1] else key): value for key, value in parent.items()}
            parent.clear()
            parent.update(renamed)
        elif locator.kind == "markdown_block":
            self.value = split_markdown(self.value).join({locator.block_index: text})
        else:
            raise ValueError(f"cannot edit a {locator.kind} locator in a data file")

    def save(self) -> None:
        _save(self.variant_dir, self.artifact, self.fmt, self.value)


def _pick(rng: random.Random, candidates: list, what: str):
    if not candidates:
        raise DefectNotApplicable(f"no {what} in this variant")
    return candidates[rng.randrange(len(candidates))]


def _location(element: IRElement) -> str:
    locator = element.locator
    if locator.kind in ("data_value", "data_key"):
        return json_path(locator.path)
    if locator.kind == "markdown_block":
        return f"block {locator.block_index}"
    return f"{locator.qualname} ({locator.role})"


def _task_id(variant_dir: Path, ir: IRDocument, element: IRElement) -> str | None:
    """The id of the task a tasks.json element belongs to (tasks.json is a list of tasks)."""
    if element.locator.kind not in ("data_value", "data_key") or element.artifact not in _artifacts(ir, ArtifactRole.TASKS):
        return None
    if not element.locator.path or not isinstance(element.locator.path[0], int):
        return None
    for other in ir.elements:
        if other.artifact == element.artifact and other.locator.kind == "data_value" and tuple(other.locator.path) == (element.locator.path[0], "id"):
            return other.source_text
    return None


def _record(kind: str, description: str, element: IRElement, layers: list[str], variant_dir: Path, ir: IRDocument) -> InjectedDefect:
    return InjectedDefect(
        kind=kind, description=description, artifact=element.artifact, element_id=element.id, location=_location(element),
        expected_layers=layers, task_id=_task_id(variant_dir, ir, element),
    )


def _mistranslate(text: str, language: str) -> str:
    """What a translator that ignored the Preserve type would produce (the pseudo rendering)."""
    return pseudo_translate_text(text, language if language in ("en-XA", "ar-XB") else "en-XA")


def _accent(word: str, language: str) -> str:
    """A word rendered in the pseudo-locale without brackets or padding (e.g. STOP -> ŠŢÖÞ)."""
    if language == "ar-XB":
        return pseudo_translate_text(word, "ar-XB")
    rendered = pseudo_translate_text(word, "en-XA")
    return rendered[1 : 1 + len(word)] if rendered.startswith("[") else rendered


_HAS_LETTER = re.compile(r"[^\W\d_]")


def _elements(ir: IRDocument, *, artifacts: Iterable[str] | None = None, types: Iterable[TranslationType] | None = None,
              reasons: Iterable[PreserveReason] | None = None, kinds: Iterable[str] = ("data_value",),
              role: Callable[[str], bool] = lambda r: True, where: Callable[[IRElement], bool] = lambda e: True) -> list[IRElement]:
    wanted_artifacts = set(artifacts) if artifacts is not None else None
    wanted_types = set(types) if types is not None else None
    wanted_reasons = set(reasons) if reasons is not None else None
    wanted_kinds = set(kinds)
    return [
        e for e in ir.elements
        if e.locator.kind in wanted_kinds
        and (wanted_artifacts is None or e.artifact in wanted_artifacts)
        and (wanted_types is None or e.translation_type in wanted_types)
        and (wanted_reasons is None or e.preserve_reason in wanted_reasons)
        and role(e.role) and where(e)
    ]


def _edit_element(variant_dir: Path, ir: IRDocument, element: IRElement, change: Callable[[str], str]) -> tuple[str, str]:
    """Apply `change` to the element's current target text; returns (before, after)."""
    doc = _Doc(variant_dir, ir, element.artifact)
    before = doc.text_of(element)
    if before is None:
        raise DefectNotApplicable(f"element {element.id} cannot be located in the variant")
    after = change(before)
    if after == before:
        raise DefectNotApplicable(f"the change leaves {element.id} unchanged")
    doc.set_text(element, after)
    doc.save()
    return before, after


def _mistranslate_preserved(kind: str, what: str, candidates: list[IRElement], variant_dir: Path, ir: IRDocument, rng: random.Random, layers: list[str]) -> InjectedDefect:
    language = variant_language(variant_dir)
    candidates = [e for e in candidates if _HAS_LETTER.search(e.source_text) and _mistranslate(e.source_text, language) != e.source_text]
    element = _pick(rng, candidates, what)
    before, after = _edit_element(variant_dir, ir, element, lambda text: _mistranslate(text, language))
    return _record(kind, f"{what} translated: {before!r} -> {after!r}", element, layers, variant_dir, ir)


def _translated_prose(ir: IRDocument, variant_dir: Path, *, min_length: int = 0, tokens: bool | None = None, artifacts: Iterable[str] | None = None,
                      block_kinds: Iterable[str] | None = None, data_only: bool = False) -> list[IRElement]:
    """Translate-Free prose fields (data values and Markdown blocks) that were translated."""
    kinds = ("data_value",) if data_only else ("data_value", "markdown_block")
    allowed_blocks = set(block_kinds) if block_kinds is not None else None
    return _elements(
        ir, artifacts=artifacts, types=[TranslationType.TRANSLATE_FREE], kinds=kinds,
        where=lambda e: len(e.source_text) >= min_length
        and _HAS_LETTER.search(e.source_text) is not None
        and (tokens is None or bool(e.inline_tokens) == tokens)
        and (allowed_blocks is None or e.locator.kind != "markdown_block" or e.locator.block_kind in allowed_blocks),
    )


def _tasks_json(ir: IRDocument) -> str:
    tasks = _artifacts(ir, ArtifactRole.TASKS, ArtifactFormat.JSON)
    if not tasks:
        raise DefectNotApplicable("no JSON task file")
    return tasks[0]


# ---- Layer 2 (consistency) and behaviour: Preserve values translated ----------------------


def db_enum_code_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A status/enum code in the DB translated (retail order status 'pending' -> 'þéñðîñĝ')."""
    dbs = _artifacts(ir, ArtifactRole.DATABASE)
    candidates = _elements(ir, artifacts=dbs, types=[TranslationType.PRESERVE], reasons=[PreserveReason.ENUM_CODE], role=lambda r: r.endswith("status"))
    candidates = candidates or _elements(ir, artifacts=dbs, types=[TranslationType.PRESERVE], reasons=[PreserveReason.ENUM_CODE])
    return _mistranslate_preserved("db_enum_code_translated", "DB status code", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR])


def gold_arg_id_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An identifier in a gold action's arguments translated (task_1 -> ţåšķ_1)."""
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], reasons=[PreserveReason.IDENTIFIER],
                           role=lambda r: ".actions[*].arguments." in r and "{key}" not in r)
    return _mistranslate_preserved("gold_arg_id_translated", "gold action id argument", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR])


def gold_tool_name_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """The tool name of a gold action translated."""
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], reasons=[PreserveReason.TOOL_NAME], role=lambda r: r.endswith("actions[*].name"))
    return _mistranslate_preserved("gold_tool_name_translated", "gold action tool name", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR])


def argument_name_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An argument name (a key of a gold action's arguments) translated."""
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], reasons=[PreserveReason.ARGUMENT_NAME], kinds=("data_key",),
                           role=lambda r: ".actions[*].arguments" in r)
    return _mistranslate_preserved("argument_name_translated", "gold action argument name", candidates, variant_dir, ir, rng, [CONSISTENCY, INTEGRITY, BEHAVIOR])


def db_value_changed_not_task(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A DB value the tasks look up (a user's first name) translated in the DB only."""
    tasks = _tasks_json(ir)
    wanted = {e.source_text for e in _elements(ir, artifacts=[tasks], role=lambda r: r.endswith("arguments.first_name"))}
    candidates = _elements(ir, artifacts=_artifacts(ir, ArtifactRole.DATABASE), types=[TranslationType.PRESERVE], role=lambda r: r.endswith("first_name"),
                           where=lambda e: e.source_text in wanted)
    return _mistranslate_preserved("db_value_changed_not_task", "DB first name used by a task", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR])


def db_option_value_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A product variant option value translated in the DB only (retail 'blue' -> 'ƀļûé')."""
    candidates = _elements(ir, artifacts=_artifacts(ir, ArtifactRole.DATABASE), types=[TranslationType.PRESERVE], role=lambda r: "variants.*.options.*" in r and "{key}" not in r)
    return _mistranslate_preserved("db_option_value_translated", "DB variant option value", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR])


def db_date_localized(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An ISO date in the DB rewritten in a local format (2024-05-18 -> 18/05/2024)."""
    iso = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
    candidates = _elements(ir, artifacts=_artifacts(ir, ArtifactRole.DATABASE), types=[TranslationType.PRESERVE], reasons=[PreserveReason.DATE_TIME], where=lambda e: bool(iso.match(e.source_text)))
    element = _pick(rng, candidates, "ISO date in the DB")
    before, after = _edit_element(variant_dir, ir, element, lambda text: iso.sub(r"\3/\2/\1", text))
    return _record("db_date_localized", f"DB date localized: {before!r} -> {after!r}", element, [CONSISTENCY, BEHAVIOR], variant_dir, ir)


def task_domain_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A task's user_scenario.instructions.domain translated."""
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: r.endswith("instructions.domain"))
    return _mistranslate_preserved("task_domain_translated", "task domain field", candidates, variant_dir, ir, rng, [CONSISTENCY, INTEGRITY])


def reward_basis_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A reward_basis code (DB, ACTION, COMMUNICATE, ...) translated."""
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: r.endswith("reward_basis[*]"))
    return _mistranslate_preserved("reward_basis_translated", "reward_basis code", candidates, variant_dir, ir, rng, [CONSISTENCY, INTEGRITY])


def env_assertion_arg_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An env-assertion argument translated (telecom expected_desc 'excellent')."""
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: r.endswith("env_assertions[*].arguments.expected_desc"))
    candidates = candidates or _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: "env_assertions[*].arguments." in r and "{key}" not in r)
    return _mistranslate_preserved("env_assertion_arg_translated", "env-assertion argument", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR])


def cancel_reason_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A cancel reason in retail's gold arguments translated ('no longer needed')."""
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: r.endswith("arguments.reason"))
    return _mistranslate_preserved("cancel_reason_translated", "cancel reason in gold arguments", candidates, variant_dir, ir, rng, [CONSISTENCY, BEHAVIOR])


def communicate_info_number_format(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A number in communicate_info written in a local format ('1628' -> '1.628', '24.99' -> '24,99')."""
    number = re.compile(r"^\d+(?:\.\d+)?$")

    def localize(text: str) -> str:
        if "." in text:
            return text.replace(".", ",")
        return f"{int(text):,}".replace(",", ".") if len(text) >= 4 else text + ",00"

    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.PRESERVE], role=lambda r: r.endswith("communicate_info[*]"), where=lambda e: bool(number.match(e.source_text)))
    element = _pick(rng, candidates, "number in communicate_info")
    before, after = _edit_element(variant_dir, ir, element, localize)
    return _record("communicate_info_number_format", f"communicate_info number reformatted: {before!r} -> {after!r}", element, [CONSISTENCY], variant_dir, ir)


def canonical_entity_two_renderings(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A canonical entity (fixture book title) rendered one way in the DB, another in a gold argument."""
    language = variant_language(variant_dir)
    candidates = _elements(ir, artifacts=[_tasks_json(ir)], types=[TranslationType.TRANSLATE_CANONICAL], role=lambda r: ".arguments." in r)
    element = _pick(rng, candidates, "canonical entity in a gold argument")
    words = element.source_text.split()
    second = " ".join(words[1:]) if len(words) > 1 else element.source_text.upper()  # a shortened second translation
    before, after = _edit_element(variant_dir, ir, element, lambda text: _mistranslate(second, language))
    return _record("canonical_entity_two_renderings", f"canonical entity {element.source_text!r} rendered {after!r} here but {before!r} elsewhere", element, [CONSISTENCY, BEHAVIOR], variant_dir, ir)


# ---- references and control tokens inside translated prose --------------------------------


def _token_candidates(ir: IRDocument, variant_dir: Path, data_only: bool = True) -> list[tuple[IRElement, str]]:
    pairs = []
    docs: dict[str, _Doc] = {}
    for element in _translated_prose(ir, variant_dir, tokens=True, data_only=data_only):
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
    return _record("inline_token_dropped", f"inline token {token!r} removed from the translation", element, [CONSISTENCY], variant_dir, ir)


def inline_token_duplicated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """One protected inline token written twice in translated prose."""
    element, token = _pick(rng, _token_candidates(ir, variant_dir), "translated prose with inline tokens")
    _edit_element(variant_dir, ir, element, lambda text: text.replace(token, f"{token} {token}", 1))
    return _record("inline_token_duplicated", f"inline token {token!r} duplicated in the translation", element, [FIDELITY], variant_dir, ir)


def guideline_control_token_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """###STOP### in the user-simulator guidelines translated (###ŠŢÖÞ###)."""
    language = variant_language(variant_dir)
    guidelines = _artifacts(ir, ArtifactRole.USER_GUIDELINES)
    candidates = [(e, t) for e, t in _token_candidates(ir, variant_dir, data_only=False) if e.artifact in guidelines and t.startswith("###") and t.endswith("###")]
    stops = [(e, t) for e, t in candidates if t == "###STOP###"]
    element, token = _pick(rng, stops or candidates, "control token in the user-simulator guidelines")
    translated = "###" + _accent(token.strip("#"), language) + "###"
    _edit_element(variant_dir, ir, element, lambda text: text.replace(token, translated))
    return _record("guideline_control_token_translated", f"control token {token!r} translated to {translated!r}", element, [CONSISTENCY], variant_dir, ir)


# ---- Layer 3 (fidelity): what the translation says ----------------------------------------


def segment_truncated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A translated prose field cut in half."""
    element = _pick(rng, _translated_prose(ir, variant_dir, min_length=40, tokens=False, data_only=True), "long translated prose field")
    _edit_element(variant_dir, ir, element, lambda text: text[: len(text) // 2].rstrip())
    return _record("segment_truncated", "translated segment cut in half", element, [FIDELITY], variant_dir, ir)


def paragraph_untranslated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A policy Markdown paragraph restored to its English source text."""
    policies = _artifacts(ir, ArtifactRole.POLICY, ArtifactFormat.MARKDOWN)
    candidates = _elements(ir, artifacts=policies, types=[TranslationType.TRANSLATE_FREE], kinds=("markdown_block",),
                           where=lambda e: e.locator.block_kind == "paragraph" and len(e.source_text.split()) >= 5)
    element = _pick(rng, candidates, "policy paragraph")
    _edit_element(variant_dir, ir, element, lambda text: element.source_text)
    return _record("paragraph_untranslated", "policy paragraph left in English", element, [FIDELITY], variant_dir, ir)


def wrong_target_language(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A field rendered in the other pseudo-locale (ar-XB text in an en-XA variant, and vice versa)."""
    language = variant_language(variant_dir)
    other = "ar-XB" if language == "en-XA" else "en-XA"
    element = _pick(rng, _translated_prose(ir, variant_dir, min_length=20, tokens=False, data_only=True), "translated prose field")
    _edit_element(variant_dir, ir, element, lambda text: pseudo_translate_text(element.source_text, other))
    return _record("wrong_target_language", f"field rendered in {other} instead of {language}", element, [FIDELITY], variant_dir, ir)


def placeholder_left(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An unrestored placeholder '⟦3⟧' left in the output (in place of a protected token when there is one)."""
    element = _pick(rng, _translated_prose(ir, variant_dir, min_length=20, data_only=True), "translated prose field")

    def change(text: str) -> str:
        for token in element.inline_tokens:
            if token in text:
                return text.replace(token, "⟦3⟧", 1)
        middle = text.find(" ", len(text) // 2)
        return text[:middle] + " ⟦3⟧" + text[middle:] if middle > 0 else text + " ⟦3⟧"

    _edit_element(variant_dir, ir, element, change)
    return _record("placeholder_left", "placeholder ⟦3⟧ left in the translation", element, [INTEGRITY, FIDELITY], variant_dir, ir)


def answered_not_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """The model answered the text instead of translating it."""
    language = variant_language(variant_dir)
    element = _pick(rng, _translated_prose(ir, variant_dir, min_length=20, tokens=False, data_only=True), "translated prose field")
    answer = "Sure! Here is what you need: just ask the agent and it will take care of everything."
    rendered = pseudo_translate_text(answer, "en-XA") if language == "en-XA" else answer  # pseudo-accented, or plain English
    _edit_element(variant_dir, ir, element, lambda text: rendered)
    return _record("answered_not_translated", f"translation replaced by an answer: {rendered!r}", element, [FIDELITY], variant_dir, ir)


def commentary_added(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """Translator commentary appended to a field."""
    element = _pick(rng, _translated_prose(ir, variant_dir, min_length=10, data_only=True), "translated prose field")
    _edit_element(variant_dir, ir, element, lambda text: text + " (Note: translated automatically)")
    return _record("commentary_added", "commentary ' (Note: translated automatically)' appended", element, [FIDELITY], variant_dir, ir)


_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w]|[.,]\d)")


def _prose_numbers(text: str, tokens: list[str]) -> list[re.Match]:
    """Numbers in prose, skipping list markers ('1. ') and digits inside protected tokens."""
    spans = [(m.start(), m.start() + len(t)) for t in tokens for m in re.finditer(re.escape(t), text)]
    out = []
    for match in _NUMBER.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text[line_start : match.start()].strip() == "" and text[match.end() : match.end() + 1] in (".", ")"):
            continue  # an ordered-list marker
        if any(a <= match.start() < b for a, b in spans):
            continue
        out.append(match)
    return out


def prose_number_changed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A number inside translated prose changed (14 days -> 15 days)."""
    docs: dict[str, _Doc] = {}
    candidates = []
    for element in _translated_prose(ir, variant_dir):
        if not _prose_numbers(element.source_text, element.inline_tokens):
            continue
        if element.artifact not in docs:
            docs[element.artifact] = _Doc(variant_dir, ir, element.artifact)
        doc = docs[element.artifact]
        if _prose_numbers(doc.text_of(element) or "", element.inline_tokens):
            candidates.append(element)
    element = _pick(rng, candidates, "translated prose with a number")
    changed: list[str] = []

    def change(text: str) -> str:
        match = _pick(rng, _prose_numbers(text, element.inline_tokens), "number")
        digits = match.group()
        head, sep, tail = digits.partition(".") if "." in digits else digits.partition(",")
        new = str(int(head) + 1) + sep + tail
        changed.append(f"{digits!r} -> {new!r}")
        return text[: match.start()] + new + text[match.end() :]

    _edit_element(variant_dir, ir, element, change)
    return _record("prose_number_changed", f"number changed in prose: {changed[0]}", element, [FIDELITY], variant_dir, ir)


# ---- Layer 1 (integrity): files and structure ---------------------------------------------


def heading_marker_lost(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A Markdown heading's '# ' marker removed (the heading becomes a paragraph)."""
    marker = re.compile(r"^\s{0,3}#{1,6}[ \t]+")
    policies = _artifacts(ir, ArtifactRole.POLICY, ArtifactFormat.MARKDOWN)
    candidates = _elements(ir, artifacts=policies, kinds=("markdown_block",), where=lambda e: e.locator.block_kind == "heading")
    element = _pick(rng, candidates, "policy heading")
    _edit_element(variant_dir, ir, element, lambda text: marker.sub("", text, count=1))
    return _record("heading_marker_lost", "heading marker '# ' removed", element, [INTEGRITY], variant_dir, ir)


def _policy_file(ir: IRDocument) -> str:
    policies = _artifacts(ir, ArtifactRole.POLICY, ArtifactFormat.MARKDOWN)
    if not policies:
        raise DefectNotApplicable("no policy file")
    exact = [p for p in policies if Path(p).name == "policy.md"]
    main = [p for p in policies if Path(p).name.startswith("main_policy") or Path(p).name == "policy.md"]
    return (exact or main or policies)[0]


def file_missing(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """The policy file deleted."""
    artifact = _policy_file(ir)
    (Path(variant_dir) / artifact).unlink()
    return InjectedDefect(kind="file_missing", description=f"{artifact} deleted", artifact=artifact, location="<file>", expected_layers=[INTEGRITY])


def json_malformed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """tasks.json truncated mid-file (an interrupted write)."""
    artifact = _tasks_json(ir)
    path = Path(variant_dir) / artifact
    data = path.read_bytes()
    cut = len(data) // 2 + rng.randrange(max(1, len(data) // 4))
    path.write_bytes(data[:cut])
    return InjectedDefect(kind="json_malformed", description=f"{artifact} truncated at byte {cut} of {len(data)}", artifact=artifact, location="<file>", expected_layers=[INTEGRITY])


def _numeric_leaves(node: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(node, bool):
        return []
    if isinstance(node, (int, float)):
        return [path]
    if isinstance(node, dict):
        return [p for key, value in node.items() for p in _numeric_leaves(value, path + (str(key),))]
    if isinstance(node, list):
        return [p for index, value in enumerate(node) for p in _numeric_leaves(value, path + (index,))]
    return []


def json_type_changed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A number in the DB written as a string (19.5 -> "19.5")."""
    for artifact in _artifacts(ir, ArtifactRole.DATABASE):
        doc = _Doc(variant_dir, ir, artifact)
        plain = doc.value.unwrap() if doc.fmt is ArtifactFormat.TOML else doc.value
        leaves = _numeric_leaves(plain)
        if not leaves:
            continue
        path = _pick(rng, leaves, "number in the DB")
        value = _get(plain, path)
        _get(doc.value, path[:-1])[path[-1]] = str(value)
        doc.save()
        return InjectedDefect(kind="json_type_changed", description=f"{json_path(path)}: {value!r} written as the string {str(value)!r}", artifact=artifact,
                              location=json_path(path), expected_layers=[INTEGRITY])
    raise DefectNotApplicable("no number in any DB file")


def _task_index(variant_dir: Path, ir: IRDocument, rng: random.Random, suitable: Callable[[dict], bool] = lambda t: True) -> tuple[_Doc, int]:
    doc = _Doc(variant_dir, ir, _tasks_json(ir))
    if not isinstance(doc.value, list):
        raise DefectNotApplicable("tasks file is not a list")
    indexes = [i for i, task in enumerate(doc.value) if isinstance(task, dict) and suitable(task)]
    return doc, _pick(rng, indexes, "suitable task")


def key_added(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An extra key added to a task (a translator's note kept in the output)."""
    doc, index = _task_index(variant_dir, ir, rng)
    doc.value[index]["translation_note"] = _mistranslate("Reviewed by the translator", variant_language(variant_dir))
    doc.save()
    return InjectedDefect(kind="key_added", description=f"task #{index} gained a 'translation_note' key", artifact=doc.artifact, location=json_path((index,)),
                          expected_layers=[INTEGRITY], task_id=doc.value[index].get("id"))


def key_removed(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A key of a task removed (a translated field dropped together with its key)."""
    tasks = _tasks_json(ir)
    candidates = [e for e in _translated_prose(ir, variant_dir, artifacts=[tasks], data_only=True) if isinstance(e.locator.path[-1], str)]
    element = _pick(rng, candidates, "task field to remove")
    doc = _Doc(variant_dir, ir, tasks)
    parent = _get(doc.value, element.locator.path[:-1])
    del parent[element.locator.path[-1]]
    doc.save()
    return InjectedDefect(kind="key_removed", description=f"key {element.locator.path[-1]!r} removed at {json_path(element.locator.path[:-1])}", artifact=tasks,
                          location=json_path(element.locator.path), expected_layers=[INTEGRITY], task_id=_task_id(variant_dir, ir, element))


def list_element_dropped(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """One task dropped from the task list."""
    doc, index = _task_index(variant_dir, ir, rng)
    removed = doc.value.pop(index)
    doc.save()
    return InjectedDefect(kind="list_element_dropped", description=f"task #{index} ({removed.get('id')}) removed", artifact=doc.artifact, location="$",
                          expected_layers=[INTEGRITY, BEHAVIOR], task_id=removed.get("id"))


def gold_actions_reordered(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """Two consecutive gold actions of one task swapped."""

    def actions(task: dict) -> list:
        return ((task.get("evaluation_criteria") or {}).get("actions")) or []

    def swappable(task: dict) -> list[int]:
        steps = actions(task)
        return [i for i in range(len(steps) - 1) if steps[i].get("name") != steps[i + 1].get("name")]

    doc, index = _task_index(variant_dir, ir, rng, lambda task: bool(swappable(task)))
    task = doc.value[index]
    first = _pick(rng, swappable(task), "pair of gold actions")
    steps = actions(task)
    steps[first], steps[first + 1] = steps[first + 1], steps[first]
    doc.save()
    return InjectedDefect(kind="gold_actions_reordered", description=f"gold actions {first} and {first + 1} of task {task.get('id')} swapped", artifact=doc.artifact,
                          location=json_path((index, "evaluation_criteria", "actions")), expected_layers=[CONSISTENCY, BEHAVIOR], task_id=task.get("id"))


# ---- the code overlay ---------------------------------------------------------------------


def _overlay(variant_dir: Path) -> CodeOverlay:
    path = Path(variant_dir) / OVERLAY_NAME
    if not path.exists():
        raise DefectNotApplicable("the variant has no code overlay")
    return CodeOverlay.model_validate(orjson.loads(path.read_bytes()))


def docstring_header_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """'Args:' of one tool docstring translated in the overlay (the schema loses its argument descriptions)."""
    language = variant_language(variant_dir)
    overlay = _overlay(variant_dir)
    header = re.compile(r"^(\s*)Args:\s*$", re.M)
    candidates = [
        t for t in overlay.texts
        if t.role == "docstring" and "." in t.qualname and t.qualname.split(".")[0].endswith("Tools")
        and not t.qualname.rsplit(".", 1)[-1].startswith("_") and header.search(t.target)
    ]
    text = _pick(rng, candidates, "tool docstring with an Args: section")
    translated = _accent("Args", language) + ":"
    text.target = header.sub(lambda m: m.group(1) + translated, text.target, count=1)
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(kind="docstring_header_translated", description=f"'Args:' of {text.qualname} translated to {translated!r}", artifact=text.module,
                          location=text.qualname, expected_layers=[INTEGRITY])


def preserved_code_literal_translated(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A code literal the IR preserves (telecom 'Excellent', retail 'pending', ###STOP###) translated via the overlay."""
    language = variant_language(variant_dir)
    overlay = _overlay(variant_dir)
    present = {(t.module, t.source) for t in overlay.texts}
    candidates = _elements(
        ir, types=[TranslationType.PRESERVE], reasons=[PreserveReason.ENUM_CODE, PreserveReason.CONTROL_TOKEN], kinds=("python_literal",),
        where=lambda e: e.locator.role in ("constant", "tool_output", "error_message") and _HAS_LETTER.search(e.source_text) is not None
        and (e.artifact, e.source_text) not in present and "{" not in e.source_text,
    )
    in_tools = [e for e in candidates if e.artifact.startswith(("domains/", "code/"))]
    values = [e for e in in_tools if e.locator.role == "constant"]  # returned/compared values (telecom 'Excellent') before dict keys
    element = _pick(rng, values or in_tools or candidates, "preserved code literal")
    locator = element.locator
    source = element.source_text
    target = "###" + _accent(source.strip("#"), language) + "###" if source.startswith("###") else _accent(source, language)
    overlay.texts.append(CodeText(module=element.artifact, qualname=locator.qualname, role=locator.role, occurrence=locator.occurrence, source=element.source_text, target=target))
    save_record(overlay, Path(variant_dir) / OVERLAY_NAME)
    return InjectedDefect(kind="preserved_code_literal_translated", description=f"preserved literal {element.source_text!r} of {locator.qualname} translated to {target!r} in the overlay",
                          artifact=element.artifact, location=f"{locator.qualname} ({locator.role})", expected_layers=[CONSISTENCY, BEHAVIOR])


# ---- the catalogue -------------------------------------------------------------------------

MOCK, RETAIL, TELECOM, FIXTURE, AIRLINE = "tau2-mock", "tau2-retail", "tau2-telecom", "fixture-library", "tau2-airline"
_ALL = (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)

_KINDS: list[tuple[Callable, tuple[str, ...]]] = [
    # consistency / behaviour: Preserve values translated or changed
    (db_enum_code_translated, (RETAIL, MOCK, FIXTURE, TELECOM, AIRLINE)),
    (gold_arg_id_translated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (gold_tool_name_translated, (MOCK, FIXTURE, RETAIL, TELECOM, AIRLINE)),
    (argument_name_translated, (FIXTURE, MOCK, RETAIL, TELECOM, AIRLINE)),
    (canonical_entity_two_renderings, (FIXTURE,)),
    (db_value_changed_not_task, (RETAIL, FIXTURE)),
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
]

CATALOGUE: dict[str, DefectKind] = {
    function.__name__: DefectKind(name=function.__name__, inject=function, benchmarks=benchmarks, summary=(function.__doc__ or "").strip().splitlines()[0])
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
