"""Format slots in code texts: the parts of a template that code fills at run time.

A slot is code, not prose: `{'ON' if new_state else 'OFF'}` translated to `{'ENCIMA' si new_state más 'FUERA'}`
is never filled, and the user simulator reads the raw braces. The analysis records each code text's slots,
the translators protect them, the rebuild refuses a target whose slots differ, and the validators compare
them; all through this one scanner.

- f-strings: every top-level `{...}` (quotes and nested brackets balanced; `{{`/`}}` are escapes);
- `str.format` fields in plain strings: `{}`, `{0}`, `{name}`, `{name.attr}`, `{name[key]}`, with `!r`/`:spec`;
  a plain string's other braces (a JSON example in a prompt) are text;
- `%` conversions: `%s`, `%(name)s`, `%.2f` (`%%` is a literal percent);
- Jinja/Mustache: `{{ ... }}`, `{% ... %}`, `{# ... #}` in plain strings.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import Field

from babelflow.ir import CodeSlot, Record, SlotKind

FORMAT_FIELD = re.compile(r"\{(?:[A-Za-z_]\w*(?:\.\w+|\[[^\[\]{}\n]*\])*|\d+)?(?:![rsa])?(?::[^{}\n]*)?\}")
PRINTF = re.compile(r"(?<!%)%(?:\([A-Za-z_]\w*\))?[-+#0]*(?:[1-9]\d*|\*)?(?:\.\d+)?[sdiouxXeEfFgGcr](?![A-Za-z])")
JINJA = re.compile(r"\{\{[^{}]*\}\}|\{%[^{}%]*%\}|\{#[^{}#]*#\}")  # no brace inside: linear from every start
_QUOTES = "'\""


class FormatSlot(Record):
    text: str = Field(description="the slot as the source text holds it, e.g. {status['ssid']} or %s")
    kind: SlotKind
    start: int


def _closing_brace(text: str, start: int) -> int | None:
    """Index of the `}` closing the f-string expression opened at `start` (quotes and brackets balanced)."""
    depth, index, quote = 0, start, None
    while index < len(text):
        char = text[index]
        if quote is not None:
            if char == "\\":
                index += 1
            elif text.startswith(quote, index):
                index += len(quote) - 1
                quote = None
        elif char in _QUOTES:
            quote = text[index : index + 3] if text.startswith(char * 3, index) else char
            index += len(quote) - 1
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
            if depth == 0:
                return index if char == "}" else None
        index += 1
    return None


def _fstring_slots(text: str) -> list[FormatSlot]:
    slots, index = [], 0
    while index < len(text):
        if text.startswith(("{{", "}}"), index):
            index += 2
            continue
        if text[index] == "{":
            end = _closing_brace(text, index)
            if end is None:
                break  # an unbalanced brace: the rest is not a template we can read
            slots.append(FormatSlot(text=text[index : end + 1], kind="fstring", start=index))
            index = end + 1
            continue
        index += 1
    return slots


def _pattern_slots(text: str) -> list[FormatSlot]:
    taken: list[tuple[int, int]] = []
    slots = []
    for kind, pattern in (("jinja", JINJA), ("format_field", FORMAT_FIELD), ("printf", PRINTF)):
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue  # `{name}` inside `{{ name }}` is the Jinja slot's
            taken.append(match.span())
            slots.append(FormatSlot(text=match.group(), kind=kind, start=match.start()))  # type: ignore[arg-type]
    return sorted(slots, key=lambda slot: slot.start)


def format_slots(text: str, *, fstring: bool) -> list[FormatSlot]:
    """The slots of a code text in order; `fstring`: the text is an f-string's, `{expr}` as written."""
    if fstring:
        slots = _fstring_slots(text)
        covered = [(s.start, s.start + len(s.text)) for s in slots]
        printf = [
            FormatSlot(text=m.group(), kind="printf", start=m.start())
            for m in PRINTF.finditer(text)
            if not any(start <= m.start() < end for start, end in covered)
        ]
        return sorted(slots + printf, key=lambda slot: slot.start)
    return _pattern_slots(text)


def json_key_pattern(key: str) -> re.Pattern[str]:
    """`"key":` as a JSON example in a prompt writes it (the quoted key a reply must carry)."""
    return re.compile(r'"' + re.escape(key) + r'"(?=\s*:)')


def slot_problems(source_slots: list[str], target: str, *, fstring: bool) -> list[str]:
    """What is wrong with the slots of `target` against the source's (in source order); [] when intact.

    Each source slot must appear in the target exactly as often as in the source, and no other slot may
    appear. Positional slots (`{}`, `%s`) are filled in order, and a swapped pair of named slots puts each
    value in the other's sentence, so the order of distinct slots is compared too."""
    problems: list[str] = [
        f"slot {slot!r} is not in the source" for slot in stray_slots(source_slots, target, fstring=fstring)
    ]
    want = Counter(source_slots)
    have = Counter({slot: target.count(slot) for slot in want})
    for slot, count in want.items():
        if have[slot] == 0:
            problems.append(f"slot {slot!r} is missing (translated or dropped)")
        elif have[slot] != count:
            problems.append(f"slot {slot!r} appears {have[slot]} times, the source has it {count}")
    if problems:
        return list(dict.fromkeys(problems))
    # every occurrence in order (a slot the source repeats included): a swapped pair changes the sequence
    found = sorted((m.start(), slot) for slot in want for m in re.finditer(re.escape(slot), target))
    sequence = [slot for _, slot in found]
    moved = [(a, b) for a, b in zip(source_slots, sequence) if a != b]
    if moved:
        first, now = moved[0]
        problems.append(f"slots swapped: {now!r} now comes where the source has {first!r}")
    return problems


def stray_slots(source_slots: list[str], target: str, *, fstring: bool) -> list[str]:
    """Slots in `target` that the source does not have (an invented or rewritten slot expression)."""
    known = set(source_slots)
    return [slot.text for slot in format_slots(target, fstring=fstring) if slot.text not in known]


_SLOT_EVIDENCE: dict[str, str] = {
    "fstring": "an f-string expression the code evaluates",
    "format_field": "a str.format field",
    "printf": "a % conversion",
    "jinja": "a Jinja/Mustache placeholder",
}


def code_slots(text: str, *, fstring: bool, key_reads: Mapping[str, str] | None = None) -> list[CodeSlot]:
    """A code text's slots and the JSON keys in it that its code reads (`key_reads`: key -> where the
    code reads it, `evaluator.py:163`), in order of appearance: what every translation keeps verbatim."""
    found: list[tuple[int, CodeSlot]] = [
        (slot.start, CodeSlot(text=slot.text, kind=slot.kind, evidence=_SLOT_EVIDENCE[slot.kind]))
        for slot in format_slots(text, fstring=fstring)
    ]
    for key, where in (key_reads or {}).items():
        for match in json_key_pattern(key).finditer(text):
            evidence = f"a JSON key the code reads from the reply ({where})"
            found.append((match.start(), CodeSlot(text=match.group(), kind="parsed_key", evidence=evidence)))
    return [slot for _, slot in sorted(found, key=lambda item: item[0])]


def target_slot_problems(slots: Sequence[CodeSlot], target: str) -> list[str]:
    """`slot_problems` for a code text whose slots the IR holds ([] for a text with none)."""
    if not slots:
        return []
    fstring = any(slot.kind == "fstring" for slot in slots)
    return slot_problems([slot.text for slot in slots], target, fstring=fstring)
