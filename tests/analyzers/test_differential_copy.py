"""The differential's copy-on-write trials build the very documents a deep copy per trial built.

`_perturbed` and the link trial's `_linked` share every container they do not change with the
source documents; these tests compare them with the deep-copying versions they replaced (kept
here as the reference) on tau2's mock data and on documents made to hit the corner cases, and
check that the source documents are never changed.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from analyzers.differential import DifferentialRunner, OpenPath, _perturb
from source_benchmarks import get_benchmark


def _reference_apply(document: Any, path: OpenPath, artifact: str, index: int) -> None:
    """The perturbation as it was applied to a deep copy before copy on write."""
    is_key = path.key[2]
    for where in sorted((where for file, where in path.locations if file == artifact), key=len, reverse=True):
        parent = document
        try:
            for segment in where[:-1]:
                parent = parent[segment]
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


def _reference_perturbed(documents: dict[str, Any], paths: list[tuple[int, OpenPath]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, path in paths:
        for artifact in dict.fromkeys(file for file, _ in path.locations):
            if artifact not in out:
                out[artifact] = copy.deepcopy(documents[artifact])
            _reference_apply(out[artifact], path, artifact, index)
    return out


def _reference_replace_equal(node: Any, values: dict[str, str]) -> Any:
    if isinstance(node, str):
        return values.get(node, node)
    if isinstance(node, dict):
        return {
            values.get(k, k) if isinstance(k, str) else k: _reference_replace_equal(v, values) for k, v in node.items()
        }
    if isinstance(node, list):
        return [_reference_replace_equal(v, values) for v in node]
    return node


def _same(one: Any, two: Any) -> bool:
    """Equal, key order included (the files are written in this order)."""
    return orjson.dumps(one, option=orjson.OPT_NON_STR_KEYS) == orjson.dumps(two, option=orjson.OPT_NON_STR_KEYS)


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [k for k in node if isinstance(k, str)] + [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


class _Runner(DifferentialRunner):
    """The runner's document handling alone, on given documents (no benchmark is opened)."""

    def __init__(self, documents: dict[str, Any]):
        self.documents = documents
        self._occurrences = {}


CORNER = {
    "a.json": {
        "users": {
            "u1": {"name": "u1", "tags": ["u1", "x", {"u1": "u1"}], "ref": "u2"},
            "u2": {"name": "Bob", "friends": ["u1"]},
        },
        "u1": ["nested", ["u1", "u2"]],
        "n": 3,
        "none": None,
    },
    "b.json": [{"id": "u1", "u1": {"u2": "u2"}}, "u2", ["x", "u1"]],
}


def _open(locations: list[tuple[str, tuple]], is_key: bool, values: set[str], name: str) -> OpenPath:
    return OpenPath((name, ("*",), is_key), locations, values, [])


CORNER_PATHS = [
    _open([("a.json", ("users", "u1", "name")), ("a.json", ("users", "u2", "name"))], False, {"u1", "Bob"}, "a"),
    _open([("a.json", ("users", "u1")), ("a.json", ("users", "u1", "tags", 2, "u1"))], True, {"u1"}, "b"),
    _open([("a.json", ("users", "u1", "tags", 0)), ("b.json", (0, "id"))], False, {"u1"}, "c"),
    _open([("a.json", ("users", "missing", "name")), ("a.json", ("n", "x")), ("b.json", (9, "id"))], False, set(), "d"),
    _open([("a.json", ("n",)), ("a.json", ("none",)), ("b.json", (2, 1))], False, {"u1"}, "e"),
    _open([("b.json", (0, "u1")), ("b.json", (0, "u1", "u2"))], True, {"u1", "u2"}, "f"),
]


@pytest.mark.parametrize("chosen", [[0], [1], [0, 1], [1, 2], [3, 4], [0, 1, 2, 3, 4, 5], [5, 1]])
def test_perturbed_documents_equal_the_deep_copied_ones_and_leave_the_source_alone(chosen):
    source = copy.deepcopy(CORNER)
    paths = [(i, CORNER_PATHS[i]) for i in chosen]
    runner = _Runner(source)
    assert _same(runner._perturbed(paths), _reference_perturbed(CORNER, paths))
    assert _same(source, CORNER)


@pytest.mark.parametrize("values", [{"u1"}, {"u2"}, {"u1", "u2", "Bob"}, {"nested", "x"}, {"absent"}])
def test_linked_documents_equal_the_rebuilt_ones_and_leave_the_source_alone(values):
    source = copy.deepcopy(CORNER)
    perturbed = {value: _perturb(value, 7) for value in values}
    runner = _Runner(source)
    for _ in range(2):  # the second trial reads the occurrences the first one indexed
        linked = runner._linked(perturbed)
        reference = {artifact: _reference_replace_equal(doc, perturbed) for artifact, doc in CORNER.items()}
        assert _same(linked, reference)
    assert _same(source, CORNER)


def test_on_tau2_mock_every_open_path_and_value_gives_the_reference_documents():
    bench = get_benchmark("tau2-mock")
    runner = DifferentialRunner(bench, lambda folder: get_benchmark("tau2-mock", source_dir=folder))
    pristine = copy.deepcopy(runner.documents)
    numbered: list[tuple[int, OpenPath]] = []
    for artifact, document in runner.documents.items():
        for key in (k for k in (document if isinstance(document, dict) else {}) if isinstance(k, str)):
            numbered.append((len(numbered), OpenPath((artifact, (key,), True), [(artifact, (key,))], {key}, [])))
        tasks = document if isinstance(document, list) else []
        for position in range(len(tasks)):
            for field in ("id", "description"):
                where = (position, field)
                numbered.append((len(numbered), OpenPath((artifact, (field,), False), [(artifact, where)], set(), [])))
    assert len(numbered) > 10
    assert _same(runner._perturbed(numbered), _reference_perturbed(pristine, numbered))
    strings = sorted({text for doc in pristine.values() for text in _strings(doc)})
    values = {value: _perturb(value, 3) for value in strings[::3]}  # every third: some stay, some change
    assert _same(runner._linked(values), {a: _reference_replace_equal(d, values) for a, d in pristine.items()})
    assert _same(runner.documents, pristine)


@pytest.mark.parametrize("benchmark_id", ["tau2-mock", "tau2-telecom"])  # JSON files; TOML files (telecom's DBs)
def test_a_trial_writes_the_bytes_dump_document_writes(benchmark_id, tmp_path):
    from analyzers.differential import encode_document
    from source_benchmarks.formats import dump_document

    bench = get_benchmark(benchmark_id)
    formats = set()
    for spec in bench.artifacts():
        big = spec.path.endswith("/tasks.json") and benchmark_id != "tau2-mock"  # 14 MB: time, not a format
        if spec.format.value not in ("json", "toml") or big:
            continue
        document = bench.load_artifact(spec)
        dump_document(tmp_path / "dumped", spec.format, document)
        assert encode_document(spec.format, document) == (tmp_path / "dumped").read_bytes(), spec.path
        formats.add(spec.format.value)
    assert formats == ({"json"} if benchmark_id == "tau2-mock" else {"json", "toml"})
