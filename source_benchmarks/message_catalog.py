"""Translate the messages a benchmark's code produces (tool errors and text results) at run time."""

from __future__ import annotations

import re
from typing import Protocol

_SLOT = re.compile(r"\{[^{}]*\}")


class TextCatalog(Protocol):
    """Anything that renders a run-time message in the variant's language."""

    def translate(self, text: str) -> str: ...


class MessageCatalog:
    """Translate tool messages: exact texts, f-string templates (slots kept), then literal fragments."""

    def __init__(self, pairs: list[tuple[str, str]]):
        self.exact: dict[str, str] = {}
        self.templates: list[tuple[re.Pattern[str], list[str], str]] = []
        fragments: dict[str, str] = {}
        for source, target in pairs:
            if source == target or not source.strip():
                continue
            slots = _SLOT.findall(source)
            if slots:
                literal = _SLOT.split(source)
                pattern = "".join(
                    re.escape(part) + ("(.*?)" if i < len(slots) else "") for i, part in enumerate(literal)
                )
                self.templates.append((re.compile(pattern, re.S), slots, target))
            else:
                self.exact[source] = target
                if len(source.split()) >= 2:
                    fragments[source] = target
        self.templates.sort(key=lambda t: -len(t[0].pattern))
        self.fragments = sorted(fragments.items(), key=lambda item: -len(item[0]))

    def translate(self, text: str) -> str:
        if text in self.exact:
            return self.exact[text]
        for pattern, slots, target in self.templates:
            match = pattern.fullmatch(text)
            if match:
                result = target
                for slot, value in zip(slots, match.groups()):
                    result = result.replace(slot, value, 1)
                return result
        for source, target in self.fragments:  # outputs assembled from several literals
            if source in text:
                text = text.replace(source, target)
        return text
