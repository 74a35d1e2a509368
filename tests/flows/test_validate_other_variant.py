"""`babelflow validate B --variant V` refuses a variant babelflow built for another benchmark or
language (e.g. a tau2-mock variant validated as tau3-mock): its manifest says what it is. A
folder made elsewhere (no manifest: SEATau's) is validated as given."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from babelflow.adapt_request import AdaptRequest
from babelflow.settings import BabelflowSettings
from flows.cli.app import app
from flows.pipeline.adapt import adapt


@pytest.fixture(scope="module")
def fixture_variant(tmp_path_factory):
    project = tmp_path_factory.mktemp("project")
    result = adapt(
        AdaptRequest.of_options("fixture-library", "en-XA", translator="pseudo"),
        settings=BabelflowSettings(project_root=project),
    )
    return project, result.paths.variant


def _validate(project, *args):
    return CliRunner().invoke(app, ["validate", *args], env={"COLUMNS": "300", "BABELFLOW_PROJECT_ROOT": str(project)})


def test_a_variant_of_another_benchmark_is_refused(fixture_variant, tmp_path):
    project, variant = fixture_variant
    result = _validate(project, "tau2-mock", "--lang", "en-XA", "--variant", str(variant))
    assert result.exit_code == 2, result.output
    assert "holds a variant of fixture-library, not of tau2-mock" in result.output and "--variant" in result.output
    assert "Traceback" not in result.output


def test_a_variant_of_another_language_is_refused(fixture_variant):
    project, variant = fixture_variant
    result = _validate(project, "fixture-library", "--lang", "ar-XB", "--variant", str(variant))
    assert result.exit_code == 2, result.output
    assert "is the en-XA variant, not ar-XB" in result.output


def test_its_own_benchmark_and_language_validate(fixture_variant):
    project, variant = fixture_variant
    result = _validate(project, "fixture-library", "--lang", "en-XA", "--variant", str(variant))
    assert result.exit_code in (0, 1), result.output  # findings or none: validated, not refused
    assert "holds a variant of" not in result.output
