"""Two protected values that traded places (issue 28, item 6): "a task called 'user_1' for
Important Meeting" passed import and validate with 0 findings. The rule lives in the core
(babelflow/inline_codes.py); import applies it to ⟦N⟧ codes, the fidelity layer to restored text."""

from __future__ import annotations

import time

from babelflow.inline_codes import swapped_tokens
from validators.probes.pair_checks import FieldPair, check_pair

SOURCE = "Create a new task called 'Important Meeting' for user_1."
TOKENS = ["Important Meeting", "user_1"]


def _kinds(target: str, language: str = "es") -> list[str]:
    findings = check_pair(
        "v",
        FieldPair(
            artifact="tasks.json",
            location="tasks.json[*].ticket",
            element_id="e1",
            source=SOURCE,
            target=target,
            tokens=tuple(TOKENS),
        ),
        language,
    )
    return [f.kind for f in findings]


def test_a_swap_is_a_critical_fidelity_finding():
    findings = check_pair(
        "v",
        FieldPair(
            artifact="tasks.json",
            location="ticket",
            element_id="e1",
            source=SOURCE,
            target="Cree una tarea llamada 'user_1' para Important Meeting.",
            tokens=tuple(TOKENS),
        ),
        "es",
    )
    (swap,) = [f for f in findings if f.kind == "tokens_swapped"]
    assert (
        swap.severity.value == "critical"
        and "'user_1' stands where the source quotes 'Important Meeting'" in swap.message
    )


def test_reordered_restyled_or_unquoted_values_are_not_swaps():
    assert "tokens_swapped" not in _kinds("Cree una tarea llamada «Important Meeting» para user_1.")
    assert "tokens_swapped" not in _kinds("Para user_1, cree una tarea llamada 'Important Meeting'.")  # reorder
    assert "tokens_swapped" not in _kinds("Cree una tarea Important Meeting para user_1.")  # quotes dropped
    assert swapped_tokens("see 'user_10' and user_1", "see 'user_10' and user_1", ["user_1", "user_10"]) == []


def test_the_check_is_linear_on_long_adversarial_text():
    text = "'" + "user_1 " * 20_000 + "'"
    started = time.perf_counter()
    swapped_tokens(text, text.replace("'", ""), ["user_1", "user_1 user_1", "x" * 50])
    assert time.perf_counter() - started < 1
