"""A data file's skeleton compared with the source's: types, keys and list lengths (strings may differ).

Integrity's `skeleton_changed` reports the differences; a file whose skeleton differs no longer pairs
its fields by position with the source's."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import orjson

MAX_PER_ARTIFACT = 20


def _kind(value: Any) -> str:
    """The JSON kind of a value: YAML's round-trip types (a literal block string, a commented map)
    are the same kinds as their plain counterparts."""
    if value is None:
        return "null"
    for kind, name in ((bool, "bool"), (str, "str"), (int, "int"), (float, "float"), (dict, "dict"), (list, "list")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _skeleton_diffs(
    source: Any, target: Any, path: tuple, renamed: set[tuple], out: list[tuple[str, tuple, str]]
) -> None:
    """Compare structure only (types, keys, lengths); strings may differ. Stops at MAX_PER_ARTIFACT."""
    if len(out) >= MAX_PER_ARTIFACT:
        return
    if _kind(source) != _kind(target) and not (
        isinstance(source, (int, float)) and isinstance(target, (int, float)) and type(source) is type(target)
    ):
        out.append(("type_changed", path, f"{_kind(source)} -> {_kind(target)}"))
        return
    if isinstance(source, dict):
        missing = [k for k in source if k not in target and path + (k,) not in renamed]
        extra = [k for k in target if k not in source]
        if len(extra) > len([k for k in source if k not in target]):
            out.append(("key_added", path, ", ".join(map(str, extra[:5]))))
        for key in missing[:5]:
            out.append(("key_removed", path + (key,), str(key)))
        for key, value in source.items():
            if key in target:
                _skeleton_diffs(value, target[key], path + (key,), renamed, out)
    elif isinstance(source, list):
        if len(source) != len(target):
            out.append(("list_length_changed", path, f"{len(source)} -> {len(target)}"))
            return
        for index, (a, b) in enumerate(zip(source, target)):
            _skeleton_diffs(a, b, path + (index,), renamed, out)


_ITEM_DIFFS: dict[
    bytes, list[tuple[str, tuple, str]]
] = {}  # digest of (source item, target item, renames) -> its diffs


def document_skeleton_diffs(source: Any, target: Any, renamed: set[tuple]) -> list[tuple[str, tuple, str]]:
    """Structure diffs of a whole document. A long top-level list (2,285 telecom tasks) is compared
    item by item through a per-process memo on the items' content: a rerun that changed one task
    walks that task, not the file."""
    diffs: list[tuple[str, tuple, str]] = []
    if not (isinstance(source, list) and isinstance(target, list) and len(source) == len(target) and len(source) > 50):
        _skeleton_diffs(source, target, (), renamed, diffs)
        return diffs
    renamed_by_item: dict[int, list[tuple]] = {}
    for path in renamed:
        renamed_by_item.setdefault(path[0], []).append(path)
    if len(_ITEM_DIFFS) > 200_000:
        _ITEM_DIFFS.clear()
    for index, (a, b) in enumerate(zip(source, target)):
        renames = sorted(renamed_by_item.get(index, []), key=repr)
        try:
            key = hashlib.blake2b(orjson.dumps([a, b, [list(p[1:]) for p in renames]]), digest_size=16).digest()
        except TypeError:  # a value orjson cannot encode: compare without the memo
            _skeleton_diffs(a, b, (index,), renamed, diffs)
            continue
        found = _ITEM_DIFFS.get(key)
        if found is None:
            found = []
            _skeleton_diffs(a, b, (index,), set(renames), found)
            _ITEM_DIFFS[key] = [(kind, path[1:], what) for kind, path, what in found]
        else:
            found = [(kind, (index,) + path, what) for kind, path, what in found]
        diffs += found
        if len(diffs) >= MAX_PER_ARTIFACT:
            return diffs[:MAX_PER_ARTIFACT]
    return diffs


def unpaired_prefixes(diffs: list[tuple[str, tuple, str]]) -> tuple[tuple, ...] | None:
    """The subtrees whose fields no longer pair by position with the source's: a list of another
    length or a value of another type, and the object that gained or lost a key (where keys are text,
    its keys pair by position). None: the whole document (a change at its root, or more changes than
    were counted)."""
    if len(diffs) >= MAX_PER_ARTIFACT:
        return None
    prefixes = []
    for kind, path, _ in diffs:
        prefix = path[:-1] if kind == "key_removed" else path
        if not prefix:
            return None
        prefixes.append(prefix)
    return tuple(dict.fromkeys(prefixes))


def under_any(path: tuple | list | None, prefixes: tuple[tuple, ...] | None) -> bool:
    """Whether a field at `path` lies in one of the subtrees `prefixes` (None or empty: none)."""
    return bool(prefixes) and path is not None and any(tuple(path[: len(p)]) == p for p in prefixes or ())


def explain(source: Any, target: Any, path: tuple) -> str:
    """DeepDiff explains one small subtree (never used to find mismatches: too slow on 7 MB files)."""
    # deepdiff takes ~1-2 s to import; only a structure difference needs it
    from deepdiff import DeepDiff  # noqa: PLC0415

    logging.getLogger("deepdiff.diff").setLevel(logging.ERROR)  # "reached the max number of diffs": by design

    for segment in path[:-1] if path else ():
        try:
            source, target = source[segment], target[segment]
        except (KeyError, IndexError, TypeError):
            break
    text = DeepDiff(source, target, max_diffs=5, max_passes=1).pretty()
    return text[:400]
