"""Status values and inserted terms in a real language's prose: a status value's rendering where the
source says the word in its ordinary sense, a rendering written twice, spaces put around a term in a
script written without them. `source_words_left` (language_checks.py) runs them on each field."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from babelflow.ir import PreserveReason
from babelflow.language_data import LanguageData, in_script
from validators.context import ValidationContext
from validators.findings import Hit, Severity, TextFix
from validators.probes.quoting import quoted_pairs


def field_hit(
    kind: str,
    severity: Severity,
    element,
    target: str,
    message: str,
    pattern: str,
    cause: str | None = None,
    fixes: list[TextFix] | None = None,
    **detail: str,
) -> Hit:
    return Hit.on(
        element,
        target,
        message,
        kind=kind,
        severity=severity,
        detail=detail,
        pattern=pattern,
        cause=cause,
        fixes=fixes or [],
    )


# ---- status renderings in ordinary prose -----------------------------------------------------


def status_renderings(ctx: ValidationContext, elements, targets) -> dict[str, str]:
    """status value -> the variant's rendering, learned where the source quotes the value and
    the translation quotes the same number of things (policy: "status is 'delivered'")."""
    statuses = {
        e.source_text
        for e in ctx.ir.elements
        if e.preserve_reason is PreserveReason.ENUM_CODE
        and e.source_text.islower()
        and re.fullmatch(r"[a-z]+(?: [a-z]+)?", e.source_text)
    }
    seen: dict[str, Counter] = defaultdict(Counter)
    for value, rendering in ctx.adopted_renderings.items():  # written back by adopt: no longer in the quotes
        if value in statuses:
            seen[value][rendering] += 1
    for element in elements:
        target = targets[element.id]
        if not target or not any(t in statuses for t in element.inline_tokens):
            continue
        for value, rendering in quoted_pairs(element.source_text, target):
            if value in statuses and rendering != value:
                seen[value][rendering] += 1
    return {value: counts.most_common(1)[0][0] for value, counts in seen.items()}


def reads_as_label(rendering: str, target: str, data: LanguageData) -> bool:
    """Whether a status rendering stands in the sentence as a label, not as the language's own word.
    Where it is one word ('dibatalkan', 'cancelado', 'geliefert') it is often the ordinary participle,
    and "can only be cancelled" reads naturally with it: nothing says it was forced. A phrase ('đã hủy',
    'naihatid na': a word with its aspect particle) cannot fill the verb's slot, nor can a term set
    between spaces in a script written without them ('จะถูก ยกเลิกแล้ว ได้')."""
    if data.unspaced:
        return re.search(rf"(?:^|\s){re.escape(rendering)}(?:\s|$)", target) is not None
    return len(rendering.split()) > 1


def status_in_prose(element, target: str, statuses: dict[str, str], data: LanguageData) -> list[Hit]:
    out = []
    for value, rendering in statuses.items():
        if value in element.inline_tokens:
            continue  # the source quotes the status itself: its rendering is right there
        # "to be delivered to Suite 641": the verb, not the order status 'delivered'
        if (
            re.search(rf"\bbe\s+{re.escape(value)}\b", element.source_text)
            and rendering in target
            and reads_as_label(rendering, target, data)
        ):
            out.append(
                field_hit(
                    "status_rendering_in_prose",
                    Severity.MAJOR,
                    element,
                    target,
                    f"the status rendering {rendering!r} stands where the source uses {value!r} as an ordinary word: "
                    "the sentence now says something else",
                    f"status {value!r} as {rendering!r}",
                    cause="status renderings forced into ordinary prose",
                    status=value,
                    rendering=rendering,
                )
            )
    return out


_MARKS = "'\"‘’“”「」『』«»"


def status_doubled(element, target: str, statuses: dict[str, str], data: LanguageData) -> list[Hit]:
    """A status rendering written twice, or after its own first characters ('已 已送达'), or beside the
    literal it renders ("entregado 'delivered'"): a translator inserted the term over its own words."""
    out = []
    for value, rendering in statuses.items():
        if rendering not in target or re.search(rf"\b{re.escape(value)}\W+{re.escape(value)}\b", element.source_text):
            continue
        whole = "|".join(re.escape(form) for form in sorted({rendering, value}, key=len, reverse=True))
        edge, end = ("", "") if data.unspaced else (r"(?<!\w)", r"(?!\w)")  # whole words where words are spaced
        patterns = [rf"{edge}(?:{whole})[{_MARKS}]?[ ]*[{_MARKS}]?(?:{whole}){end}"]
        if data.unspaced and len(rendering) > 1:  # its first characters, then a space or a mark, then it whole
            prefixes = "|".join(re.escape(rendering[:n]) for n in range(len(rendering) - 1, 0, -1))
            patterns.append(rf"(?:{prefixes})[ {_MARKS}]+{re.escape(rendering)}")
        doubled = sorted({m[0] for p in patterns for m in re.finditer(p, target)})
        if doubled:
            out.append(
                field_hit(
                    "status_rendering_doubled",
                    Severity.MINOR,  # 'terkirim terkirim': the reader stumbles, nobody acts otherwise
                    element,
                    target,
                    f"the status rendering {rendering!r} of {value!r} is written twice side by side",
                    f"status {value!r} doubled",
                    cause="status renderings written twice",
                    # the rendering once, with the quote marks the span had ('terkirim terkirim' -> 'terkirim')
                    fixes=[TextFix(find=span, replace=_once(span, rendering)) for span in doubled],
                    status=value,
                    rendering=rendering,
                )
            )
    return out


def _once(span: str, rendering: str) -> str:
    """A doubled span written once: the target-language rendering, inside the span's own quote marks."""
    opening = span[0] if span[0] in _MARKS else ""
    closing = span[-1] if span[-1] in _MARKS and len(span) > 1 else ""
    if opening and closing and rendering in span[1:-1]:
        return f"{opening}{rendering}{closing}"
    return rendering


# ---- spacing around inserted terms -----------------------------------------------------------


def spacing_around(element, target: str, terms: set[str], data: LanguageData) -> list[Hit]:
    out = []
    present = [t for t in terms if t and f" {t} " in target]  # what the pattern below needs, found cheaply
    for term in sorted(present, key=lambda t: (-len(t), t)):  # longest first; ties by text, not by set order
        if not in_script(term[0], data.script):
            continue
        spans = []
        for match in re.finditer(rf"(?<= ){re.escape(term)}(?= )", target):
            before, after = target[match.start() - 2 : match.start() - 1], target[match.end() + 1 : match.end() + 2]
            if before and after and in_script(before, data.script) and in_script(after, data.script):
                spans.append(target[match.start() - 2 : match.end() + 2])
        if spans:
            out.append(
                field_hit(
                    "spacing_artifact",
                    Severity.MINOR,
                    element,
                    target,
                    f"spaces inserted around {term!r} in a script written without spaces between words",
                    f"spaces around {term!r}",
                    cause="spaces inserted around terms in a script written without them",
                    # with its neighbouring letters, so that a space beside a Latin word or a digit stays
                    fixes=[TextFix(find=span, replace=span[0] + term + span[-1]) for span in sorted(set(spans))],
                    term=term,
                )
            )
    return out
