"""Translation memory: every finished batch is appended (and fsynced) before the next starts.

Keyed on (translator id incl. model and prompt version, target language, kind, context, protected
text), so a crash, a retry or a rerun never pays twice for the same segment. A torn last line
from a killed process is ignored on load (and the next append starts on a line of its own).

Any other line that is not `{"key": str, "target": str}` (an outside edit, disk damage) is dropped
with one warning naming the file and its line numbers, and its segment is translated again. The
memory is a cache this tool writes: refusing the run would only make the user delete the same
line by hand to reach the same state, and a non-text target must never reach a variant. The file
itself is left as it is for inspection; the next `forget` rewrites it without the damaged lines.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import orjson

from babelflow.atomic_io import write_bytes_atomic
from babelflow.errors import BabelflowError

log = logging.getLogger("babelflow.memory")
_SHOWN_LINES = 10  # line numbers named in the warning; the count covers the rest


def memory_key(translator_id: str, language: str, kind: str, context: str, protected_text: str) -> str:
    raw = "\0".join((translator_id, language, kind, context, protected_text)).encode()
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _is_entry(record: object) -> bool:
    """What `put_many` writes: exactly a key and a target, both text."""
    if not isinstance(record, dict) or record.keys() != {"key", "target"}:
        return False
    return isinstance(record["key"], str) and isinstance(record["target"], str)


class TranslationMemory:
    def __init__(self, path: Path | None):
        self.path = Path(path) if path else None
        self.entries: dict[str, str] = {}
        self.hits = 0
        self.appended = 0
        self.damaged: list[int] = []  # 1-based numbers of the lines dropped on load
        self._torn_tail = False  # the file ends mid-line: the next append starts a new one
        if self.path and self.path.exists():
            self._load(self.path)

    def _load(self, path: Path) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            fix = "make it a readable file, or delete it (a cache: its segments are translated again)"
            raise BabelflowError(f"Translation memory cannot be read: {exc.strerror}", file=path, fix=fix) from None
        lines = data.splitlines()
        self._torn_tail = bool(data) and not data.endswith(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                if number == len(lines) and self._torn_tail:
                    continue  # torn write of a killed run: that batch is simply redone
                record = None
            if _is_entry(record):
                self.entries[record["key"]] = record["target"]
            else:
                self.damaged.append(number)
        if self.damaged:
            more = ", …" if len(self.damaged) > _SHOWN_LINES else ""
            shown = ", ".join(map(str, self.damaged[:_SHOWN_LINES])) + more
            log.warning(
                "translation memory %s: %d line(s) are not {key, target} records (line %s): dropped, whatever they "
                "held is translated again; fix: delete those lines, or the file (it is a cache)",
                path,
                len(self.damaged),
                shown,
            )

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
            if self._torn_tail:  # else the first record would be glued to the torn one and lost
                handle.write(b"\n")
                self._torn_tail = False
            handle.write(b"".join(orjson.dumps({"key": k, "target": v}) + b"\n" for k, v in items.items()))
            handle.flush()
            os.fsync(handle.fileno())

    def forget(self, keys: set[str]) -> int:
        """Drop entries (a confirmed bad translation) and rewrite the file atomically."""
        gone = [k for k in keys if k in self.entries]
        for key in gone:
            del self.entries[key]
        if self.path and gone:
            write_bytes_atomic(
                self.path, b"".join(orjson.dumps({"key": k, "target": v}) + b"\n" for k, v in self.entries.items())
            )
        return len(gone)
