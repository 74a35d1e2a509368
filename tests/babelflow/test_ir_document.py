"""The IR file: schema, versioning, and clear refusals of stale or foreign IRs."""

from __future__ import annotations

import jsonschema
import orjson
import pytest

from babelflow.errors import BabelflowError, StaleArtifactError
from babelflow.ir import IR_SCHEMA_VERSION, IRDocument, ir_json_schema, load_ir, save_ir


def test_saved_ir_validates_against_the_published_schema(analyzed, tmp_path):
    path = tmp_path / "ir.json"
    save_ir(analyzed("tau2-mock"), path)
    data = orjson.loads(path.read_bytes())
    jsonschema.validate(data, ir_json_schema())
    assert data["schema_version"] == IR_SCHEMA_VERSION
    reloaded = load_ir(path, benchmark="tau2-mock")
    assert isinstance(reloaded, IRDocument)
    assert reloaded.to_json_bytes() == analyzed("tau2-mock").to_json_bytes()


def test_schema_rejects_unknown_fields(analyzed):
    data = orjson.loads(analyzed("tau2-mock").to_json_bytes())
    data["elements"][0]["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, ir_json_schema())


def test_stale_schema_version_is_refused_with_the_fix(analyzed, tmp_path):
    data = orjson.loads(analyzed("tau2-mock").to_json_bytes())
    data["schema_version"] = "babelflow.ir/0"
    path = tmp_path / "old.json"
    path.write_bytes(orjson.dumps(data))
    with pytest.raises(StaleArtifactError) as caught:
        load_ir(path)
    message = caught.value.render()
    assert "babelflow.ir/0" in message and str(path) in message and "babelflow analyze" in message


def test_foreign_ir_is_refused(analyzed, tmp_path):
    path = tmp_path / "mock.json"
    save_ir(analyzed("tau2-mock"), path)
    with pytest.raises(StaleArtifactError, match="belongs to benchmark 'tau2-mock'"):
        load_ir(path, benchmark="tau2-retail")


def test_non_ir_json_is_refused(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b'{"hello": 1}')
    with pytest.raises(StaleArtifactError, match="Not a babelflow IR"):
        load_ir(path)
    path.write_bytes(b"{broken")
    with pytest.raises(BabelflowError, match="not valid JSON"):
        load_ir(path)


def test_element_ids_are_unique_and_stable(analyzed):
    from analyzers.analyze import analyze_benchmark
    from source_benchmarks import get_benchmark

    first = analyzed("tau2-mock")
    ids = [e.id for e in first.elements]
    assert len(ids) == len(set(ids))
    again = analyze_benchmark(get_benchmark("tau2-mock"))
    assert again.to_json_bytes() == first.to_json_bytes()
