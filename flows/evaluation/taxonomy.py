"""The multilingual failure taxonomy of a trial (BabelArena's classes), computed from its trajectory.

- wrong_language: a model turn written in another language than the run's (as a whole);
- language_mixing: a model turn with sentences in the run's language and in the source's;
- numeral_script: digits in a script the run does not use (ASCII and the locale's own are fine),
  in a model's text or its tool arguments;
- tool_misuse: a tool argument that is the other language's rendering of the value the gold call
  passes (the English name of a localized entity, or a translated value the harness keeps).

Only the models' own words count: the greeting, a task's scripted history and the task prompt
are the harness's (Turn.model_made False). Language is identified per turn and per sentence by the
same rule the language checks use (lingua between the run's and the source's language; a
pseudo-locale by its rendering), and a text too short to tell counts nowhere.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from enum import StrEnum

from pydantic import Field

from babelflow.ir import Record
from source_benchmarks.agent_runs import ToolCallMade, TrialRecord, TurnRole

SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
# names a variant keeps on purpose (file names, ids, emails, paths) are no language: left out of
# the identification, so "see landlord-notices.txt" is not a sentence in English
JOINED = re.compile(r"\w[._/@\\-]\w")  # a separator inside a word: file.txt, a@b, notices-2
TRAILING = ".,;:!?)]}\"'»”"


def without_identifiers(text: str) -> str:
    """The text with its ids, file names, emails and numbers blanked, one whitespace-split token at
    a time (linear: no pattern backtracks over a long token); a token's closing punctuation stays."""
    out = []
    for token in re.split(r"(\s+)", text):
        core = token.rstrip(TRAILING)
        if core and (any(c.isdigit() for c in core) or JOINED.search(core)):
            out.append(" " + token[len(core) :])
        else:
            out.append(token)
    return "".join(out)


# CLDR numbering systems whose digits a locale may use besides ASCII (babel's default_numbering_system)
NUMBERING_ZEROS = {
    "arab": 0x0660,
    "arabext": 0x06F0,
    "deva": 0x0966,
    "beng": 0x09E6,
    "thai": 0x0E50,
    "laoo": 0x0ED0,
    "tibt": 0x0F20,
    "mymr": 0x1040,
    "khmr": 0x17E0,
    "fullwide": 0xFF10,
}


class FailureClass(StrEnum):
    WRONG_LANGUAGE = "wrong_language"
    LANGUAGE_MIXING = "language_mixing"
    NUMERAL_SCRIPT = "numeral_script"
    TOOL_MISUSE = "tool_misuse"


class TaxonomyHit(Record):
    failure: FailureClass
    role: TurnRole
    turn: int = Field(description="index in the trial's turns")
    evidence: str = Field(description="the text or argument that shows it, shortened")


class TurnLanguages(Record):
    """What a run's model turns were written in."""

    agent: dict[str, int] = Field(default_factory=dict)
    user: dict[str, int] = Field(default_factory=dict)


class TrialTaxonomy(Record):
    hits: list[TaxonomyHit] = Field(default_factory=list)
    languages: TurnLanguages = Field(default_factory=TurnLanguages)

    def counts(self) -> dict[FailureClass, int]:
        return dict(Counter(hit.failure for hit in self.hits))


Identify = Callable[[str], str | None]


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def foreign_digits(text: str, allowed_zeros: set[int]) -> list[str]:
    """Digits of a numbering system outside `allowed_zeros` (ASCII is always allowed)."""
    return [
        c
        for c in text
        if unicodedata.category(c) == "Nd" and ord(c) - unicodedata.digit(c) not in allowed_zeros | {0x30}
    ]


def _argument_strings(call: ToolCallMade) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def walk(name: str, value: object) -> None:
        if isinstance(value, str):
            found.append((name, value))
        elif isinstance(value, list):
            for item in value:
                walk(name, item)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(f"{name}.{key}", item)

    for name, value in call.arguments.items():
        walk(name, value)
    return found


def classify_trial(
    record: TrialRecord,
    *,
    language: str,
    identify: Identify,
    allowed_zeros: set[int],
    gold_calls: list[ToolCallMade],
    counterparts: dict[str, str],
    verbatim: list[str] | None = None,
) -> TrialTaxonomy:
    """The taxonomy of one trial; `counterparts` maps a value to its rendering in the other language;
    `verbatim`: texts the harness wants said as they are (an address the evaluator looks for), which
    say nothing of the language the agent speaks."""
    result = TrialTaxonomy()
    gold_values: dict[tuple[str, str], set[str]] = {}
    for call in gold_calls:
        for name, value in _argument_strings(call):
            gold_values.setdefault((call.name, name), set()).add(value)
    for index, turn in enumerate(record.turns):
        if not turn.model_made or turn.role in ("tool", "system"):
            continue
        if turn.text.strip():
            said = turn.text
            for text in sorted(verbatim or [], key=len, reverse=True):
                said = said.replace(text, " ") if text else said
            _classify_text(result, index, turn.role, said, language, identify)
            digits = foreign_digits(turn.text, allowed_zeros)
            if digits:
                hit = TaxonomyHit(
                    failure=FailureClass.NUMERAL_SCRIPT, role=turn.role, turn=index, evidence=_short(turn.text)
                )
                result.hits.append(hit)
        for call in turn.tool_calls:
            for name, value in _argument_strings(call):
                where = f"{call.name}({name}={value!r})"
                if foreign_digits(value, allowed_zeros):
                    result.hits.append(
                        TaxonomyHit(failure=FailureClass.NUMERAL_SCRIPT, role=turn.role, turn=index, evidence=where)
                    )
                expected = gold_values.get((call.name, name), set())
                if value not in expected and any(counterparts.get(gold) == value for gold in expected):
                    result.hits.append(
                        TaxonomyHit(failure=FailureClass.TOOL_MISUSE, role=turn.role, turn=index, evidence=where)
                    )
    return result


def _classify_text(
    result: TrialTaxonomy, index: int, role: TurnRole, text: str, language: str, identify: Identify
) -> None:
    text = without_identifiers(text)
    whole = identify(text)
    if whole is not None:
        tally = result.languages.agent if role == "agent" else result.languages.user
        tally[whole] = tally.get(whole, 0) + 1
    sentences = {identify(sentence) for sentence in SENTENCE.findall(text)} - {None}
    if language in sentences and len(sentences) > 1:
        result.hits.append(
            TaxonomyHit(failure=FailureClass.LANGUAGE_MIXING, role=role, turn=index, evidence=_short(text))
        )
    elif whole is not None and whole != language:
        result.hits.append(
            TaxonomyHit(failure=FailureClass.WRONG_LANGUAGE, role=role, turn=index, evidence=_short(text))
        )
