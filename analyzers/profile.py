"""Per-benchmark analysis profiles: reviewed data (TOML) that overrides evidence and heuristics.

A profile may `extend` another (tau2 domains share one for tasks and prompts). Rules are tried in
order; the first whose artifact glob and JSONPath selector match a field decides its type.
Entity classes say which fields hold a shared entity; the evidence decides which of its values can be
renamed consistently (Translate-Canonical, group = the class name), unless the class says keep.
"""

from __future__ import annotations

import fnmatch
import hashlib
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from analyzers.selectors import Selector, compile_selector
from babelflow.errors import BabelflowError, validate_input
from babelflow.ir import EntityKind, PreserveReason, Record, TranslationType
from babelflow.toml_input import parse_toml, read_bounded
from source_benchmarks.registry import family_of

PROFILES_DIR = Path(__file__).resolve().parent.parent / "source_benchmarks" / "profiles"


class FieldRule(Record):
    artifact: str = Field(description="glob over artifact paths, e.g. */tasks.json")
    select: str | None = Field(default=None, description="JSONPath over the document (data artifacts)")
    code_name: list[str] = Field(default_factory=list, description="assigned names / keywords (Python artifacts)")
    code_role: list[str] = Field(default_factory=list, description="docstring, field_description, error_message, ...")
    code_qualname: str | None = Field(default=None, description="glob over qualified names, e.g. *._add_stop_tool.*")
    where: dict[str, str] = Field(
        default_factory=dict, description="sibling conditions on the field's parent object, e.g. {role = 'tool'}"
    )
    type: TranslationType
    reason: PreserveReason | None = None
    refine: bool = Field(
        default=False, description="let a more specific heuristic reason (id, date, number, email) replace `reason`"
    )
    note: str = ""

    @model_validator(mode="after")
    def _reason_iff_preserve(self) -> FieldRule:
        if (self.type is TranslationType.PRESERVE) != (self.reason is not None):
            raise ValueError("`reason` is required for type=preserve and not allowed otherwise")
        return self


class EntityClass(Record):
    policy: Literal["auto", "keep", "translate"] = Field(
        default="auto",
        description="auto: the evidence decides per value (renamed consistently unless compared with a code "
        "literal or shaped like an id); keep: never renamed; translate: renamed, and the analysis refuses "
        "(exit 2) a class whose values the evidence shows compared with code literals",
    )
    kind: EntityKind = Field(
        default=EntityKind.OTHER, description="catalogue / person / place / other: the default rendering per language"
    )
    selectors: list[str] = Field(description="artifact-glob:JSONPath, e.g. */db.json:$.products.*.name")
    note: str = ""


class ElementOverride(Record):
    element: str = Field(description="IR element id")
    type: TranslationType
    reason: PreserveReason | None = None
    canonical_group: str | None = None
    note: str = ""


class Profile(Record):
    benchmark: str
    version: int
    extends: str | None = None
    description: str = ""
    rules: list[FieldRule] = Field(default_factory=list)
    entities: dict[str, EntityClass] = Field(default_factory=dict)
    overrides: list[ElementOverride] = Field(default_factory=list)


class CompiledRule:
    """A rule with its selector compiled, so matching is a tuple comparison."""

    def __init__(self, rule: FieldRule, where: str):
        self.rule = rule
        self.selector: Selector | None = compile_selector(rule.select, where=where) if rule.select else None

    def matches_data(self, artifact: str, path: tuple) -> bool:
        return (
            self.selector is not None and fnmatch.fnmatch(artifact, self.rule.artifact) and self.selector.matches(path)
        )

    def matches_code(self, artifact: str, qualname: str, name: str | None, role: str) -> bool:
        if self.selector is not None or not fnmatch.fnmatch(artifact, self.rule.artifact):
            return False
        if self.rule.code_name and name not in self.rule.code_name:
            return False
        if self.rule.code_qualname and not fnmatch.fnmatch(qualname, self.rule.code_qualname):
            return False
        return not self.rule.code_role or role in self.rule.code_role


class CompiledEntity:
    def __init__(self, name: str, entity: EntityClass, where: str):
        self.name = name
        self.entity = entity
        self.parts: list[tuple[str, Selector]] = []
        for text in entity.selectors:
            glob, sep, path = text.partition(":$")
            if not sep:
                raise BabelflowError(
                    f"Entity selector {text!r} lacks ':$'",
                    file=where,
                    field=f"entities.{name}.selectors",
                    fix="write artifact-glob:$.json.path",
                )
            self.parts.append((glob, compile_selector("$" + path, where=where)))

    def matches(self, artifact: str, path: tuple) -> bool:
        return any(fnmatch.fnmatch(artifact, glob) and sel.matches(path) for glob, sel in self.parts)


class LoadedProfile:
    """A profile with its parents merged (child rules first) and selectors compiled."""

    def __init__(self, profile: Profile, sources: list[Path], raw_bytes: bytes):
        self.profile = profile
        self.sources = sources
        self.sha256 = hashlib.sha256(raw_bytes).hexdigest()
        where = str(sources[0])
        self.rules = [CompiledRule(rule, where) for rule in profile.rules]
        self.entities = [CompiledEntity(name, entity, where) for name, entity in profile.entities.items()]
        self.overrides = {o.element: o for o in profile.overrides}


def _read_profile(path: Path) -> tuple[Profile, bytes]:
    try:
        raw = read_bounded(path, what="Profile")  # a regular file of bounded size
    except FileNotFoundError as exc:
        raise BabelflowError("Profile not found", file=path, fix="pass --profile with an existing TOML file") from exc
    data = parse_toml(raw, what="Profile", file=path)  # not UTF-8 or nested too deep: named errors, not tracebacks
    return validate_input(
        Profile,
        data,
        what="Profile does not match the schema",
        file=path,
        fix="see source_benchmarks/profiles/*.toml for the format",
    ), raw


def load_profile(
    benchmark: str, path: Path | None = None, extra_overrides: list[ElementOverride] | None = None
) -> LoadedProfile:
    """Load `path` (default: the packaged profile of `benchmark`) and merge what it extends.

    `extra_overrides` are reviewed per-element decisions (from the review loop); they take
    precedence and are part of the profile hash, so the IR is rebuilt when they change.
    """
    path = Path(path) if path else PROFILES_DIR / f"{benchmark}.toml"
    choice = (
        family_of(benchmark).profile_choice(benchmark, PROFILES_DIR)
        if not path.exists() and path.parent == PROFILES_DIR
        else None
    )
    if (
        choice is not None
    ):  # an id without a profile of its own (a domain package, another version): the family's choice
        profile, raw = _read_profile(choice.path)
        profile = profile.model_copy(
            update={"benchmark": benchmark, "extends": None, "description": choice.description}
        )
        raw = choice.description.encode() + b"\0" + raw
    else:
        profile, raw = _read_profile(path)
    if extra_overrides:
        profile = profile.model_copy(update={"overrides": list(extra_overrides) + profile.overrides})
        raw += b"\0overrides:" + b"".join(o.model_dump_json().encode() for o in extra_overrides)
    if profile.benchmark != benchmark:
        raise BabelflowError(
            f"Profile is for {profile.benchmark!r}, not {benchmark!r}",
            file=path,
            field="benchmark",
            fix="use the profile of this benchmark",
        )
    sources, blobs = [path], [raw]
    parent_name = profile.extends
    while parent_name:
        parent_path = path.parent / f"{parent_name}.toml"
        if not parent_path.exists():  # a user's profile may extend a packaged one
            parent_path = PROFILES_DIR / f"{parent_name}.toml"
        if parent_path.resolve() in {source.resolve() for source in sources}:  # a cycle looped forever
            raise BabelflowError(
                f"Profile extends {parent_name!r}, which is already in its chain: "
                + " -> ".join(source.stem for source in [*sources, parent_path]),
                file=sources[-1],
                field="extends",
                fix="extend a profile that does not extend this one (a packaged one such as tau2-common)",
            )
        parent, parent_raw = _read_profile(parent_path)
        profile = profile.model_copy(
            update={
                "rules": profile.rules + parent.rules,
                "entities": {**parent.entities, **profile.entities},
                "overrides": profile.overrides + parent.overrides,
            }
        )
        sources.append(parent_path)
        blobs.append(parent_raw)
        parent_name = parent.extends
    return LoadedProfile(profile, sources, b"\0".join(blobs))


def empty_profile(benchmark: str) -> LoadedProfile:
    """No reviewed rules at all: types come from evidence, structure and shape (`--no-profile`)."""
    raw = f"no-profile:{benchmark}".encode()
    return LoadedProfile(
        Profile(benchmark=benchmark, version=0, description="no profile"), [Path(f"<no profile for {benchmark}>")], raw
    )
