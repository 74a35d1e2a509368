"""A run's slice of the project's state, pulled from the shared stores before it starts and pushed
after every stage, so a run on any worker resumes where the last one (on any other) stopped.

Keys are relative to three roots, the same on every worker: `state/` (.babelflow), `adapted/` and
`canonical_maps/`. Translation memories, the review log and canonical maps are documents
(compare-and-swap; an append-only log merges); the rest are objects at their natural keys plus one
index per (benchmark, language) and one per benchmark, written last: a reader fetches only what an
index names, with its hash checked, so it never sees half of a push."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from babelflow.atomic_io import sha256_bytes, write_bytes_atomic
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.shared_state.documents import DocumentStore, VersionConflict
from babelflow.shared_state.objects import ObjectStore
from babelflow.state_layout import StateLayout

INDEX_PREFIX = "_index/"


class SyncReport(Record):
    pulled: list[str] = []
    pushed: list[str] = []
    deleted: list[str] = []
    merged: list[str] = []


@dataclass(frozen=True)
class RunScope:
    """What one (benchmark, language) run reads and writes, by kind of store."""

    benchmark: str
    language: str

    def documents(self) -> list[str]:
        b, lang = self.benchmark, self.language
        return [
            f"state/tm/{b}/{lang}/",
            f"state/review/{b}/{lang}/",
            f"state/review/{b}/profile_overrides.json",
            f"canonical_maps/{b}/{lang}.json",
        ]

    def language_objects(self) -> list[str]:
        b, lang = self.benchmark, self.language
        return [f"state/runs/{b}/{lang}/", f"state/costs/{b}/{lang}/", f"adapted/{b}/{lang}/", f"adapted/{b}/{lang}."]

    def benchmark_objects(self) -> list[str]:
        return [f"state/ir/{self.benchmark}.json", f"state/replays/{self.benchmark}/"]

    def language_index(self) -> str:
        return f"{INDEX_PREFIX}{self.benchmark}/{self.language}.json"

    def benchmark_index(self) -> str:
        return f"{INDEX_PREFIX}{self.benchmark}.json"


def _roots(layout: StateLayout) -> dict[str, Path]:
    return {"state": layout.state, "adapted": layout.adapted, "canonical_maps": layout.canonical_maps}


def _in(key: str, prefixes: list[str]) -> bool:
    return any(key == p or (p.endswith(("/", ".")) and key.startswith(p)) for p in prefixes)


@dataclass
class StateSync:
    layout: StateLayout
    objects: ObjectStore
    documents: DocumentStore
    scope: RunScope
    _doc_versions: dict[str, int] = field(default_factory=dict)
    _doc_hashes: dict[str, str] = field(default_factory=dict)
    _object_hashes: dict[str, dict[str, str]] = field(default_factory=dict)

    # ---- local files -----------------------------------------------------------------------------
    def _path(self, key: str) -> Path:
        root, _, rest = key.partition("/")
        return _roots(self.layout)[root] / rest

    def local_files(self, prefixes: list[str]) -> dict[str, Path]:
        """key -> path of every local file under the prefixes (temp files of atomic writes excluded)."""
        found: dict[str, Path] = {}
        for name, root in _roots(self.layout).items():
            if not root.is_dir():
                continue
            for prefix in prefixes:
                head, _, rest = prefix.partition("/")
                if head != name:
                    continue
                base = root / rest
                folder = base if prefix.endswith("/") else base.parent
                if not folder.is_dir():
                    continue
                candidates: Iterator[Path] = folder.rglob("*") if prefix.endswith("/") else folder.iterdir()
                for path in candidates:
                    key = f"{name}/{path.relative_to(root).as_posix()}"
                    if path.is_file() and ".babelflow-" not in path.name and _in(key, [prefix]):
                        found[key] = path
        return found

    # ---- pull --------------------------------------------------------------------------------------
    def pull(self) -> SyncReport:
        """Bring the shared state of the scope into the local folders (what is already equal stays)."""
        report = SyncReport()
        for prefix in self.scope.documents():
            for doc in self.documents.read_prefix(prefix):
                if not _in(doc.key, [prefix]):
                    continue
                self._doc_versions[doc.key] = doc.version
                self._doc_hashes[doc.key] = sha256_bytes(doc.body)
                if self._write_local(doc.key, doc.body):
                    report.pulled.append(doc.key)
        for index_key in (self.scope.benchmark_index(), self.scope.language_index()):
            index = self._read_index(index_key)
            self._object_hashes[index_key] = dict(index)
            for key, digest in index.items():
                path = self._path(key)
                if path.is_file() and sha256_bytes(path.read_bytes()) == digest:
                    continue
                data = self.objects.get(key)
                if data is None or sha256_bytes(data) != digest:
                    raise BabelflowError(
                        f"Shared object {key} is missing or differs from its index {index_key}",
                        field=key,
                        fix="rerun: a push in progress finishes its index last; if it persists, delete the index",
                    )
                self._write_local(key, data)
                report.pulled.append(key)
        return report

    def _write_local(self, key: str, data: bytes) -> bool:
        path = self._path(key)
        if path.is_file() and path.read_bytes() == data:
            return False
        write_bytes_atomic(path, data)
        return True

    def _read_index(self, key: str) -> dict[str, str]:
        data = self.objects.get(key)
        return dict(orjson.loads(data)) if data else {}

    # ---- push --------------------------------------------------------------------------------------
    def push(self) -> SyncReport:
        """Publish what changed locally since the pull (or the last push)."""
        report = SyncReport()
        self._push_documents(report)
        self._push_objects(self.scope.benchmark_index(), self.scope.benchmark_objects(), report, merge=True)
        self._push_objects(self.scope.language_index(), self.scope.language_objects(), report, merge=False)
        return report

    def _push_documents(self, report: SyncReport) -> None:
        local = self.local_files(self.scope.documents())
        for key, path in sorted(local.items()):
            body = path.read_bytes()
            digest = sha256_bytes(body)
            if self._doc_hashes.get(key) == digest:
                continue
            expected = self._doc_versions.get(key, 0)
            try:
                self._doc_versions[key] = self.documents.write(key, body, expected)
            except VersionConflict:
                merged = self._merge(key, body)
                if merged != body:
                    report.merged.append(key)
                body = merged
            self._doc_hashes[key] = sha256_bytes(body)
            report.pushed.append(key)
        for key in sorted(set(self._doc_hashes) - set(local)):
            self.documents.delete(key, self._doc_versions[key])
            del self._doc_hashes[key], self._doc_versions[key]
            report.deleted.append(key)

    def _merge(self, key: str, body: bytes) -> bytes:
        """Another writer got in first. The same bytes are no conflict (two languages writing a benchmark's
        empty profile overrides); an append-only log (.jsonl) keeps both sides' lines (theirs first, then
        ours that they lack); any other document is refused: nobody's write is silently dropped."""
        current = self.documents.read(key)
        if current is not None and current.body == body:
            self._doc_versions[key] = current.version
            return body
        if not key.endswith(".jsonl"):
            raise VersionConflict(
                f"Shared document {key} was changed by another writer during this run",
                field=key,
                fix="rerun: the next run reads their version and redoes only what it touches",
            )
        for _ in range(8):
            current = self.documents.read(key)
            theirs = current.body.splitlines() if current else []
            known = set(theirs)
            merged_lines = theirs + [line for line in body.splitlines() if line not in known]
            merged = b"".join(line + b"\n" for line in merged_lines)
            try:
                self._doc_versions[key] = self.documents.write(key, merged, current.version if current else 0)
            except VersionConflict:
                continue
            self._write_local(key, merged)
            return merged
        raise VersionConflict(f"Shared document {key} keeps changing", field=key, fix="rerun")

    def _push_objects(self, index_key: str, prefixes: list[str], report: SyncReport, merge: bool) -> None:
        local = {key: sha256_bytes(path.read_bytes()) for key, path in self.local_files(prefixes).items()}
        known = self._object_hashes.get(index_key, {})
        changed = {k: d for k, d in local.items() if known.get(k) != d}
        gone = sorted(set(known) - set(local))
        if not changed and not gone:
            return
        for key in sorted(changed):
            self.objects.put(key, self._path(key).read_bytes())
            report.pushed.append(key)
        if not merge:  # the language index has one writer: the run lock's holder
            for key in gone:
                self.objects.delete(key)
                report.deleted.append(key)
            self._write_index(index_key, dict(local))
            return
        # the benchmark index is shared by every language's run: reread it and add ours under its own lock
        # (an IR is the same bytes whoever analysed it), so two runs' additions never overwrite each other
        with self.documents.lock(f"index:{index_key}", f"push {self.scope.language}", wait=120):
            self._write_index(index_key, {**self._read_index(index_key), **local})

    def _write_index(self, index_key: str, index: dict[str, str]) -> None:
        self.objects.put(index_key, orjson.dumps(dict(sorted(index.items()))))
        self._object_hashes[index_key] = index
