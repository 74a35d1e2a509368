"""The typed intermediate representation: one element per text field a benchmark reads at run time.

An element says where the text lives (artifact + locator, precise enough to rebuild), what it is
(the source text and its role), how it may be translated (Preserve with a reason, Translate-Free,
Translate-Canonical with a group) and which other fields it must stay equal to (link groups, each
with the runtime evidence that produced it).
"""

from __future__ import annotations

import hashlib
from enum import Enum
from pathlib import Path
from typing import Annotated, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError, StaleArtifactError, validate_input
from babelflow.markdown_blocks import BlockKind

IR_SCHEMA_VERSION: Final = "babelflow.ir/2"  # 2: per-element evidence, evidence-only type, analysis findings

PathSegment = str | int
PythonTextRole = Literal["docstring", "field_description", "constant", "tool_output", "error_message", "prompt"]


class Record(BaseModel):
    """Base for every record that crosses a stage boundary: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid", frozen=False)


class TranslationType(str, Enum):
    PRESERVE = "preserve"
    TRANSLATE_FREE = "translate_free"
    TRANSLATE_CANONICAL = "translate_canonical"


class PreserveReason(str, Enum):
    """Closed set of reasons a field must stay byte-identical."""

    TOOL_NAME = "tool_name"
    ARGUMENT_NAME = "argument_name"
    SCHEMA_KEY = "schema_key"
    IDENTIFIER = "identifier"
    ENUM_CODE = "enum_code"
    DATE_TIME = "date_time"
    NUMBER = "number"
    EMAIL_URL = "email_url"
    EVALUATOR_TOKEN = "evaluator_token"
    CONTROL_TOKEN = "control_token"
    DOCSTRING_HEADER = "docstring_header"
    LINKED_ENTITY = "linked_entity"  # an entity the profile keeps, shared by DB, tasks and gold actions
    MARKUP = "markup"
    EMPTY = "empty"  # empty, or no words at all (".", "---")
    SOURCE_ASSET = "source_asset"


class ArtifactFormat(str, Enum):
    JSON = "json"
    TOML = "toml"
    MARKDOWN = "markdown"
    PYTHON = "python"
    YAML = "yaml"  # AgentDojo environments (read and written with ruamel.yaml round trip)


class ArtifactRole(str, Enum):
    DATABASE = "database"
    TASKS = "tasks"
    TASK_SPLIT = "task_split"
    POLICY = "policy"
    USER_GUIDELINES = "user_guidelines"
    TOOL_CODE = "tool_code"
    DATA_MODEL_CODE = "data_model_code"
    PROMPT_CODE = "prompt_code"


class DataValueLocator(Record):
    """A string leaf of a JSON/TOML document, addressed by its key/index path."""

    kind: Literal["data_value"] = "data_value"
    path: tuple[PathSegment, ...]


class DataKeyLocator(Record):
    """A data-bearing mapping key (a record id, an option name), addressed by the path to its entry."""

    kind: Literal["data_key"] = "data_key"
    path: tuple[PathSegment, ...]


class MarkdownBlockLocator(Record):
    """A top-level Markdown block (heading, paragraph, list, table, code fence) by index and lines."""

    kind: Literal["markdown_block"] = "markdown_block"
    block_index: int
    block_kind: BlockKind
    start_line: int
    end_line: int


class PythonLiteralLocator(Record):
    """A string literal in Python source: module + qualified name + role + occurrence within it."""

    kind: Literal["python_literal"] = "python_literal"
    module: str
    qualname: str
    role: PythonTextRole
    occurrence: int = 0
    line: int
    part: int | None = Field(default=None, description="index of the docstring part (Google-style sections are split)")


Locator = Annotated[
    DataValueLocator | DataKeyLocator | MarkdownBlockLocator | PythonLiteralLocator,
    Field(discriminator="kind"),
]


class LinkKind(str, Enum):
    COMPARED_IN_CODE = "compared_in_code"
    COMPARED_BY_EVALUATOR = "compared_by_evaluator"
    TOOL_ARGUMENT = "tool_argument"
    TOOL_OUTPUT = "tool_output"
    DB_WRITE = "db_write"
    DB_LOOKUP = "db_lookup"
    MENTIONED_IN_PROSE = "mentioned_in_prose"
    SCHEMA_LITERAL = "schema_literal"
    ARGUMENT_NAME = "argument_name"  # a key the harness passes as a keyword argument name
    READ_BY_HARNESS = "read_by_harness"  # parsed and compared by the harness itself (set_state's recorded tool results)
    # differential replay: changing it alone changes an outcome
    PERTURBATION_CHANGES_OUTCOME = "perturbation_changes_outcome"


class EvidenceScope(str, Enum):
    """How an element's evidence was obtained."""

    LOCATION = "location"  # observed on this very field during an instrumented replay
    FIELD_PATH = "field_path"  # observed on other instances of the same generalized field path
    DIFFERENTIAL = "differential"  # perturbing this field path changed (or did not change) an outcome
    STATIC = "static"  # model schema literals, code scans, document structure: no run needed


class FieldEvidence(Record):
    """Evidence shared by elements (a table entry of the IR, referenced by id)."""

    id: str
    scope: EvidenceScope
    kinds: list[LinkKind]
    detail: str = Field(description="one observation, e.g. 'tool cancel_reservation(reservation_id) (task 3)'")
    observed: int = Field(default=0, description="locations of this field path with an observation")


class AnalysisFinding(Record):
    """Where the reviewed profile and the evidence disagree; goes to review on the analysis route."""

    element: str
    profile_type: TranslationType
    evidence_type: TranslationType
    profile_rule: str
    evidence: str


class EntityKind(str, Enum):
    """What an entity class names: it sets the default rendering policy of a language (README)."""

    CATALOGUE = "catalogue"  # product names, option values, plan names: translated by default
    PERSON = "person"  # people's names: kept for Latin-script targets, localized elsewhere
    PLACE = "place"  # cities, streets: as people's names
    OTHER = "other"


class EntityClassDecision(Record):
    """The analysis's decision on one entity class of the profile (a DB field path and its values):
    which values are renamed consistently everywhere (Translate-Canonical, group = the class name)
    and which stay, each with the evidence that decided it."""

    name: str
    kind: EntityKind
    profile_policy: Literal["auto", "keep", "translate"]
    selectors: list[str]
    decision: Literal["canonical", "preserve"]
    canonical_values: int = Field(description="distinct values renamed consistently")
    kept_values: dict[str, int] = Field(
        default_factory=dict, description="distinct values kept, per reason (shape, compared with a code literal)"
    )
    flows: dict[str, int] = Field(
        default_factory=dict, description="the runtime evidence of the class's values: link kind -> values seen so"
    )
    evidence: list[str] = Field(default_factory=list, description="sample observations, kept values first")


class RuntimeEvidence(Record):
    """One observation that justifies a link: what ran, on which task, and what it saw."""

    source: Literal[
        "golden_replay",
        "tool_schema",
        "evaluator",
        "code_scan",
        "static_scan",
        "profile",
        "traced_replay",
        "differential",
    ]
    detail: str
    task_id: str | None = None


class LinkGroup(Record):
    """Fields that must stay equal: every member holds (or mentions) the same value."""

    id: str
    value: str
    kinds: list[LinkKind]
    member_count: int
    artifacts: list[str]
    evidence: list[RuntimeEvidence] = Field(default_factory=list, description="bounded sample of observations")


SlotKind = Literal["fstring", "format_field", "printf", "jinja", "parsed_key"]


class CodeSlot(Record):
    """A span of a code text that code fills or reads, kept verbatim in every translation (format_slots.py)."""

    text: str = Field(description="as the source text holds it, e.g. {status['ssid']}, %s or \"reasoning\"")
    kind: SlotKind
    evidence: str = Field(description="why it is kept: an f-string expression, a key the code reads at file:line")


class IRElement(Record):
    id: str = Field(description="stable id: hash of artifact + locator")
    artifact: str = Field(description="path relative to the benchmark root")
    locator: Locator
    role: str = Field(description="generalized field path, e.g. tasks[*].user_scenario.instructions.known_info")
    source_text: str
    translation_type: TranslationType
    preserve_reason: PreserveReason | None = None
    canonical_group: str | None = None
    typing_rule: str = Field(description="the rule or profile entry that assigned the type")
    links: list[str] = Field(default_factory=list, description="ids of LinkGroups this field belongs to")
    inline_tokens: list[str] = Field(
        default_factory=list,
        description=(
            "Preserve values that occur as tokens inside this text (ids, names, quoted codes); translators protect them"
        ),
    )
    evidence: str | None = Field(default=None, description="id of the FieldEvidence entry for this element's type")
    evidence_type: TranslationType | None = Field(
        default=None, description="the type the evidence alone gives (no profile); differs => the profile decided"
    )
    code_slots: list[CodeSlot] = Field(
        default_factory=list,
        description="a code text's format slots and the reply keys its code reads, in order: Preserve inside the text",
    )


class ArtifactFingerprint(Record):
    path: str
    format: ArtifactFormat
    role: ArtifactRole
    sha256: str
    origin: Literal["package", "source_dir", "fixture"]


class IRDocument(Record):
    schema_version: Literal["babelflow.ir/2"] = IR_SCHEMA_VERSION
    benchmark: str
    source_version: str
    source_language: str = Field(
        default="en", description="the language the source's texts are written in (BCP 47): the family's, per benchmark"
    )
    analyzer_version: str = Field(
        default="", description="version of the analysis logic; a saved IR from another is re-derived"
    )
    tasks_are_worlds: bool = Field(
        default=False,
        description="each task carries its own environment (VitaBench): values of two tasks never meet (worlds.py)",
    )
    profile_sha256: str
    artifacts: list[ArtifactFingerprint]
    elements: list[IRElement]
    link_groups: list[LinkGroup]
    evidence: list[FieldEvidence] = Field(default_factory=list, description="evidence table referenced by elements")
    analysis_findings: list[AnalysisFinding] = Field(
        default_factory=list, description="profile/evidence disagreements for review"
    )
    entity_classes: list[EntityClassDecision] = Field(
        default_factory=list, description="per entity class of the profile: canonical or kept, and why"
    )

    def by_id(self) -> dict[str, IRElement]:
        return {element.id: element for element in self.elements}

    def content_sha256(self) -> str:
        return hashlib.sha256(self.to_json_bytes()).hexdigest()

    def to_json_bytes(self) -> bytes:
        return orjson.dumps(self.model_dump(mode="json"))


def locator_key(locator: BaseModel) -> str:
    """A canonical string for a locator (cheap: computed for every field of 14 MB task files)."""
    if isinstance(locator, (DataValueLocator, DataKeyLocator)):
        return locator.kind + ":" + orjson.dumps(locator.path).decode()
    if isinstance(locator, MarkdownBlockLocator):
        return f"markdown_block:{locator.block_index}"
    assert isinstance(locator, PythonLiteralLocator)
    return f"python_literal:{locator.qualname}:{locator.role}:{locator.occurrence}:{locator.part}"


def element_id(artifact: str, locator: BaseModel) -> str:
    raw = f"{artifact}\0{locator_key(locator)}".encode()
    return hashlib.blake2b(raw, digest_size=10).hexdigest()


def ir_json_schema() -> dict:
    return IRDocument.model_json_schema()


def save_ir(document: IRDocument, path: Path) -> None:
    write_bytes_atomic(Path(path), document.to_json_bytes())


def load_ir(path: Path, *, benchmark: str | None = None) -> IRDocument:
    """Load an IR, refusing stale schema versions and IRs of another benchmark with a clear message."""
    path = Path(path)
    try:
        raw = orjson.loads(path.read_bytes())
    except FileNotFoundError as exc:
        raise BabelflowError("IR file not found", file=path, fix="run `babelflow analyze` first") from exc
    except orjson.JSONDecodeError as exc:
        raise BabelflowError(f"IR file is not valid JSON: {exc}", file=path, fix="re-run `babelflow analyze`") from exc
    if not isinstance(raw, dict) or "schema_version" not in raw:
        raise StaleArtifactError("Not a babelflow IR (no schema_version)", file=path, fix="re-run `babelflow analyze`")
    if raw["schema_version"] != IR_SCHEMA_VERSION:
        raise StaleArtifactError(
            f"IR schema version {raw['schema_version']!r} is not the supported {IR_SCHEMA_VERSION!r}",
            file=path,
            field="schema_version",
            fix="re-run `babelflow analyze` with this babelflow version",
        )
    if benchmark is not None and raw.get("benchmark") != benchmark:
        raise StaleArtifactError(
            f"IR belongs to benchmark {raw.get('benchmark')!r}, not {benchmark!r}",
            file=path,
            field="benchmark",
            fix=f"analyze {benchmark} into its own IR file",
        )
    return validate_input(
        IRDocument,
        raw,
        what="IR does not match the schema",
        file=path,
        fix="re-run `babelflow analyze`",
        error=StaleArtifactError,
    )
