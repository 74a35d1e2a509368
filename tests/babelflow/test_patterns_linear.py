"""Every compiled pattern of the core (and the placeholder patterns) runs in linear time.

Python's `re` backtracks: a pattern whose quantifiers overlap (`\\s+[^<>]*?\\s*`) or that scans a
long run from every start position costs quadratic or cubic time on text an attacker chooses
(issue 28: 4,000 spaces after `<x` in one task note took `adapt` from 5 s to 85 s). Texts come from
`--source-dir`, domain packages and new releases, so each pattern is fed 100,000-character
adversarial strings and must take about as long as on benign text of the same length.

How the adversarial strings are found: each pattern's own literal characters (and one
representative of each character class it uses) are combined into runs, alternations and
prefix+run strings; all of them are tried at 1,000 characters, and the slowest ones per pattern are
then timed at 100,000. A quadratic pattern is already ~100x slower than a linear one at 1,000, so
the slowest candidates are the ones to grow. Each pattern runs in a forked child with a timeout, so a
cubic pattern fails the test instead of hanging it.
"""

from __future__ import annotations

import importlib
import itertools
import multiprocessing
import pkgutil
import queue
import re
import time
from collections.abc import Callable, Iterator
from re import _constants as sre_constants  # type: ignore[attr-defined]  # sre_parse is deprecated
from re import _parser as sre_parse  # type: ignore[attr-defined]

import pytest

import babelflow
import translators.pack_checks
import translators.placeholders

LONG = 100_000
SCREEN = 1_000
GROW_SLOWEST = 6  # candidates per pattern timed at full length
BENIGN_WORDS = "The customer asked to change the delivery address of order #W2378156 to Suite 641, 2024-05-15. "
# the cases the issue names, tried on every pattern at full length whatever the screening says
NAMED = (
    "<x" + " " * LONG,
    "{{" * (LONG // 2),
    "%(" * (LONG // 2),
    "%" + "0" * LONG,
    "<x" + "a" * LONG,
    "`" * LONG,
    "](" * (LONG // 2),
    "a-" * (LONG // 2),
    "1." * (LONG // 2),
    "%" * LONG,
    "a" * LONG,
    "".join("`" * k + "a" for k in range(1, 448)),  # backtick runs of growing length: no run closes another
)
# Patterns babelflow (and the library that defines them) only ever anchor at one position with
# .match()/.fullmatch(): they are timed that way, since no caller tries them at every start.
ANCHORED_ONLY = {
    "babelflow.docstring_parts.MULTIPLE_PATTERN": "docstring_parser's pattern; it and babelflow call .match() only",
    "translators.pack_checks._MEASURE": "fullmatch() on one parity token ('15-inch'), never searched in a text",
}
BASE_CHARS = "a1 \n_.-/%#@{}()[]<>`\"':+,é"


def _patterns_in(value: object, where: str) -> Iterator[tuple[str, re.Pattern[str]]]:
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        yield where, value
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from _patterns_in(item, f"{where}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _patterns_in(item, f"{where}[{key!r}]")


def core_patterns() -> dict[str, re.Pattern[str]]:
    """Every `re.Pattern` a babelflow module (or translators.placeholders / pack_checks) holds at module level."""
    modules = [importlib.import_module(info.name) for info in pkgutil.walk_packages(babelflow.__path__, "babelflow.")]
    modules += [translators.placeholders, translators.pack_checks]  # the placeholder and task-parity tokens
    found: dict[str, re.Pattern[str]] = {}
    for module in modules:
        for name, value in vars(module).items():
            for where, pattern in _patterns_in(value, f"{module.__name__}.{name}"):
                if pattern not in found.values():  # re-exports (text.PLACEHOLDER in placeholders) once
                    found[where] = pattern
    return found


def _literals(pattern: re.Pattern[str]) -> list[str]:
    """The characters a pattern names: literals, and one member of each class or range."""
    chars: set[str] = set()

    def walk(tokens) -> None:
        for op, arg in tokens:
            if op is sre_constants.LITERAL:
                chars.add(chr(arg))
            elif op is sre_constants.IN:
                for item_op, item in arg:
                    if item_op is sre_constants.LITERAL:
                        chars.add(chr(item))
                    elif item_op is sre_constants.RANGE:
                        chars.add(chr(item[0]))
                    elif item_op is sre_constants.CATEGORY:
                        chars.update(
                            {"CATEGORY_DIGIT": "1", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}.get(str(item), "")
                        )
            elif op is sre_constants.CATEGORY:
                chars.update({"CATEGORY_DIGIT": "1", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}.get(str(arg), ""))
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
                walk(arg[2])
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
    return sorted(chars)


def adversaries(pattern: re.Pattern[str], length: int) -> list[str]:
    """Runs of one character, of two alternating, and one character followed by a run of another."""
    named = sorted(set(_literals(pattern))) or list(BASE_CHARS)
    # one white-space character stands for all (a class like \s names six, which pushed the
    # punctuation a pattern repeats, such as '{' and '}', out of the first sixteen)
    chars = [c for c in named if not c.isspace()][:20]
    chars += [c for c in "a1 \n" if c not in chars]
    found = [c * length for c in chars]
    for first, second in itertools.permutations(chars, 2):
        found.append((first + second) * (length // 2))
        found.append(first + second * (length - 1))
        found.append(first + "x" + second * (length - 2))  # "<x" + spaces: a name, then the run
        # a repeated pair that fails at its very end: exponential when two branches of a repeated group
        # can both read the pair ('{}' x 22 + 'a' took 1.1 s in a markup heuristic, doubling per pair)
        found.append((first + second) * (length // 2 - 1) + "\x00")
    return found


def _elapsed(pattern: re.Pattern[str], text: str, anchored: bool = False) -> float:
    started = time.perf_counter()
    if not anchored:
        for _ in pattern.finditer(text):  # finditer tries every start position: search, findall, sub do the same
            pass
    pattern.match(text)
    pattern.fullmatch(text)
    return time.perf_counter() - started


def _benign(length: int) -> str:
    return (BENIGN_WORDS * (length // len(BENIGN_WORDS) + 1))[:length]


def _sweep(pattern: re.Pattern[str], anchored: bool, results) -> None:
    """In a forked child: the benign time, then each full-length candidate's time as it is measured
    (so a candidate that never finishes is named by the parent)."""
    screened = sorted(adversaries(pattern, SCREEN), key=lambda text: _elapsed(pattern, text, anchored), reverse=True)
    candidates = [_grow(text) for text in screened[:GROW_SLOWEST]] + list(NAMED)
    results.put(("benign", min(_elapsed(pattern, _benign(LONG), anchored) for _ in range(3))))
    for text in candidates:
        results.put((text[:12], None))  # started
        results.put((text[:12], _elapsed(pattern, text, anchored)))  # one run: the bound is 1 s + 50x benign


def _grow(text: str) -> str:
    """The same shape at full length: the head (at most two characters) then its repeating tail."""
    for period in (1, 2):
        for head in (0, 1, 2):
            tail = text[head : head + period]
            if tail and text[head:] == (tail * len(text))[: len(text) - head]:
                return text[:head] + (tail * LONG)[: LONG - head]
    return (text * (LONG // len(text) + 1))[:LONG]


PATTERNS = core_patterns()


def test_the_core_patterns_are_discovered() -> None:
    from babelflow import text

    found = list(PATTERNS.values())
    assert text.PLACEHOLDER in found and text.PATH_LIKE in found and text.MODEL_ANSWER in found
    assert all(pattern in found for _kind, pattern in translators.placeholders.GENERIC_PATTERNS)
    assert len(found) >= 30


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_is_linear_on_adversarial_text(name: str) -> None:
    assert_linear(name, PATTERNS[name], name in ANCHORED_ONLY)


def assert_linear(name: str, pattern: re.Pattern[str], anchored: bool = False) -> None:
    """Fails when `pattern` takes more than 1 s + 50x its benign time on an adversarial string (also
    used for the patterns of the stages: tests/validators/test_patterns_linear_stages.py)."""
    assert_sweep_linear(f"{name} ({pattern.pattern!r})", _sweep, (pattern, anchored))


def assert_sweep_linear(label: str, sweep: Callable[..., None], args: tuple) -> None:
    """Run `sweep(*args, results)` in a forked child (it puts the benign time, then each candidate's
    time as measured) and fail when a candidate never finishes in 30 s or takes more than
    1 s + 50x the benign time."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=sweep, args=(*args, results), daemon=True)
    child.start()
    measured: list[tuple[str, float | None]] = []
    deadline = time.monotonic() + 30
    while child.is_alive() or not results.empty():
        try:
            measured.append(results.get(timeout=max(0.01, min(1.0, deadline - time.monotonic()))))
        except queue.Empty:
            if time.monotonic() > deadline:
                break
    if child.is_alive():
        child.kill()
        child.join()
        last = measured[-1][0] if measured else "(screening at 1,000 characters)"
        pytest.fail(f"{label} did not finish {last!r}... ({LONG:,} chars) in 30 s: superlinear")
    benign = measured[0][1]
    assert measured[0][0] == "benign" and benign is not None
    case, worst = max(((case, took) for case, took in measured[1:] if took is not None), key=lambda pair: pair[1])
    # linear: the same order as benign text of the same length (quadratic at 100,000 characters is >1,000x)
    assert worst < 1.0 + 50 * benign, (
        f"{label} took {worst:.3f} s on {case!r}... ({LONG:,} chars), benign {benign:.4f} s"
    )


def test_protect_on_an_unclosed_tag_takes_what_benign_text_takes() -> None:
    """Issue 28's case end to end: a task note of `<x` and 100,000 spaces (cubic before)."""
    from translators.placeholders import protect

    started = time.perf_counter()
    protect(_benign(LONG))
    benign = time.perf_counter() - started
    started = time.perf_counter()
    protected = protect("Note <x" + " " * LONG + "and more")
    assert time.perf_counter() - started < 1.0 + 20 * benign
    assert [p.kind for p in protected.placeholders] == []  # no ">": not a tag


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("<br/> and <br /> and <p>x</p>", ["<br/>", "<br />", "<p>", "</p>"]),
        ('<a href="x" >link</a >', ['<a href="x" >', "</a >"]),
        ("<x   > then <y\n>", ["<x   >", "<y\n>"]),
        ("a < b and c > d", []),
        ("<x <y>", ["<y>"]),
    ],
)
def test_tag_pattern_keeps_its_matches(text: str, tags: list[str]) -> None:
    from translators.placeholders import protect

    assert [p.original for p in protect(text).placeholders if p.kind == "tag"] == tags
