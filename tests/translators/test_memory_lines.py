"""The translation memory's line format: a damaged line is dropped and reported (file, line
numbers), never a crash and never a non-text target; a torn last line is the normal trace of a
killed run, and the next append does not glue its first record to it."""

from __future__ import annotations

import logging

import orjson
import pytest

from babelflow.errors import BabelflowError
from translators.memory import TranslationMemory


def _line(key: str, target: str) -> bytes:
    return orjson.dumps({"key": key, "target": target}) + b"\n"


def test_lines_that_are_json_but_not_key_target_are_dropped_and_named(tmp_path, caplog):
    path = tmp_path / "tm.jsonl"
    damaged = [
        b'{"a": 1}\n',
        b"[1, 2]\n",
        b'{"key": "k3", "target": 5}\n',
        b'{"key": "k4"}\n',
        b'"text"\n',
        b"not json\n",
        b'{"key": "k6", "target": "x", "extra": 1}\n',
    ]
    path.write_bytes(_line("k1", "one") + b"".join(damaged) + _line("k2", "two"))
    with caplog.at_level(logging.WARNING, logger="babelflow.memory"):
        memory = TranslationMemory(path)
    assert memory.entries == {"k1": "one", "k2": "two"}  # nothing else, in particular no int target
    assert memory.damaged == [2, 3, 4, 5, 6, 7, 8]
    message = caplog.records[0].getMessage()
    assert (
        str(path) in message and "7 line(s)" in message and "line 2, 3, 4, 5, 6, 7, 8" in message and "fix:" in message
    )
    assert path.read_bytes().count(b"\n") == 9  # the file is left as it was, for inspection


def test_many_damaged_lines_make_one_warning(tmp_path, caplog):
    path = tmp_path / "tm.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 500)
    with caplog.at_level(logging.WARNING, logger="babelflow.memory"):
        assert TranslationMemory(path).entries == {}
    assert (
        len(caplog.records) == 1
        and "500 line(s)" in caplog.records[0].getMessage()
        and "…" in caplog.records[0].getMessage()
    )


def test_a_torn_last_line_is_silent_and_the_next_append_starts_a_new_line(tmp_path, caplog):
    path = tmp_path / "tm.jsonl"
    path.write_bytes(_line("k1", "one") + b'{"key": "k2", "tar')  # a run killed mid-write
    with caplog.at_level(logging.WARNING, logger="babelflow.memory"):
        memory = TranslationMemory(path)
    assert memory.entries == {"k1": "one"} and memory.damaged == [] and caplog.records == []
    memory.put_many({"k3": "three"})
    again = TranslationMemory(path)
    assert again.entries == {"k1": "one", "k3": "three"}  # k3 was not glued to the torn line and lost
    assert again.damaged == [2]  # the torn line is no longer the last one: it is reported now


def test_forget_rewrites_without_the_damaged_lines(tmp_path):
    path = tmp_path / "tm.jsonl"
    path.write_bytes(_line("k1", "one") + b'{"a": 1}\n' + _line("k2", "two"))
    memory = TranslationMemory(path)
    assert memory.forget({"k1"}) == 1
    assert path.read_bytes() == _line("k2", "two")


def test_an_unreadable_memory_is_a_clear_error(tmp_path):
    path = tmp_path / "tm.jsonl"
    path.mkdir()
    with pytest.raises(BabelflowError, match="cannot be read") as raised:
        TranslationMemory(path)
    assert raised.value.file == str(path) and "cache" in raised.value.fix
