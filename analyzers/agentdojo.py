"""Analysis of an AgentDojo suite: YAML environment, task code, tool docstrings, system message.

Typing starts from shapes and types (pydantic field types of the environment, ids, dates, emails)
and is then decided by running: a *perturbation trial* renders every translatable field the way a
translator would (a canonical value one way everywhere; free prose word by word, its canonical
mentions as their canonical rendering), rebuilds the suite from it, and reruns every task's
ground truth. A user task whose utility, an injection task whose security or a task whose
injectability changes names the literals that link code and data: its check literals and the
environment values that contain them are kept (Preserve, with the replay as evidence), and the
trial runs again until the perturbed suite scores exactly like the source.
"""

from __future__ import annotations

import hashlib
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from analyzers import ANALYZER_VERSION
from analyzers.agentdojo_code import CodeLiteral, scan_module
from analyzers.heuristics import specific_reason
from analyzers.mentions import always_token
from analyzers.profile import LoadedProfile, load_profile
from babelflow.ir import (
    IR_SCHEMA_VERSION,
    ArtifactFormat,
    ArtifactRole,
    DataValueLocator,
    IRDocument,
    IRElement,
    LinkGroup,
    LinkKind,
    PreserveReason,
    PythonLiteralLocator,
    RuntimeEvidence,
    TranslationType,
    element_id,
)
from babelflow.python_docstrings import docstrings_of
from babelflow.text import ACCENT_TABLE, FORMAT_SLOT, WORD
from babelflow.variant import CodeOverlay, CodeText
from source_benchmarks.agentdojo.code_overlay import docstring_pieces

Progress = Callable[[str], None]
CANONICAL_GROUP = "agentdojo"
MAX_TRIAL_ROUNDS = 8
# Kept verbatim in a trial translation: a {slot}, an email, and the rest of a whitespace-separated run
# from a URL, a www. address or a digit, _, / or \ on. One pattern said it
# (r"\{[^{}\s]*\}|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|www\.\S+|\S*[\d_/\\]\S*") but rescanned a
# run from each of its positions ('+-' * 10,000: 11 s); _kept_spans() finds the same spans reading it once.
_KEPT_SLOT = re.compile(r"\{[^{}\s]*\}")
_EMAIL_CHAR = re.compile(r"[\w.+-]")
_EMAIL_LOCAL = re.compile(r"[\w.+-]*")
_EMAIL_DOMAIN = re.compile(r"@[\w-]+(?:\.[\w-]+)+")
_KEPT_MARK = re.compile(r"[\d_/\\]")
_SPACE = re.compile(r"\s")
_NON_SPACE = re.compile(r"\S")


def _kept_spans(text: str) -> list[tuple[int, int]]:
    r"""(start, end) of each kept span, leftmost first. From a position: a {slot}; else, in a run of
    [\w.+-], an email when the run is followed by @domain (the same for every position of the run);
    else the rest of the run when a digit, _, / or \ lies ahead in it (fades along the run) or it
    starts with www. and more. A position where nothing starts is left for the next that can differ."""
    spans: list[tuple[int, int]] = []
    pos, run_end, mark = 0, -1, -1
    local_end, email_end = -1, -1
    while (found := _NON_SPACE.search(text, pos)) is not None:
        at = found.start()
        space = _SPACE.search(text, at)
        run_end, mark = (space.start() if space is not None else len(text)), -1
        while at < run_end:
            end = -1
            if text[at] == "{" and (slot := _KEPT_SLOT.match(text, at)) is not None:
                end = slot.end()
            elif _EMAIL_CHAR.match(text, at):
                if at >= local_end:  # a new [\w.+-] run: where it ends, and the email it makes, if any
                    local_end = _EMAIL_LOCAL.match(text, at).end()  # type: ignore[union-attr]  # * always matches
                    domain = _EMAIL_DOMAIN.match(text, local_end)
                    email_end = domain.end() if domain is not None else -1
                end = email_end
            if end < 0:
                if mark < at:  # the next digit, _, / or \ at or after this position (run_end: none)
                    marked = _KEPT_MARK.search(text, at, run_end)
                    mark = marked.start() if marked is not None else run_end
                if mark < run_end or (text.startswith("www.", at) and at + 4 < run_end):
                    end = run_end
            if end >= 0:
                spans.append((at, end))
                at = end
            elif at < local_end:  # the rest of a failed [\w.+-] run fails the same way, but for a www.
                www = text.find("www.", at + 1, local_end)
                at = www if www >= 0 else local_end
            else:
                at += 1
        pos = run_end
    return spans


def _without_kept(text: str) -> str:
    out, last = [], 0
    for start, end in _kept_spans(text):
        out.append(text[last:start] + " ")
        last = end
    return "".join(out) + text[last:]


@dataclass
class Draft:
    artifact: str
    locator: Any
    role: str
    text: str
    ttype: TranslationType
    reason: PreserveReason | None
    rule: str
    task_scope: str = ""  # the class (or "" for module level) a Python literal belongs to
    evidence: list[RuntimeEvidence] = field(default_factory=list)
    inline_tokens: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return element_id(self.artifact, self.locator)

    def keep(self, reason: PreserveReason, rule: str, evidence: RuntimeEvidence | None = None) -> None:
        self.ttype, self.reason, self.rule = TranslationType.PRESERVE, reason, rule
        if evidence is not None:
            self.evidence.append(evidence)


# ---- typing by shape and type ----------------------------------------------------------------
def _word_count(text: str) -> int:
    return len(WORD.findall(text))


def _shape_type(text: str) -> tuple[TranslationType, PreserveReason | None, str]:
    reason = specific_reason(text)
    if reason is not None:
        return TranslationType.PRESERVE, reason, f"shape: {reason.value}"
    if not WORD.search(_without_kept(text)):
        return TranslationType.PRESERVE, PreserveReason.EMPTY, "shape: no words outside ids, slots and paths"
    if re.fullmatch(r"[\w.-]+\.[A-Za-z0-9]{2,5}", text.strip()):
        return TranslationType.PRESERVE, PreserveReason.IDENTIFIER, "shape: file name"
    words = _word_count(text)
    if words <= 5 and "\n" not in text.strip() and not text.rstrip().endswith((".", "!", "?")):
        return TranslationType.TRANSLATE_CANONICAL, None, "short value: one rendering everywhere"
    return TranslationType.TRANSLATE_FREE, None, "prose"


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = get_origin(annotation)
        if origin is Union or str(origin) in ("types.UnionType", "<class 'types.UnionType'>"):
            args = [a for a in get_args(annotation) if a is not type(None)]
            annotation = args[0] if len(args) == 1 else annotation
            if len(args) != 1:
                return annotation
        elif origin is not None and getattr(origin, "__name__", "") == "Annotated":
            annotation = get_args(annotation)[0]
        elif hasattr(annotation, "__metadata__"):
            annotation = get_args(annotation)[0]
        else:
            return annotation


def _leaf_type(model: Any, path: tuple) -> Any:
    """The annotation a YAML leaf is validated against (None when the walk leaves the models)."""
    node = model
    for segment in path:
        node = _unwrap(node)
        if isinstance(node, type) and issubclass(node, BaseModel):
            info = node.model_fields.get(str(segment))
            if info is None:
                return None
            node = info.annotation
        elif get_origin(node) in (dict,):
            node = get_args(node)[1]
        elif get_origin(node) in (list, tuple, set):
            node = get_args(node)[0]
        else:
            return None
    return _unwrap(node)


# ---- inventory -------------------------------------------------------------------------------
def _yaml_drafts(bench: Any, spec: Any) -> list[Draft]:
    from source_benchmarks.yaml_io import string_leaves

    env_model = bench.source_suite.environment_type
    prefix = []
    if "/include/" in spec.path:
        prefix = [spec.path.rsplit("/", 1)[1].removesuffix(".yaml")]
    drafts = []
    for path, text in string_leaves(bench.load_artifact(spec)):
        locator = DataValueLocator(path=path)
        general = ".".join("[*]" if isinstance(p, int) else str(p) for p in path)
        role = f"{spec.path.rsplit('/', 1)[-1]}:{general}"
        ttype, reason, rule = _shape_type(text)
        if re.search(r"\\[A-Za-z\\\"]", text):
            # literal "\n", "\t": upstream re-parses the injected environment as YAML, where they are escapes
            ttype, reason, rule = TranslationType.PRESERVE, PreserveReason.MARKUP, "holds YAML escape sequences (re-parsed after str.format)"
        elif spec.path.endswith("environment.yaml") or "/include/" in spec.path:
            leaf = _leaf_type(env_model, tuple(prefix) + path)
            if leaf is not str and ttype is not TranslationType.PRESERVE:
                ttype, reason, rule = TranslationType.PRESERVE, PreserveReason.ENUM_CODE, f"model type {getattr(leaf, '__name__', leaf)} is not free text"
        elif spec.path.endswith("injection_vectors.yaml") or spec.path.endswith("system_messages.yaml"):
            if ttype is TranslationType.TRANSLATE_CANONICAL:
                ttype, rule = TranslationType.TRANSLATE_FREE, "injection vector / system message text"
        drafts.append(Draft(spec.path, locator, role, text, ttype, reason, rule))
    return drafts


def _module_of(path: str) -> Any:
    return sys.modules["agentdojo." + path.removesuffix(".py").replace("/", ".")]


def _literal_type(literal: CodeLiteral) -> tuple[TranslationType, PreserveReason | None, str]:
    if literal.where == "attribute":
        ttype, reason, rule = _shape_type(literal.value)
        if ttype is TranslationType.PRESERVE:  # GROUND_TRUTH_OUTPUT = _FILENAME
            return ttype, reason, "task attribute: " + rule
        return TranslationType.TRANSLATE_FREE, None, "task text attribute (PROMPT/GOAL/...)"
    if literal.in_container:
        return TranslationType.PRESERVE, PreserveReason.EVALUATOR_TOKEN, "code: item of a constant list (checks iterate it)"
    if literal.is_dict_key:
        return TranslationType.PRESERVE, PreserveReason.ARGUMENT_NAME, "code: dict key"
    ttype, reason, rule = _shape_type(literal.value)
    if ttype is TranslationType.PRESERVE:
        return ttype, reason, "code: " + rule
    stripped = literal.value.strip()
    if re.fullmatch(r"[a-z_][a-z0-9_]*", stripped) or re.fullmatch(r"[a-z]+(?: [a-z]+)?", stripped):
        # lowercase words in checks are usually matched against data ("pizza" in subject.lower()):
        # kept unless the trial shows they can move with the data
        return TranslationType.PRESERVE, PreserveReason.EVALUATOR_TOKEN, "code: lowercase check token"
    if ttype is TranslationType.TRANSLATE_FREE and literal.where == "function_literal":
        return TranslationType.TRANSLATE_CANONICAL, None, "code: text literal (one rendering in code and data)"
    return TranslationType.TRANSLATE_CANONICAL, None, "code: " + rule


def _combined_drafts(bench: Any, spec: Any, module: Any) -> list[Draft]:
    """Tasks made by AgentDojo's TaskCombinator from two tasks of this module: their PROMPT and
    GROUND_TRUTH_OUTPUT are built at import time, so they are texts of their own (located at the
    parts' module, where `create_combined_task("UserTaskN", ...)` names them)."""
    from source_benchmarks.agentdojo.code_overlay import combined_parts

    drafts = []
    from source_benchmarks.agentdojo.code_overlay import default_combination

    for task in bench.source_suite.user_tasks.values():
        parts = combined_parts(type(task))
        if not parts or type(parts[0]).__module__ != module.__name__:
            continue
        default = default_combination(type(task).__name__, parts)
        for attr in ("PROMPT", "GROUND_TRUTH_OUTPUT"):
            value = getattr(task, attr, "")
            if value == getattr(default, attr, None):
                continue  # composed from the parts' texts at run time: the variant composes it from their translations
            if value and WORD.search(value):
                locator = PythonLiteralLocator(module=spec.path, qualname=f"{type(task).__name__}.{attr}", role="prompt", occurrence=0, line=0)
                drafts.append(Draft(spec.path, locator, "task_code:attribute", value, TranslationType.TRANSLATE_FREE, None, "combined task text (TaskCombinator)", task_scope=type(task).__name__))
    return drafts


def _python_drafts(bench: Any, spec: Any) -> list[Draft]:
    drafts = []
    module = _module_of(spec.path)
    if spec.role is ArtifactRole.TOOL_CODE:
        tools = {t.run.__name__ for t in bench.source_suite.tools if t.run.__module__ == module.__name__}
        docs = docstrings_of(bench.artifact_path(spec))
        for name in sorted(tools):
            doc = docs.get(name)
            for occurrence, piece in enumerate(docstring_pieces(doc or "")):
                locator = PythonLiteralLocator(module=spec.path, qualname=name, role="docstring", occurrence=occurrence, line=0)
                drafts.append(Draft(spec.path, locator, "tool_code:docstring", piece, TranslationType.TRANSLATE_FREE, None, "tool docstring (reST field names kept)"))
        for literal in scan_module(bench.artifact_path(spec), module):  # messages a tool returns or raises
            if literal.qualname not in tools or literal.is_dict_key:
                continue
            ttype, reason, rule = _shape_type(literal.value)
            if ttype is not TranslationType.PRESERVE and _word_count(literal.value) < 3:
                ttype, reason, rule = TranslationType.PRESERVE, PreserveReason.EVALUATOR_TOKEN, "tool code: a value, not a message"
            elif ttype is not TranslationType.PRESERVE:
                ttype, rule = TranslationType.TRANSLATE_FREE, "tool message (returned or raised)"
            locator = PythonLiteralLocator(module=spec.path, qualname=literal.qualname, role="tool_output", occurrence=literal.occurrence, line=literal.line)
            drafts.append(Draft(spec.path, locator, "tool_code:message", literal.value, ttype, reason, rule, task_scope=""))
        return drafts
    drafts += _combined_drafts(bench, spec, module)
    for literal in scan_module(bench.artifact_path(spec), module):
        role: Literal["prompt", "constant"] = "prompt" if literal.where == "attribute" else "constant"
        locator = PythonLiteralLocator(module=spec.path, qualname=literal.qualname, role=role, occurrence=literal.occurrence, line=literal.line)
        ttype, reason, rule = _literal_type(literal)
        scope = literal.qualname.split(".")[0] if "." in literal.qualname else ""
        drafts.append(Draft(spec.path, locator, f"task_code:{literal.where}", literal.value, ttype, reason, rule, task_scope=scope))
    return drafts


# ---- inline tokens ---------------------------------------------------------------------------
def _assign_inline_tokens(drafts: list[Draft]) -> None:
    canonical = {d.text for d in drafts if d.ttype is TranslationType.TRANSLATE_CANONICAL and len(d.text.strip()) >= 3 and d.text == d.text.strip()}
    kept = {d.text for d in drafts if d.ttype is TranslationType.PRESERVE and d.text == d.text.strip() and len(d.text) >= 3 and (always_token(d.text) or d.rule.startswith("trial"))}
    vocabulary = sorted(canonical | kept, key=lambda v: (-len(v), v))
    if not vocabulary:
        return
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(v) for v in vocabulary) + r")(?![\w])")
    checked: dict[tuple[str, str], set[str]] = {}  # (module, task class) -> lowercase values its checks keep
    for d in drafts:
        if d.task_scope and d.ttype is TranslationType.PRESERVE and d.locator.kind == "python_literal" and d.reason is not PreserveReason.ARGUMENT_NAME and len(d.text.strip()) >= 3 and WORD.search(d.text):
            checked.setdefault((d.artifact, d.task_scope), set()).add(d.text.strip())
    for draft in drafts:
        if draft.ttype is TranslationType.TRANSLATE_FREE:
            found = {m.group(0) for m in pattern.finditer(draft.text) if m.group(0) != draft.text}
            if draft.role == "task_code:attribute":  # the task's own answer and prompt keep what its checks look for ("island trailhead")
                for value in checked.get((draft.artifact, draft.task_scope), ()):
                    found |= {m.group(0) for m in re.finditer(r"(?<![\w])" + re.escape(value) + r"(?![\w])", draft.text, re.IGNORECASE)}
            draft.inline_tokens = sorted(found, key=lambda v: (-len(v), v))
    # fields with one text are one translation unit: they share their tokens (a v1 and a v1.2.2 PROMPT)
    shared: dict[tuple[str, str], set[str]] = {}
    for draft in drafts:
        if draft.ttype is TranslationType.TRANSLATE_FREE:
            shared.setdefault((draft.text, draft.role), set()).update(draft.inline_tokens)
    for draft in drafts:
        if draft.ttype is TranslationType.TRANSLATE_FREE:
            draft.inline_tokens = sorted(shared[(draft.text, draft.role)], key=lambda v: (-len(v), v))


# ---- the perturbation trial ------------------------------------------------------------------
def _canonical(text: str) -> str:
    out, last = [], 0
    for start, end in _kept_spans(text):
        out.append(text[last:start].translate(ACCENT_TABLE))
        out.append(text[start:end])
        last = end
    out.append(text[last:].translate(ACCENT_TABLE))
    return "ᵃ" + "".join(out) + "ᵃ"  # marks at both ends: one canonical value is no substring of another, as in a real translation


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
    for start, end in slots + _kept_spans(text):
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


def perturbed_targets(drafts: list[Draft]) -> dict[str, str]:
    canonical = {d.text for d in drafts if d.ttype is TranslationType.TRANSLATE_CANONICAL}
    targets = {}
    for draft in drafts:
        if draft.ttype is TranslationType.TRANSLATE_CANONICAL:
            targets[draft.id] = _canonical(draft.text)
        elif draft.ttype is TranslationType.TRANSLATE_FREE:
            targets[draft.id] = _free(draft.text, draft.inline_tokens, canonical)
    return targets


def outcome_signature(outcome: Any) -> tuple:
    """What must not move: the score, injectability, and which ground-truth calls fail (a search
    whose query no longer matches the translated data fails even where the score survives)."""
    return (outcome.reward, outcome.reward_breakdown.get("injectable"), tuple(c.name for c in outcome.tool_calls if c.error))


def _trial(bench: Any, drafts: list[Draft], workdir: Path, round_no: int, task_ids: list[str]) -> dict[str, Any]:
    from source_benchmarks.agentdojo.adapter import AgentDojoBenchmark
    from source_benchmarks.yaml_io import dump_yaml, load_yaml, set_at

    targets = perturbed_targets(drafts)
    root = workdir / f"trial{round_no}"
    by_artifact: dict[str, list[Draft]] = {}
    for draft in drafts:
        by_artifact.setdefault(draft.artifact, []).append(draft)
    overlay = CodeOverlay(language="trial")
    for spec in bench.artifacts():
        items = [d for d in by_artifact.get(spec.path, []) if d.id in targets]
        if spec.format is ArtifactFormat.YAML:
            document = load_yaml(bench.artifact_path(spec))
            for draft in items:
                set_at(document, tuple(draft.locator.path), targets[draft.id])
            (root / spec.path).parent.mkdir(parents=True, exist_ok=True)
            dump_yaml(root / spec.path, document)
        elif spec.role is ArtifactRole.PROMPT_CODE or spec.role is ArtifactRole.TOOL_CODE:
            for draft in items:
                if draft.locator.role == "docstring":
                    continue  # descriptions reach no check
                overlay.texts.append(CodeText(module=spec.path, qualname=draft.locator.qualname, role=draft.locator.role, occurrence=draft.locator.occurrence, source=draft.text, target=targets[draft.id]))
    variant = AgentDojoBenchmark(bench.id, variant_root=root, overlay=overlay)
    try:
        variant.validate_artifacts()
    except Exception as exc:  # noqa: BLE001 - a trial that does not load is a finding of the analysis itself
        raise RuntimeError(f"perturbation trial {round_no} does not load: {exc}") from exc
    return {o.task_id: o for o in variant.replay_golden(task_ids, label=f"analysis: perturbation trial {round_no}")}


def _keep_messages_of(tools: set[str], drafts: list[Draft], evidence: RuntimeEvidence) -> None:
    """The messages of the tools a differing task's ground truth calls are kept: a check or the
    ground truth may read a tool's output (its answer is built from it)."""
    for draft in drafts:
        if draft.role == "tool_code:message" and draft.ttype is not TranslationType.PRESERVE and draft.locator.qualname in tools:
            draft.keep(PreserveReason.EVALUATOR_TOKEN, "trial: a message of a tool the differing task calls", evidence)


def _reaches_environment(draft: Draft) -> bool:
    """The system message and the vectors' descriptions never reach a task's environment or checks."""
    if draft.artifact.endswith("system_messages.yaml"):
        return False
    return not (draft.artifact.endswith("injection_vectors.yaml") and draft.locator.path[-1] == "description")


def _demote_for(task_id: str, bench: Any, drafts: list[Draft], round_no: int, detail: str) -> int:
    from source_benchmarks.agentdojo.code_overlay import combined_parts
    from source_benchmarks.agentdojo.files import module_path

    tasks = {**bench.source_suite.user_tasks, **bench.source_suite.injection_tasks}
    classes = [type(tasks[task_id])]
    while any(combined_parts(c) for c in classes):  # a TaskCombinator task: its parts hold the literals
        classes = [type(p) for c in classes for p in (combined_parts(c) or [None]) if p is not None] + [c for c in classes if not combined_parts(c)]
    evidence = RuntimeEvidence(source="golden_replay", detail=detail, task_id=task_id)
    scope: list[Draft] = []
    for cls in classes:
        module = module_path(cls.__module__)
        scope += [d for d in drafts if d.artifact == module and d.task_scope in (cls.__name__, "") and d.locator.role == "constant"]
        if round_no >= 2:  # still failing: the task's texts and the module's constants too
            scope += [d for d in drafts if d.artifact == module and d.task_scope == cls.__name__]
    words = {d.text.strip().lower() for d in scope if len(d.text.strip()) >= 3 and WORD.search(d.text) and d.role != "task_code:attribute" and not d.reason == PreserveReason.ARGUMENT_NAME}
    data = [d.text.lower() for d in drafts if d.locator.kind == "data_value"]
    linked = {w for w in words if any(w in text for text in data)}
    if linked and round_no < 2:  # first the literals the data holds: those are the links
        words = linked
        scope = [d for d in scope if d.text.strip().lower() in linked]
    changed = 0
    for draft in scope:
        if draft.ttype is not TranslationType.PRESERVE and draft.role != "task_code:attribute":
            draft.keep(PreserveReason.EVALUATOR_TOKEN, f"trial: perturbing it changed {task_id}", evidence)
            changed += 1
    for draft in drafts:
        if draft.locator.kind == "data_value" and draft.ttype is not TranslationType.PRESERVE and _reaches_environment(draft):
            lowered = draft.text.lower()
            if any(word in lowered for word in words):
                draft.keep(PreserveReason.LINKED_ENTITY, f"trial: holds a literal {task_id} checks", evidence)
                changed += 1
    return changed


def _code_values_are_canonical(drafts: list[Draft]) -> None:
    """A value a check or ground truth holds as a literal is one entity: every YAML field equal to
    it is rendered the same way (Translate-Canonical), whatever its length."""
    in_code = {d.text for d in drafts if d.locator.kind == "python_literal" and d.ttype is TranslationType.TRANSLATE_CANONICAL}
    for draft in drafts:
        if draft.role != "tool_code:docstring" and draft.ttype is TranslationType.TRANSLATE_FREE and draft.text in in_code:
            draft.ttype, draft.rule = TranslationType.TRANSLATE_CANONICAL, "value also a code literal: one rendering in code and data"


def _unify(drafts: list[Draft]) -> None:
    """One value, one type: a value the trial kept somewhere is kept everywhere it is a value
    (a canonical rendering injected into prose would otherwise differ from the kept literal)."""
    kept = {d.text: d for d in drafts if d.ttype is TranslationType.PRESERVE and d.rule.startswith("trial")}
    for draft in drafts:
        if draft.ttype is not TranslationType.PRESERVE and draft.text in kept and draft.role != "tool_code:docstring":
            first = kept[draft.text]
            draft.keep(first.reason or PreserveReason.LINKED_ENTITY, f"trial: same value as a kept one ({first.rule.removeprefix('trial: ')})", first.evidence[0] if first.evidence else None)


def _apply_overrides(drafts: list[Draft], profile: LoadedProfile) -> None:
    by_id = profile.overrides  # element id -> reviewed override
    for draft in drafts:
        override = by_id.get(draft.id)
        if override is not None:
            draft.ttype, draft.reason, draft.rule = override.type, override.reason, f"profile override: {override.note or 'reviewed'}"


def analyze_agentdojo(bench: Any, profile: LoadedProfile | None = None, progress: Progress | None = None) -> IRDocument:
    progress = progress or (lambda message: None)
    profile = profile or load_profile(bench.id)
    progress("checking every artifact loads")
    bench.validate_artifacts()
    progress("ground truth of every task (source)")
    source = {o.task_id: o for o in bench.replay_golden(label="analysis: ground truth")}
    drafts: list[Draft] = []
    for spec in bench.artifacts():
        progress(f"inventory {spec.path}")
        drafts += _yaml_drafts(bench, spec) if spec.format is ArtifactFormat.YAML else _python_drafts(bench, spec)
    _code_values_are_canonical(drafts)
    _apply_overrides(drafts, profile)
    differing: list[str] = []
    with tempfile.TemporaryDirectory(prefix="babelflow-agentdojo-trial-") as tmp:
        for round_no in range(MAX_TRIAL_ROUNDS):
            _assign_inline_tokens(drafts)
            progress(f"perturbation trial {round_no}")
            # later rounds replay the tasks that still differed: keeping more only moves a task towards its source
            trial = _trial(bench, drafts, Path(tmp), round_no, differing if round_no else list(source))
            differing = [t for t in trial if outcome_signature(trial[t]) != outcome_signature(source[t])]
            if not differing:
                break
            progress(f"perturbation trial {round_no}: differ {', '.join(differing)}")
            for task_id in differing:
                detail = f"perturbed suite: {outcome_signature(source[task_id])} -> {outcome_signature(trial[task_id])} (reward, injectable, failing calls)"[:300]
                _demote_for(task_id, bench, drafts, round_no, detail)
                _keep_messages_of({c.name for c in source[task_id].tool_calls}, drafts, RuntimeEvidence(source="golden_replay", detail=detail, task_id=task_id))
            _unify(drafts)
        else:
            _assign_inline_tokens(drafts)
            progress(f"perturbation trial: {len(differing)} task(s) still differ after {MAX_TRIAL_ROUNDS} rounds (validation will name them)")
    _apply_overrides(drafts, profile)  # a reviewer's decision wins over the trial
    return _document(bench, profile, drafts)


def _document(bench: Any, profile: LoadedProfile, drafts: list[Draft]) -> IRDocument:
    elements, groups = [], {}
    members: dict[str, list[Draft]] = {}
    for draft in drafts:
        if draft.ttype is not TranslationType.TRANSLATE_FREE:
            members.setdefault(draft.text, []).append(draft)
    for value, holders in members.items():
        artifacts = sorted({h.artifact for h in holders})
        evidence = [e for h in holders for e in h.evidence][:5]
        if len(artifacts) < 2 and not evidence:
            continue
        kinds = [LinkKind.COMPARED_IN_CODE] if any(h.locator.kind == "python_literal" for h in holders) else [LinkKind.DB_LOOKUP]
        group_id = "lg_" + hashlib.blake2b(value.encode(), digest_size=8).hexdigest()
        groups[value] = LinkGroup(id=group_id, value=value, kinds=kinds, member_count=len(holders), artifacts=artifacts, evidence=evidence)
    for draft in drafts:
        links = [groups[draft.text].id] if draft.text in groups and draft.ttype is not TranslationType.TRANSLATE_FREE else []
        elements.append(
            IRElement.model_construct(
                id=draft.id, artifact=draft.artifact, locator=draft.locator, role=draft.role, source_text=draft.text,
                translation_type=draft.ttype, preserve_reason=draft.reason,
                canonical_group=CANONICAL_GROUP if draft.ttype is TranslationType.TRANSLATE_CANONICAL else None,
                typing_rule=draft.rule, links=links, inline_tokens=draft.inline_tokens,
            )
        )
    return IRDocument.model_construct(
        schema_version=IR_SCHEMA_VERSION, benchmark=bench.id, source_version=bench.source_version, analyzer_version=ANALYZER_VERSION,
        profile_sha256=profile.sha256, artifacts=bench.fingerprints(), elements=elements, link_groups=list(groups.values()),
    )
