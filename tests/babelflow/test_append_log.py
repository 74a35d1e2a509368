"""Append-only logs (babelflow/append_log.py): a torn last line is skipped, a bad earlier line refused."""

from __future__ import annotations

import pytest

from babelflow.append_log import append_records, read_records
from babelflow.errors import BabelflowError
from babelflow.ir import Record


class Entry(Record):
    n: int


def test_a_torn_last_line_is_skipped_and_a_bad_earlier_one_refused(tmp_path):
    path = tmp_path / "log" / "entries.jsonl"
    append_records(path, [Entry(n=1), Entry(n=2)])
    with open(path, "ab") as handle:
        handle.write(b'{"n": 3')  # a write killed midway
    assert [e.n for e in read_records(path, Entry, "corrupt", "fix")] == [1, 2]
    path.write_bytes(b'{"n": "x"}\n{"n": 2}\n')
    with pytest.raises(BabelflowError, match="corrupt") as error:
        read_records(path, Entry, "corrupt", "restore it")
    assert error.value.field == "line 1"
