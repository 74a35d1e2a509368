"""What a translation quotes where its source quotes something: the two lists of quoted strings
paired in order, when both quote the same number of things (policy: "status is 'delivered'" ->
"trạng thái là 'đã giao'"). Used to learn a status's rendering and to show what a lost reference
became."""

from __future__ import annotations

import re

_QUOTED = re.compile(r"'([^'\n]{1,60})'|\"([^\"\n]{1,60})\"|‘([^’\n]{1,60})’|“([^”\n]{1,60})”")


def quoted(text: str) -> list[str]:
    return ["".join(groups) for groups in _QUOTED.findall(text)]


def quoted_pairs(source: str, target: str) -> list[tuple[str, str]]:
    """(quoted in the source, quoted at the same place in the target); empty when the counts differ."""
    in_source, in_target = quoted(source), quoted(target)
    return list(zip(in_source, in_target)) if len(in_source) == len(in_target) else []


def requoted(text: str, inner: dict[int, str]) -> str:
    """`text` with the i-th quoted string's content replaced by `inner[i]`, its quote marks kept."""
    out, last = [], 0
    for number, match in enumerate(_QUOTED.finditer(text)):
        if number not in inner:
            continue
        group = next(g for g in range(1, 5) if match.group(g) is not None)
        out += [text[last : match.start(group)], inner[number]]
        last = match.end(group)
    return "".join(out) + text[last:]
