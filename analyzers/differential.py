"""Differential analysis: perturb a field path in a scratch copy and rerun what the benchmark runs.

Used where the instrumented replay leaves a field's role open (no observation on the field or its
path: task ids, enum-typed fields tau2 converts at load, DB records no golden action reaches).
A perturbation is a pseudo-translation with a per-path ASCII marker. One trial runs, on a scratch
copy of the data files: the benchmark's own loaders and models (a rejected value is an outcome),
its split selection, and golden + do-nothing replays of a few tasks holding the path (rewards,
tool errors, golden/do-nothing DB parity, evaluator errors, and whether the marker reaches a tool
result the agent reads). Paths are batched per artifact; a batch whose outcome changes is
bisected. A path that changes an outcome alone is tried once more together with every equal
string in every data file (split files included): if the outcome comes back, it is a link.
"""

from __future__ import annotations

import copy
import gc
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from analyzers.located_evidence import Observed
from babelflow.atomic_io import dump_json_bytes
from babelflow.gc_pause import gc_paused
from babelflow.ir import ArtifactFormat, EvidenceScope, LinkKind
from source_benchmarks.protocol import parity_signature
from source_benchmarks.registry import family_of

PathKey = tuple[str, tuple, bool]  # (artifact, generalized path, is_key)
MAX_TASKS = 4


@dataclass
class OpenPath:
    key: PathKey  # (the artifact or its group's pattern, generalized path, is_key)
    locations: list[tuple[str, tuple]]  # (file, concrete path); a key's path ends with the key
    values: set[str]
    task_indices: list[int]


def encode_document(fmt: ArtifactFormat, document: Any) -> bytes:
    """The bytes `formats.dump_document` writes for `document` (tests/analyzers/test_differential_copy.py
    holds the two equal)."""
    if fmt is ArtifactFormat.JSON:
        return dump_json_bytes(document) + b"\n"
    if fmt is ArtifactFormat.TOML:
        return tomlkit.dumps(document).encode("utf-8")
    raise ValueError(f"the differential writes JSON and TOML data files, not {fmt.value}")


def _marker(index: int) -> str:
    return f"Xq{index}_"


def _perturb(value: str, index: int) -> str:
    return f"{_marker(index)}{value}_qX"


def _own(document: Any, where: tuple, copied: set[int]) -> Any:
    """The container at `where` in `document` (a copy), every container on the way copied once:
    copy on write. A trial changes a few leaves of files up to 14 MB (telecom's tasks): a deep copy
    of each per trial was most of the differential's time. Only copies in `copied` are ever changed;
    raises KeyError/IndexError/TypeError where the path does not lead, as walking it does."""
    parent = document
    for segment in where:
        child = parent[segment]
        if isinstance(child, (dict, list)) and id(child) not in copied:
            child = copy.copy(child)
            parent[segment] = child
            copied.add(id(child))
        parent = child
    return parent


def _copy_root(document: Any, copied: set[int]) -> Any:
    root = copy.copy(document) if isinstance(document, (dict, list)) else document
    copied.add(id(root))
    return root


def _rename_keys(parent: dict, names: dict[str, str]) -> None:
    """Keys renamed in place, in their order."""
    items = [(names.get(k, k) if isinstance(k, str) else k, v) for k, v in parent.items()]
    parent.clear()
    parent.update(items)


def _apply(document: Any, path: OpenPath, artifact: str, index: int, copied: set[int]) -> None:
    is_key = path.key[2]
    # values first; then keys, deepest first, so a renamed parent never hides a child
    for where in sorted((where for file, where in path.locations if file == artifact), key=len, reverse=True):
        try:
            parent = _own(document, where[:-1], copied)
        except (KeyError, IndexError, TypeError):
            continue
        last = where[-1]
        if is_key:
            if isinstance(parent, dict) and last in parent:
                items = [(_perturb(k, index) if k == last else k, v) for k, v in parent.items()]
                parent.clear()
                parent.update(items)
        elif isinstance(parent, (dict, list)):
            try:
                if isinstance(parent[last], str):
                    parent[last] = _perturb(parent[last], index)
            except (KeyError, IndexError):
                continue


Occurrences = dict[str, list[tuple[tuple, bool]]]  # string -> (path, is_key) of every leaf and key equal to it


def _occurrences(node: Any, path: tuple = (), found: Occurrences | None = None) -> Occurrences:
    """Where each string sits in a document, as a leaf or as a key (telecom's 14 MB of tasks hold
    2,514 distinct strings): a link trial looks its values up instead of rebuilding every file."""
    found = {} if found is None else found
    if isinstance(node, str):
        found.setdefault(node, []).append((path, False))
    elif isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str):
                found.setdefault(key, []).append((path + (key,), True))
            _occurrences(value, path + (key,), found)
    elif isinstance(node, list):
        for position, value in enumerate(node):
            _occurrences(value, path + (position,), found)
    return found


def _replace_equal(document: Any, occurrences: Occurrences, values: dict[str, str]) -> Any:
    """`document` with every string leaf and key equal to a perturbed value perturbed the same way
    (link trial); containers holding none are shared with `document`, which stays unchanged."""
    places = [place for value in values for place in occurrences.get(value, ())]
    if not places:
        return document
    if any(path == () for path, _ in places):  # the document is itself one of the strings
        return values[document]
    copied: set[int] = set()
    root = _copy_root(document, copied)
    renamed: dict[int, dict] = {}  # every key of a dict renamed at once: no path is walked after a rename
    for path, is_key in places:
        parent = _own(root, path[:-1], copied)
        if is_key:
            renamed[id(parent)] = parent
        else:
            parent[path[-1]] = values[parent[path[-1]]]
    for parent in renamed.values():
        _rename_keys(parent, values)
    return root


def watched_indices(bench: Any, limit: int = MAX_TASKS) -> list[int]:
    """Task positions whose replays together reach most tools (DB field paths and tool-code texts are
    tried on them), in file order."""
    ids = bench.task_ids(None)
    traced = family_of(bench.id).traced_replay(bench)
    chosen = traced.watched_tasks(limit) if traced is not None else set(ids[:limit])  # without: the first tasks
    return [index for index, task_id in enumerate(ids) if task_id in chosen]


class DifferentialRunner:
    """Runs trials against scratch copies of one benchmark's data files."""

    def __init__(self, bench: Any, open_benchmark: Callable[[Path], Any]):
        self.bench = bench
        self.open_benchmark = open_benchmark  # source_dir -> adapter, e.g. get_benchmark(id, source_dir=...)
        self.data_specs = [
            s
            for s in bench.artifacts()
            if s.format in (ArtifactFormat.JSON, ArtifactFormat.TOML) and s.path.startswith("data/")
        ]
        self.documents = {s.path: bench.load_artifact(s) for s in self.data_specs}
        self.formats = {s.path: s.format for s in self.data_specs}
        self._occurrences: dict[str, Occurrences] = {}  # per artifact, built for the first link trial
        self._encoded: dict[str, bytes] = {}  # the unchanged files, as a trial writes them
        self.trials = 0
        self._baseline: dict[int, tuple] = {}
        self._baseline_splits: tuple | None = None

    # ---- one trial -------------------------------------------------------------------------
    def _write(self, folder: Path, documents: dict[str, Any]) -> None:
        for artifact, document in documents.items():
            target = folder / artifact[len("data/") :]
            target.parent.mkdir(parents=True, exist_ok=True)
            if document is self.documents[artifact]:  # unchanged (a link trial writes every file): encoded once
                if artifact not in self._encoded:
                    self._encoded[artifact] = encode_document(self.formats[artifact], document)
                data = self._encoded[artifact]
            else:
                data = encode_document(self.formats[artifact], document)
            target.write_bytes(data)  # a scratch file, deleted after the trial: no fsync, no temp name

    def _outcome(
        self, bench: Any, indices: list[int], replay: bool = True
    ) -> tuple[tuple, dict[int, tuple], str | None]:
        try:
            bench.validate_artifacts()
            ids = bench.task_ids(None)
            splits = tuple(sorted((name, len(bench.task_ids(name))) for name in bench.splits()))
            chosen = [ids[i] for i in indices if i < len(ids)] if replay else []
            pairs = bench.replay_pairs(chosen, label="analysis: differential trial") if chosen else []
        except Exception as exc:  # the benchmark's own loaders/models refuse it: that is the outcome
            return (), {}, f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        result: dict[int, tuple] = {}
        for index, (golden, nothing) in zip(indices, pairs):
            outputs = " ".join(call.output for call in golden.tool_calls)
            result[index] = (parity_signature(golden, nothing), outputs)
        return splits, result, None

    def baseline(self, indices: list[int]) -> tuple:
        """Replay the unperturbed benchmark for `indices` not seen yet; its task splits."""
        missing = [i for i in indices if i not in self._baseline]
        splits = self._baseline_splits
        if missing or splits is None:
            splits, result, error = self._outcome(self.bench, missing)
            if error:
                raise RuntimeError(f"the unperturbed benchmark fails its own replay: {error}")
            self._baseline_splits = splits
            self._baseline.update({i: signature for i, (signature, _) in result.items()})
        return splits

    def trial(
        self, documents: dict[str, Any], indices: list[int], replay: bool = True
    ) -> tuple[str | None, dict[int, str]]:
        """(what changed or None, outputs per task) for perturbed `documents` (others unchanged).
        Without `replay`, only the loaders, models and split selection run (cheap)."""
        self.trials += 1
        indices = indices if replay else []
        baseline_splits = self.baseline(indices)
        folder = Path(tempfile.mkdtemp(prefix="babelflow-differential-"))
        try:
            self._write(folder, documents)
            splits, result, error = self._outcome(self.open_benchmark(folder), indices, replay)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            # the trial's benchmark is a reference cycle (adapter <-> environment factory) holding its
            # parsed files: freed here, by a collection of what this trial allocated only (see run)
            gc.collect(0)
        if error:
            return f"the benchmark's loaders refuse it ({error})", {}
        if splits != baseline_splits:
            return f"task splits change {dict(baseline_splits)} -> {dict(splits)}", {}
        outputs = {i: out for i, (_, out) in result.items()}
        for index, (signature, _) in result.items():
            if signature != self._baseline[index]:
                return (
                    f"task #{index}: outcome {self._baseline[index][:2]} -> {signature[:2]}, "
                    f"tool errors/DB parity {signature[2:]}",
                    outputs,
                )
        return None, outputs

    # ---- batches, bisection, links ---------------------------------------------------------
    def _perturbed(self, paths: list[tuple[int, OpenPath]]) -> dict[str, Any]:
        documents: dict[str, Any] = {}
        copied: dict[str, set[int]] = {}
        for index, path in paths:
            for artifact in dict.fromkeys(file for file, _ in path.locations):  # a group spans files
                if artifact not in documents:
                    copied[artifact] = set()
                    documents[artifact] = _copy_root(self.documents[artifact], copied[artifact])
                _apply(documents[artifact], path, artifact, index, copied[artifact])
        return documents

    def _linked(self, values: dict[str, str]) -> dict[str, Any]:
        """Every data file, with each string equal to a perturbed value perturbed the same way."""
        linked: dict[str, Any] = {}
        for artifact, document in self.documents.items():
            if artifact not in self._occurrences:
                self._occurrences[artifact] = _occurrences(document)
            linked[artifact] = _replace_equal(document, self._occurrences[artifact], values)
        return linked

    def run(self, paths: list[OpenPath], watched: list[int]) -> dict[PathKey, Observed]:
        numbered = list(enumerate(paths))
        found: dict[PathKey, Observed] = {}
        # Each trial parses and validates whole files (telecom: 14 MB of tasks): the collections that
        # allocation triggered walked every live object of the analysis (its trace, its elements) again
        # and again, ~60% of the differential's CPU. Paused; each trial's garbage goes with it (trial).
        with gc_paused():
            # loaders, models and splits first (no replay: cheap), bisected; what they accept is replayed
            self._bisect(numbered, watched, found, replay=False)
            self._bisect([(i, p) for i, p in numbered if p.key not in found], watched, found, replay=True)
        return found

    def _indices(self, batch: list[tuple[int, OpenPath]], watched: list[int]) -> list[int]:
        chosen: list[int] = []
        for _, path in batch:
            for index in path.task_indices[:2]:
                if index not in chosen:
                    chosen.append(index)
        for index in watched:
            if len(chosen) >= MAX_TASKS:
                break
            if index not in chosen:
                chosen.append(index)
        return chosen[:MAX_TASKS]

    def _bisect(
        self, batch: list[tuple[int, OpenPath]], watched: list[int], found: dict[PathKey, Observed], replay: bool
    ) -> None:
        if not batch:
            return
        indices = self._indices(batch, watched)
        changed, outputs = self.trial(self._perturbed(batch), indices, replay)
        if changed is None and not replay:
            return  # the loaders accept it: decided by the replay round
        if changed is None:
            shown = " ".join(outputs.values())
            for index, path in batch:
                if _marker(index) in shown:
                    found[path.key] = Observed(
                        EvidenceScope.DIFFERENTIAL,
                        frozenset({LinkKind.TOOL_OUTPUT}),
                        "perturbed: reaches a tool result, changes no outcome",
                    )
                else:
                    found[path.key] = Observed(EvidenceScope.DIFFERENTIAL, frozenset(), "perturbed: changes no outcome")
            return
        if len(batch) > 1:
            middle = len(batch) // 2
            self._bisect(batch[:middle], watched, found, replay)
            self._bisect(batch[middle:], watched, found, replay)
            return
        index, path = batch[0]
        values = {value: _perturb(value, index) for value in path.values}
        restored, _ = self.trial(self._linked(values), indices, replay)
        if restored is None:
            detail = f"perturbed alone: {changed}; with its equal fields in every data file: outcome returns (link)"
        else:
            detail = f"perturbed alone: {changed}"
        found[path.key] = Observed(
            EvidenceScope.DIFFERENTIAL, frozenset({LinkKind.PERTURBATION_CHANGES_OUTCOME}), detail
        )
