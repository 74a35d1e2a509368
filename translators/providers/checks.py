"""What a model's translation reply must satisfy before anything is accepted.

Batch level: valid JSON matching the schema, not truncated, no duplicate or unexpected ids.
Segment level: present, every ``⟦N⟧`` placeholder exactly once (``translators.placeholders``),
not an answer instead of a translation, no added commentary, in the target language/script (the
same rules as the fidelity probes: ``babelflow.target_language``, ``babelflow.text``).
"""

from __future__ import annotations

from babelflow.llm.translation_reply import TRANSLATION_SCHEMA, BatchProblem, parse_batch
from babelflow.target_language import language_problem
from babelflow.text import MODEL_ANSWER, PLACEHOLDER, TRANSLATOR_COMMENTARY, ascii_fold, placeholder
from translators.interface import ProtectedSegment
from translators.placeholders import Placeholder, ProtectedText, placeholder_problems

__all__ = ["TRANSLATION_SCHEMA", "BatchProblem", "check_reply", "parse_batch"]


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
