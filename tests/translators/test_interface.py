from __future__ import annotations

import pytest
from pydantic import ValidationError

from translators.interface import (
    GlossaryEntry,
    ProtectedSegment,
    TranslatedSegment,
    TranslationRequest,
    TranslationResponse,
    TranslationUsage,
    Translator,
    check_response,
)
from translators.pseudo_locale import PseudoLocaleTranslator


def _request(*ids: str) -> TranslationRequest:
    return TranslationRequest(
        source_language="en",
        target_language="en-XA",
        segments=[
            ProtectedSegment(segment_id=i, text=f"text {i} ⟦0⟧", context="retail task: reason_for_call", kind="free")
            for i in ids
        ],
    )


def _response(*ids: str) -> TranslationResponse:
    return TranslationResponse(
        translator_id="test/v1",
        segments=[TranslatedSegment(segment_id=i, text="x") for i in ids],
        usage=TranslationUsage(
            input_characters=1, output_characters=1, input_tokens=None, output_tokens=None, requests=1
        ),
    )


def test_records_reject_unknown_fields_and_bad_kinds() -> None:
    with pytest.raises(ValidationError):
        ProtectedSegment(segment_id="a", text="t", context="c", kind="free", extra="no")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ProtectedSegment(segment_id="a", text="t", context="c", kind="loose")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ProtectedSegment(segment_id="", text="t", context="c", kind="free")
    with pytest.raises(ValidationError):
        TranslationUsage(input_characters=-1, output_characters=0, input_tokens=None, output_tokens=None, requests=0)


def test_request_defaults_are_not_shared_and_round_trip_through_json() -> None:
    first, second = _request("a"), _request("b")
    first.glossary.append(GlossaryEntry(source="gift card", target="carte cadeau"))
    assert second.glossary == [] and second.instructions == ""
    assert TranslationRequest.model_validate_json(first.model_dump_json()) == first


def test_check_response_accepts_a_complete_response_in_any_order() -> None:
    assert check_response(_request("a", "b", "c"), _response("c", "a", "b")) == []


def test_check_response_reports_missing_extra_and_duplicate_ids() -> None:
    problems = check_response(_request("a", "b"), _response("a", "a", "z"))
    assert problems == [
        "missing segment id 'b'",
        "duplicate segment id 'a' (2 times)",
        "unexpected segment id 'z'",
    ]


def test_check_response_reports_duplicate_ids_in_the_request() -> None:
    problems = check_response(_request("a", "a"), _response("a"))
    assert problems == ["request: segment id 'a' appears 2 times"]


def test_pseudo_translator_satisfies_the_protocol() -> None:
    translator = PseudoLocaleTranslator("en-XA")
    assert isinstance(translator, Translator)
    assert translator.translator_id == "pseudo:en-XA/v1"
