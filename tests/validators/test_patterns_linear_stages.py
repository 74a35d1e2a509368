"""Every compiled pattern of the stages (validators, analyzers, translators, source_benchmarks, flows)
runs in linear time, and so do the scanners that replace the patterns that did not.

Validation and analysis read translated text, which comes from an imported file or a model: a crafted
target must not hang them. The patterns are fed the adversarial strings of the core's test
(tests/babelflow/test_patterns_linear.py, whose machinery this reuses); the scanners that replaced
super-linear patterns get the same treatment from the characters the old patterns named, plus the
strings that were measured slow (20,000 letters through language_checks' masks: 8 s; ',' + 20,000
letters through its clause pattern: 22 s; '+-' x 10,000 through AgentDojo's kept spans: 11 s).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time
from collections.abc import Callable
from re import _constants as sre_constants  # type: ignore[attr-defined]  # sre_parse is deprecated
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest

from analyzers import heuristics
from tests.babelflow.test_patterns_linear import (
    LONG,
    NAMED,
    SCREEN,
    _benign,
    _grow,
    _patterns_in,
    adversaries,
    assert_linear,
    assert_sweep_linear,
)
from tests.babelflow.test_patterns_linear import (
    PATTERNS as CORE_PATTERNS,
)
from translators import simulated_model
from validators.probes import language_checks

PACKAGES = ("validators", "analyzers", "translators", "source_benchmarks", "flows")


def stage_patterns() -> dict[str, re.Pattern[str]]:
    """Every module-level `re.Pattern` of the stage packages that the core's test does not time already."""
    found: dict[str, re.Pattern[str]] = {}
    seen = list(CORE_PATTERNS.values())
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        modules = [package] + [
            importlib.import_module(info.name) for info in pkgutil.walk_packages(package.__path__, f"{package_name}.")
        ]
        for module in modules:
            for name, value in vars(module).items():
                for where, pattern in _patterns_in(value, f"{module.__name__}.{name}"):
                    if pattern not in seen:
                        seen.append(pattern)
                        found[where] = pattern
    return found


PATTERNS = stage_patterns()


def test_the_stage_patterns_are_discovered() -> None:
    found = list(PATTERNS.values())
    assert language_checks._CLAUSE in found and language_checks._BRACED in found
    assert simulated_model._TOKEN in found and heuristics._KEPT_SLOT in found
    assert len(found) >= 30


def _repeats(pattern: re.Pattern[str]) -> bool:
    """Whether the pattern has a quantifier (or a backreference): without one it does a bounded amount
    of work at each start position, so it is linear by construction and needs no sweep."""
    found = False

    def walk(tokens) -> None:
        nonlocal found
        for op, arg in tokens:
            if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
                found = True
            elif op in (sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS):
                found = True
            elif op is sre_constants.SUBPATTERN:
                walk(arg[3])
            elif op is sre_constants.ATOMIC_GROUP:
                walk(arg)
            elif op is sre_constants.BRANCH:
                for branch in arg[1]:
                    walk(branch)
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                walk(arg[1])

    walk(sre_parse.parse(pattern.pattern, pattern.flags))
    return found


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_stage_pattern_is_linear_on_adversarial_text(name: str) -> None:
    pattern = PATTERNS[name]
    if _repeats(pattern):
        assert_linear(name, pattern)
    else:  # a character (class) with fixed-width look-arounds: one quick look that it runs
        started = time.perf_counter()
        for text in NAMED[:4]:
            for _ in pattern.finditer(text):
                pass
        assert time.perf_counter() - started < 5.0


# The scanners that replaced super-linear patterns, with the characters those patterns named.
SCANNERS: dict[str, tuple[Callable[[str], object], str, tuple[str, ...]]] = {
    "language_checks._masked": (language_checks._masked, "{}[]@_#/:h a1", ("a" * LONG,)),
    "heuristics.kept_spans": (
        heuristics.kept_spans,
        "{}@.+-_/\\:w a1",
        ("+-" * (LONG // 2), "{}a" * (LONG // 3), "www." * (LONG // 4), "a@" * (LONG // 2)),
    ),
    "simulated_model._tokens": (
        lambda text: list(simulated_model._tokens(text)),
        "⟦⟧0@.%+-_#,:/aé ",
        ("A" + "%" * (LONG - 1), "%a" * (LONG // 2), "é" + "%" * (LONG - 1), "%" * (LONG - 2) + "@a"),
    ),
    "heuristics.is_markup_only": (
        heuristics.is_markup_only,
        "{}<>[]:.-_/ a",
        ("{}" * (LONG // 2) + "a", "{:}" * (LONG // 3) + "a", "<" * LONG, "{" * LONG + "}a", "<{}" * (LONG // 3)),
    ),
}


def _time(scan: Callable[[str], object], text: str) -> float:
    started = time.perf_counter()
    scan(text)
    return time.perf_counter() - started


def _scanner_sweep(name: str, results) -> None:
    """In a forked child, as the core's _sweep: benign time, then each candidate as it is measured."""
    scan, chars, named = SCANNERS[name]
    # screened shorter than the patterns (a scanner is Python code): quadratic is still ~30x linear at 300
    screened = adversaries(re.compile(f"[{re.escape(chars)}]"), SCREEN // 3)
    screened.sort(key=lambda text: _time(scan, text), reverse=True)
    results.put(("benign", min(_time(scan, _benign(LONG)) for _ in range(3))))
    for text in [_grow(text) for text in screened[:4]] + list(named) + [NAMED[0], NAMED[9], NAMED[10]]:
        results.put((text[:12], None))
        results.put((text[:12], _time(scan, text)))


@pytest.mark.parametrize("name", sorted(SCANNERS))
def test_scanner_is_linear_on_adversarial_text(name: str) -> None:
    assert_sweep_linear(name, _scanner_sweep, (name,))


# The spans the old patterns gave (checked against them on every tau2, AgentDojo, SEATau and variant string).
@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("see {slot x} and [a b] here", "see   and   here"),
        ("mail a.b@c.d or https://x.y/z now", "mail   or   now"),
        ("{a}b_c d", "   d"),  # a slot, then the rest of its run from b (it holds _)
        ("x}y_z {q", "  {q"),
        ("plain words}x{y", "plain words}x{y"),
        ("ab@ @c a@b", "ab@ @c  "),  # an @ needs a character on each side within the run
        ("wordy{a}b", "wordy b"),  # nothing from w on, but a slot later in the run
    ],
)
def test_masks_keep_their_spans(text: str, masked: str) -> None:
    assert language_checks._masked(text) == masked


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        ("the order was not delivered yet, sorry", ["the order was not delivered yet, sorry"]),
        ("x-ray of the old car park", ["x-ray of the old car park"]),
        ("a b c d e-5", ["a b c d e"]),
        ("9one two three four five", ["one two three four five"]),
        ("one two three", []),
    ],
)
def test_clauses_keep_their_matches(text: str, clauses: list[str]) -> None:
    assert [m.group(0) for m in language_checks._CLAUSE.finditer(text)] == clauses


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("mail a@b.co or {slot} at www.x.org/y, id_7", ["a@b.co", "{slot}", "www.x.org/y,", "id_7"]),
        ("a@b.c.+x@d.com", ["a@b.c", ".+x@d.com"]),  # an email may start inside a run where one ended
        ("{x}a_b wwwxwww.q", ["{x}", "a_b", "www.q"]),
        ("plain+-+- words", []),
    ],
)
def test_kept_spans_keep_their_matches(text: str, spans: list[str]) -> None:
    assert [text[start:end] for start, end in heuristics.kept_spans(text)] == spans


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        (
            "mail ann@x.com ⟦1⟧ #W12-3",
            [("word", "mail"), ("email", "ann@x.com"), ("placeholder", "⟦1⟧"), ("word", "#W12-3")],
        ),
        ("é%%x@y.com", [("word", "é"), ("email", "%x@y.com")]),  # after a '%' an email may start
        ("x:ab%cd@e.com", [("word", "x:ab"), ("email", "cd@e.com")]),
        ("50%off", [("word", "50"), ("word", "off")]),
    ],
)
def test_simulated_tokens_keep_their_matches(text: str, tokens: list[tuple[str, str]]) -> None:
    assert [(group, text[start:end]) for group, start, end in simulated_model._tokens(text)] == tokens


@pytest.mark.parametrize(
    ("text", "markup"),
    [
        ("{x} [:] <b>:</b>", True),
        ("{x} [y]", False),
        ("{<}>", True),
        ("{:}", True),
        ("{a}}", True),
        ("{}a", False),
        ("<>", False),
    ],
)
def test_markup_only_keeps_its_answers(text: str, markup: bool) -> None:
    assert heuristics.is_markup_only(text) is markup


def test_fidelity_on_unclosed_right_to_left_runs_takes_what_benign_text_takes() -> None:
    """An ar-XB target of 100,000 RLOs and no PDF: each RLO searched the rest for its PDF (quadratic)."""
    from babelflow.text import PDF, RLO
    from validators.probes.pair_checks import FieldPair, check_pair

    source = "Please change the delivery address of my order"
    started = time.perf_counter()
    check_pair(
        "v",
        FieldPair(
            artifact="tasks",
            location="x",
            element_id=None,
            source=source,
            target=(RLO + "ab" + PDF + " ") * (LONG // 4),
            tokens=tuple([]),
        ),
        "ar-XB",
    )
    benign = time.perf_counter() - started
    started = time.perf_counter()
    check_pair(
        "v",
        FieldPair(artifact="tasks", location="x", element_id=None, source=source, target=RLO * LONG, tokens=tuple([])),
        "ar-XB",
    )
    assert time.perf_counter() - started < 1.0 + 20 * benign
