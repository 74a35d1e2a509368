"""The request a user makes (babelflow/adapt_request.py): parsed once into typed parts, JSON both ways,
resolved once per language per process while a command runs the flow here."""

from __future__ import annotations

import pytest

from babelflow.adapt_request import (
    AdaptRequest,
    ApertiumSpec,
    AutoSpec,
    NoSpec,
    ProviderSpec,
    PseudoSpec,
    ReviewPolicy,
    parse_translator_spec,
)
from babelflow.entity_policy import EntityRendering
from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("auto", AutoSpec()),
        ("pseudo", PseudoSpec()),
        ("none", NoSpec()),
        ("apertium", ApertiumSpec()),
        ("apertium:eng-spa", ApertiumSpec(mode="eng-spa")),
        ("openai:gpt-4o-mini", ProviderSpec(provider="openai", model="gpt-4o-mini")),
        (
            "openai-compatible:local@http://127.0.0.1:8000/v1?backoff=0.01",
            ProviderSpec(provider="openai-compatible", model="local?backoff=0.01", url="http://127.0.0.1:8000/v1"),
        ),
    ],
)
def test_a_translator_spec_parses_into_its_kind_and_spells_back_as_given(text, spec) -> None:
    assert parse_translator_spec(text) == spec
    assert spec.text == text


def test_an_unknown_translator_is_refused_naming_the_option() -> None:
    with pytest.raises(BabelflowError) as caught:
        parse_translator_spec("deepl:x")
    assert caught.value.field == "--translator" and "openai-compatible:MODEL@URL" in caught.value.fix


def test_the_request_travels_as_json_and_comes_back_equal(tmp_path) -> None:
    request = AdaptRequest.of_options(
        "tau2-mock", "en-XA", translator="apertium:eng-spa", entities=["person=localize"], profile=tmp_path / "p.toml"
    ).model_copy(update={"review": ReviewPolicy(timeout=30)})
    assert request.entities == {"person": EntityRendering.LOCALIZE}
    assert AdaptRequest.model_validate_json(request.model_dump_json()) == request
    with pytest.raises(BabelflowError, match="--entity"):
        AdaptRequest.of_options("tau2-mock", "en-XA", entities=["person=shout"])


def test_a_run_resolved_before_the_flow_is_the_flows_own(tmp_path) -> None:
    from flows.run_setup import resolve_run, resolved_once

    settings = BabelflowSettings(project_root=tmp_path)
    request = AdaptRequest(benchmark="tau2-mock", language="en-XA")
    checked = resolve_run(settings, request)
    with resolved_once([checked]):
        # as the flow asks for it: the same request after its trip through Prefect's JSON parameters
        assert resolve_run(settings, AdaptRequest.model_validate_json(request.model_dump_json())) is checked
        assert resolve_run(settings, request.for_language("ar-XB")) is not checked
    assert resolve_run(settings, request) is not checked  # outside the command, each call resolves
