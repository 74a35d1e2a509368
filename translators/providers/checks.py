"""What a model's translation reply must satisfy before anything is accepted.

Batch level: valid JSON matching the schema, not truncated, no duplicate or unexpected ids.
Segment level: present, every ``⟦N⟧`` placeholder exactly once (``translators.placeholders``),
not an answer instead of a translation, no added commentary, in the target language/script (the
same rules as the fidelity probes: ``babelflow.target_language``, ``babelflow.text``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from babelflow.llm.replies import parse_json_reply
from babelflow.target_language import language_problem
from babelflow.text import MODEL_ANSWER, PLACEHOLDER, TRANSLATOR_COMMENTARY, ascii_fold, placeholder
from translators.interface import ProtectedSegment
from translators.placeholders import Placeholder, ProtectedText, placeholder_problems


class _Translation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    text: str


class TranslationBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    translations: list[_Translation]


# strict-mode compatible (OpenAI structured outputs): every property required, no extras
TRANSLATION_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "translations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
                "required": ["id", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["translations"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class BatchProblem:
    """Why a whole reply is unusable (every segment of the batch is retried or recorded with it)."""

    reason: str


def parse_batch(text: str, data: Any | None, truncated: bool) -> dict[str, str] | BatchProblem:
    """id -> text of a well-formed reply, or the batch-level problem."""
    if truncated:
        return BatchProblem("output truncated at the token limit")
    try:
        batch = TranslationBatch.model_validate(parse_json_reply(text, data))
    except (ValueError, ValidationError) as exc:
        return BatchProblem(f"reply is not the required JSON ({type(exc).__name__})")
    counts = Counter(t.id for t in batch.translations)
    duplicated = sorted(i for i, n in counts.items() if n > 1)
    if duplicated:
        return BatchProblem(f"duplicate ids in reply: {', '.join(duplicated[:5])}")
    return {t.id: t.text for t in batch.translations}


def _protected(segment: ProtectedSegment) -> ProtectedText:
    indexes = sorted({int(m.group(1)) for m in PLACEHOLDER.finditer(segment.text)})
    return ProtectedText(
        text=segment.text,
        placeholders=[
            Placeholder(index=i, original=placeholder(i), restore_as=placeholder(i), kind="marker") for i in indexes
        ],
    )


_SENTENCE_END = ".!?。！？"


def term_reply_problem(source: str, text: str) -> str | None:
    """A canonical term answered with a sentence (a definition, an explanation, a sentence that uses it):
    it would become the value in the DB and every task. A term stays a term: one line, no sentence end the
    source does not have, no sentence break inside, not many times its length."""
    reply, term = text.strip(), source.strip()
    if "\n" in reply and "\n" not in term:
        return "a sentence instead of a term: the reply runs over several lines"
    if reply[-1:] in _SENTENCE_END and term[-1:] not in _SENTENCE_END:
        return f"a sentence instead of a term: it ends with {reply[-1]!r}"
    if any(mark in reply[:-1] for mark in ("。", "！", "？", ". ", "! ", "? ")) and not any(
        mark in term for mark in ("。", ". ", "! ", "? ")
    ):
        return "a sentence instead of a term: it holds a sentence break"
    if len(reply) > max(3 * len(term), len(term) + 40):
        return f"a sentence instead of a term: {len(reply)} characters for a term of {len(term)}"
    return None


def segment_problems(segment: ProtectedSegment, text: str, language: str) -> list[str]:
    """Everything wrong with one translated segment (empty = accept)."""
    if not text.strip() and segment.text.strip():
        return ["empty translation"]
    if segment.kind == "canonical" and (problem := term_reply_problem(segment.text, text)):
        return [problem]
    problems = placeholder_problems(text, _protected(segment))
    tokens = sorted(set(PLACEHOLDER.findall(segment.text)), key=len)
    token_strings = [placeholder(t) for t in tokens]
    wrong = language_problem(text, segment.text, language, token_strings)
    if wrong:
        problems.append(f"wrong language: {wrong}")
    if MODEL_ANSWER.search(ascii_fold(text)) and not MODEL_ANSWER.search(ascii_fold(segment.text)):
        problems.append("answered instead of translated")
    if TRANSLATOR_COMMENTARY.search(ascii_fold(text)) and not TRANSLATOR_COMMENTARY.search(ascii_fold(segment.text)):
        problems.append("added commentary")
    return problems


def check_reply(
    segments: list[ProtectedSegment], by_id: dict[str, str], language: str
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(accepted id -> text, rejected id -> problems) for one parsed reply."""
    asked = {s.segment_id for s in segments}
    unexpected = sorted(set(by_id) - asked)
    if unexpected:
        # wrong count or renamed ids: nothing in this reply can be trusted to belong where it says
        return {}, {
            s.segment_id: [
                f"reply had {len(by_id)} translations for {len(asked)} segments, "
                f"unexpected ids {', '.join(unexpected[:3])}"
            ]
            for s in segments
        }
    good: dict[str, str] = {}
    bad: dict[str, list[str]] = {}
    for segment in segments:
        text = by_id.get(segment.segment_id)
        if text is None:
            bad[segment.segment_id] = ["the model dropped this segment id"]
            continue
        problems = segment_problems(segment, text, language)
        if problems:
            bad[segment.segment_id] = problems
        else:
            good[segment.segment_id] = text
    return good, bad
