"""Translation memory: every finished batch is appended (and fsynced) before the next starts.

Keyed on (translator id incl. model and prompt version, target language, kind, context, protected
text), so a crash, a retry or a rerun never pays twice for the same segment. A torn last line
from a killed process is ignored on load.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import orjson


def memory_key(translator_id: str, language: str, kind: str, context: str, protected_text: str) -> str:
    raw = "\0".join((translator_id, language, kind, context, protected_text)).encode()
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class TranslationMemory:
    def __init__(self, path: Path | None):
        self.path = Path(path) if path else None
        self.entries: dict[str, str] = {}
        self.hits = 0
        self.appended = 0
        if self.path and self.path.exists():
            for line in self.path.read_bytes().splitlines():
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # torn write of a killed run: that batch is simply redone
                self.entries[record["key"]] = record["target"]

    def get(self, key: str) -> str | None:
        value = self.entries.get(key)
        if value is not None:
            self.hits += 1
        return value

    def put_many(self, items: dict[str, str]) -> None:
        self.entries.update(items)
        self.appended += len(items)
        if not self.path or not items:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as handle:
            handle.write(b"".join(orjson.dumps({"key": k, "target": v}) + b"\n" for k, v in items.items()))
            handle.flush()
            os.fsync(handle.fileno())

    def forget(self, keys: set[str]) -> int:
        """Drop entries (a confirmed bad translation) and rewrite the file atomically."""
        from babelflow.atomic_io import write_bytes_atomic

        gone = [k for k in keys if k in self.entries]
        for key in gone:
            del self.entries[key]
        if self.path and gone:
            write_bytes_atomic(self.path, b"".join(orjson.dumps({"key": k, "target": v}) + b"\n" for k, v in self.entries.items()))
        return len(gone)
