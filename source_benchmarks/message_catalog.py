"""Translate the messages a benchmark's code produces (tool errors and text results) at run time."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from babelflow.variant import CodeOverlay

_SLOT = re.compile(r"\{[^{}]*\}")


def _filled_slots(source: str, declared: Sequence[str] | None) -> list[str]:
    """The slots the code fills, in order of appearance (a parsed key is kept text, not filled)."""
    if declared is None:
        return _SLOT.findall(source)
    filled = [slot for slot in declared if slot[:1] in "{%"]
    return re.findall(_alternation(filled), source) if filled else []


def _alternation(slots: Sequence[str]) -> str:
    return "|".join(re.escape(slot) for slot in sorted(set(slots), key=len, reverse=True))


@dataclass(frozen=True)
class SlotFill:
    """A run-time text read as one of the catalog's templates: which code text made it, with what values."""

    source: str  # the code text's source, slots as written
    target: str
    slots: list[str]
    values: list[tuple[str, str]]  # (slot, the value the code put there)


class TextCatalog(Protocol):
    """Anything that renders a run-time message in the variant's language."""

    def translate(self, text: str) -> str: ...


class MessageCatalog:
    """Translate tool messages: exact texts, f-string templates (slots kept), then literal fragments."""

    def __init__(self, pairs: list[tuple[str, str]], slots: Mapping[str, Sequence[str] | None] | None = None):
        """`slots`: source text -> its format slots as the analysis found them (a plain string's JSON braces
        are text); a source without an entry is read with the `{...}` pattern."""
        self.exact: dict[str, str] = {}
        self.templates: list[tuple[re.Pattern[str], list[str], str, str]] = []  # (pattern, slots, target, source)
        fragments: dict[str, str] = {}
        for source, target in pairs:
            if source == target or not source.strip():
                continue
            filled = _filled_slots(source, (slots or {}).get(source))
            if filled:
                literal = re.split(_alternation(filled), source)
                pattern = "".join(
                    re.escape(part) + ("(.*?)" if i < len(literal) - 1 else "") for i, part in enumerate(literal)
                )
                self.templates.append((re.compile(pattern, re.S), filled, target, source))
            else:
                self.exact[source] = target
                if len(source.split()) >= 2:
                    fragments[source] = target
        self.templates.sort(key=lambda t: -len(t[0].pattern))
        self.fragments = sorted(fragments.items(), key=lambda item: -len(item[0]))

    @classmethod
    def of_overlay(cls, overlay: CodeOverlay) -> MessageCatalog:
        """The catalog of an overlay's messages, each filled at the slots the analysis recorded."""
        texts = overlay.message_texts()
        return cls([(t.source, t.target) for t in texts], {t.source: t.slots for t in texts})

    def fill_of(self, text: str) -> SlotFill | None:
        """The template `text` was made from (the longest that matches whole), with its slots' values."""
        for pattern, slots, target, source in self.templates:
            match = pattern.fullmatch(text)
            if match:
                return SlotFill(source, target, slots, list(zip(slots, match.groups())))
        return None

    def _message(self, text: str) -> str | None:
        """`text` as the variant renders it when one code text made it (None: none did). A slot's value that
        another code text made ('Airplane Mode is now ON.' inside '{status_update}\\nStatus Bar: …') is
        rendered too: the code composed the output from both."""
        if text in self.exact:
            return self.exact[text]
        fill = self.fill_of(text)
        if fill is None:
            return None
        result = fill.target
        for slot, value in fill.values:
            # a one-word value ('ON', 'pending') is data, even where a code text reads the same
            inner = self._message(value) if len(value.split()) >= 2 else None
            result = result.replace(slot, value if inner is None else inner, 1)
        return result

    def translate(self, text: str) -> str:
        message = self._message(text)
        if message is not None:
            return message
        for source, target in self.fragments:  # outputs assembled from several literals
            if source in text:
                text = text.replace(source, target)
        return text
