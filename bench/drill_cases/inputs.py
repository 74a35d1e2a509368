"""Bad-input drill cases: inputs (issue 28)."""

from __future__ import annotations

from pathlib import Path

from bench.drill_cases import Case, Check, write_file

CASES: list[Case] = []
CHECKS: list[Check] = []
ADAPT_EN_XA = ["adapt", "tau2-mock", "--lang", "en-XA"]


# patterns, caches, source folders, glossaries (issue 28 items 8, 9, 10 and 12's glossary half)
from bench.drill_cases.input_safety import (  # noqa: E402
    OVER_LIMIT,
    hand_edit_then_refused_run,
    linked_policy,
    linked_run_lock,
    linked_variant_file,
    linked_variant_file_never_reported,
    markup_in_a_variant_renders_as_text,
    pack_with_glossary,
    planted_cache_pickles,
    planted_result_record,
    unclosed_tag_note,
)

CASES += [
    Case("--source-dir file that is a symlink to /etc/passwd", linked_policy, "policy.md"),
    Case(
        "variant file linked to an owner-only file outside (hand-edit pickup)",
        linked_variant_file(["adapt", "tau2-mock", "--lang", "en-XA"]),
        "policy.md",
        watch=("adapted/tau2-mock", ".babelflow"),  # the link is the prepared change: compared with itself before
    ),
    Case(
        "hand edit adopted, then the run refused by the release checks",
        hand_edit_then_refused_run,
        "en-XA",
        watch=("adapted/tau2-mock", ".babelflow"),  # the edit is the prepared change: compared with itself before
    ),
    Case(
        "run lock planted as a link to another file",
        linked_run_lock,
        "lock",
        watch=("adapted", "victim"),  # the link is the prepared change; its target must be untouched
    ),
    Case(f"language pack with {OVER_LIMIT:,} glossary terms", pack_with_glossary(OVER_LIMIT), "en-XA.toml"),
    Case("language pack of 9 MB", pack_with_glossary(1, padding=9 * 2**20), "en-XA.toml"),
    Case(
        "language pack of 200 KB with a 100,000-part dotted key (tomllib: time and memory in n^2)",
        write_file(
            "language_packs/en-XA.toml", "x." * 100_000 + 'x = "y"\n', ["adapt", "tau2-mock", "--lang", "en-XA"]
        ),
        "en-XA.toml",
    ),
]
CHECKS += [
    Check(
        "task note of '<x' and 10,000 spaces (linear placeholder patterns)",
        unclosed_tag_note,
        # two cold analyses (~18 s); the test times protect() itself on '<x' + 100,000 spaces
        covered_by=(
            "tests/babelflow/test_patterns_linear.py::test_protect_on_an_unclosed_tag_takes_what_benign_text_takes"
        ),
    ),
    Check("pickles planted at the IR sidecar and analysis-cache paths (never loaded)", planted_cache_pickles),
    Check("validate --variant: a file linked outside is refused unread", linked_variant_file_never_reported),
    Check(
        "markup planted in a variant renders as text in the report and the review material",
        markup_in_a_variant_renders_as_text,
        covered_by="tests/flows/test_report_markup.py::"
        "test_planted_markup_in_a_finding_renders_as_text_in_the_report_and_the_review_material",
    ),
    Check(
        "pickle record planted at a stage's cache key (never loaded)",
        planted_result_record,
        covered_by="tests/flows/test_result_store.py::test_a_planted_pickle_runs_in_prefects_default_store_and_never_in_babelflows",
    ),
]


# tracebacks, child processes, redirects (issue 28 items 11, 13's second half, 14)
from bench.drill_cases import write_file as _write_file  # noqa: E402
from bench.drill_cases.input_checks import (  # noqa: E402
    code_trial_child_after_parent_sigkill,
    damaged_memory_line,
    redirecting_provider,
)

_MANY_SUBTAGS = "en-x-" + "-".join(["ab"] * 990)
_LONG_TAG = "en-x-" + "-".join(["abcdefgh"] * 33)  # 301 characters, well-formed BCP 47
_ADAPT = ["adapt", "tau2-mock", "--lang", "en-XA"]
_ANALYZE = ["analyze", "tau2-mock", "--out", "{p}/ir.json", "--profile", "{p}/profile.toml"]
_NESTED = "x = " + "[" * 5000 + "]" * 5000
_PACK = "language_packs/en-XA.toml"
_LATIN1_PACK = b'tag = "en-XA"\nname = "Caf\xe9"\n'  # é in Latin-1: not UTF-8


def _profile_folder(project: Path) -> list[str]:
    (project / "profile-folder").mkdir()  # was an IsADirectoryError traceback
    return ["analyze", "tau2-mock", "--out", str(project / "ir.json"), "--profile", str(project / "profile-folder")]


CASES += [
    Case("--lang with 990 subtags", lambda p: ["adapt", "tau2-mock", "--lang", _MANY_SUBTAGS], "--lang"),
    Case("--lang of a 301-character well-formed tag", lambda p: ["adapt", "tau2-mock", "--lang", _LONG_TAG], "--lang"),
    Case("language pack that is not UTF-8", _write_file(_PACK, _LATIN1_PACK, _ADAPT), "en-XA.toml"),
    Case("language pack nested 5000 arrays deep", _write_file(_PACK, _NESTED, _ADAPT), "en-XA.toml"),
    Case(
        "profile that is not UTF-8",
        _write_file("profile.toml", b'benchmark = "tau2-mock"\nversion = 1\nname = "Caf\xe9"\n', _ANALYZE),
        "profile.toml",
    ),
    Case("profile nested 5000 arrays deep", _write_file("profile.toml", _NESTED, _ANALYZE), "profile.toml"),
    # a FIFO or a link to /dev/zero at these paths hung the run (tests/babelflow/test_toml_files.py)
    Case("--profile naming a folder", _profile_folder, "profile-folder"),
]
CHECKS += [
    Check("translation-memory line that is JSON but not {key, target} (dropped, warned)", damaged_memory_line),
    Check(
        "code-trial child after its parent is SIGKILLed",
        code_trial_child_after_parent_sigkill,
        # the same kill_code_trial_parent() run and the same three conditions as this test (~12-19 s a run)
        covered_by="tests/analyzers/test_code_trial_lifetime.py::"
        "test_the_real_code_trial_child_ends_within_a_second_or_so_of_its_parents_sigkill",
    ),
    Check("provider endpoint that redirects to another host", redirecting_provider),
]
