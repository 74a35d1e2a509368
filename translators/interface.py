"""The contract every translation backend implements (pseudo-locales, Apertium, the simulated model, model providers).

A backend only ever sees protected text: identifiers, numbers, tokens and markup have already been
replaced by ``⟦N⟧`` placeholders (see ``translators.placeholders``), so the contract is purely
"segment id in, segment id out". ``check_response`` is the cheap structural check every caller runs
before trusting a response; placeholder integrity is checked later, per segment, by ``restore``.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, Protocol, runtime_checkable

from pydantic import Field

from babelflow.ir import Record


class ProtectedSegment(Record):
    """One unit of translatable text, already protected."""

    segment_id: str = Field(min_length=1)
    text: str = Field(description="text with ⟦N⟧ placeholders; placeholders must come back unchanged")
    context: str = Field(description="where the text is used, e.g. 'retail task: reason_for_call'")
    kind: Literal["free", "canonical"] = Field(
        description="free: translate naturally; canonical: a term whose translation is reused everywhere"
    )


class GlossaryEntry(Record):
    source: str
    target: str


class TranslationRequest(Record):
    source_language: str
    target_language: str
    segments: list[ProtectedSegment]
    glossary: list[GlossaryEntry] = Field(default_factory=list)
    instructions: str = ""


class TranslatedSegment(Record):
    segment_id: str
    text: str


class TranslationUsage(Record):
    """What a call cost; token counts are None for backends that have no tokens (pseudo-locale)."""

    input_characters: int = Field(ge=0)
    output_characters: int = Field(ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    requests: int = Field(ge=0)


class TranslationResponse(Record):
    translator_id: str
    segments: list[TranslatedSegment]
    usage: TranslationUsage
    failed: dict[str, list[str]] = Field(
        default_factory=dict,
        description="segment id -> problems, for segments the backend could not translate acceptably "
        "(e.g. a model kept breaking placeholders); the engine records them as unit failures",
    )


@runtime_checkable
class Translator(Protocol):
    """A translation backend.

    ``translator_id`` names the backend, model and prompt version (e.g. ``pseudo:en-XA/v1``); it is
    part of every cache key, so it must change whenever the output for the same input may change.
    """

    translator_id: str

    def translate(self, request: TranslationRequest) -> TranslationResponse: ...


def check_response(request: TranslationRequest, response: TranslationResponse) -> list[str]:
    """Structural problems of a response: ids missing, unexpected, or duplicated (empty = fine).

    Duplicates in the request are reported too: they make any response ambiguous. An id the
    backend reports in ``failed`` is accounted for (its problems are recorded by the engine).
    """
    problems: list[str] = []
    asked = Counter(segment.segment_id for segment in request.segments)
    got = Counter(segment.segment_id for segment in response.segments)
    got.update({segment_id: 1 for segment_id in response.failed if segment_id not in got})
    for segment_id, count in asked.items():
        if count > 1:
            problems.append(f"request: segment id {segment_id!r} appears {count} times")
    for segment_id in asked:
        if segment_id not in got:
            problems.append(f"missing segment id {segment_id!r}")
    for segment_id, count in got.items():
        if segment_id not in asked:
            problems.append(f"unexpected segment id {segment_id!r}")
        elif count > 1:
            problems.append(f"duplicate segment id {segment_id!r} ({count} times)")
    return problems
