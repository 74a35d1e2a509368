"""A benchmark family as a plug-in: what the shared engines may ask of it.

The engines (analysis, translation, validation, review, evaluation) never branch on a benchmark
id and never import a family's package: they ask the registry (registry.py) for the family of an
id and use what it declares here. A family lives in `source_benchmarks/<family>/` or in any
installed package, and is found through the entry-point group `babelflow.families`.

What a family can do beyond opening its benchmarks is a typed hook (source_benchmarks/hooks.py,
protocol.py): the base class returns None ("not supported") and the engine then does the generic
thing (e.g. replays without a memo) or refuses with a clear error. A family provides a hook by
overriding it; mypy checks what it returns against the hook's protocol.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from babelflow.ir import Record
from babelflow.variant import CodeOverlay
from source_benchmarks.agent_runs import AgentEvaluation
from source_benchmarks.hooks import BehaviourScores, ReplayMemo
from source_benchmarks.protocol import CodeTrialBenchmark, PerturbedBenchmark, SourceBenchmark, TracedBenchmark


class FamilyOption(str, Enum):
    """A family-specific option of the CLI (`--domain-package`, `--version`): BenchmarkSelection's fields."""

    DOMAIN_PACKAGE = "domain_package"
    VERSION = "version"

    @property
    def flag(self) -> str:
        return "--" + self.value.replace("_", "-")


def files_version(root: Path, paths: Iterable[str]) -> str:
    """A digest of the files' contents (a missing file counts as empty): a family's `code_version`."""
    digest = hashlib.blake2b(digest_size=16)
    for name in paths:
        path = root / name
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()


class BenchmarkSelection(Record):
    """The benchmark as the user named it, with the family-specific options of the CLI."""

    benchmark: str
    domain_package: str | None = Field(default=None, description="--domain-package: a module or folder")
    version: str | None = Field(default=None, description="--version: a release of the benchmark's data")


class ProfileChoice(Record):
    """Which packaged analysis profile a benchmark id uses when it has none of its own."""

    path: Path
    description: str = Field(description="why this profile: shown in the profile's description and hashed")


class BenchmarkFamily(ABC):
    """One family of benchmarks (τ², AgentDojo, …): how to open them and what they can do."""

    name: ClassVar[str]
    description: ClassVar[str]
    source_language: ClassVar[str] = "en"  # the language its texts are written in (a BCP 47 tag)
    # each task carries its own environment: values of two tasks never meet (babelflow/worlds.py)
    tasks_are_worlds: ClassVar[bool] = False
    options: ClassVar[frozenset[FamilyOption]] = frozenset()  # the family-specific CLI options it takes
    # its data go through str.format() when loaded: {…} slots and braces are syntax (AgentDojo's YAML)
    formats_data: ClassVar[bool] = False

    @abstractmethod
    def benchmark_ids(self) -> tuple[str, ...]:
        """The ids listed in help and accepted as they are."""

    def accepts(self, benchmark_id: str) -> bool:
        """Whether an id belongs to this family (also forms such as `<id>@<version>`)."""
        return benchmark_id in self.benchmark_ids()

    def source_language_of(self, benchmark_id: str) -> str:
        """The language a benchmark's texts are written in (a family may hold several: VitaBench)."""
        return self.source_language

    def unavailable(self, benchmark_id: str) -> str | None:
        """None when the family can run here; otherwise what is missing and the command that installs it."""
        return None

    def install_hint(self) -> str | None:
        """The command that installs this family's runtime, if it has one of its own."""
        return None

    @abstractmethod
    def open(
        self, benchmark_id: str, source_dir: Path | None = None, overlay: CodeOverlay | None = None
    ) -> SourceBenchmark:
        """The benchmark's adapter; `source_dir` replaces its data files (a variant or a copy)."""

    def open_variant(self, benchmark_id: str, variant_root: Path, overlay: CodeOverlay | None) -> SourceBenchmark:
        """An adapted variant (adapted/<benchmark>/<language>/) through the same adapter as its source."""
        return self.open(benchmark_id, source_dir=variant_root, overlay=overlay)

    def variant_harness_name(self, benchmark_id: str, language: str) -> str:
        """The name a variant registers under in the benchmark's own harness (kept in its manifest)."""
        return f"{benchmark_id}_{language}"

    def variant_data_dir(self, variant_root: Path) -> Path:
        """Where a variant keeps the files that replace the source's data (its `source_dir`)."""
        return variant_root

    def qualify(self, selection: BenchmarkSelection) -> str | None:
        """The benchmark id the selection names, or None when this family does not take the selection's options.

        The base family takes no options: a plain id only."""
        if selection.domain_package is None and selection.version is None and self.accepts(selection.benchmark):
            return selection.benchmark
        return None

    def profile_choice(self, benchmark_id: str, profiles_dir: Path) -> ProfileChoice | None:
        """A packaged profile for an id without one of its own (a version, a domain package); None: none."""
        return None

    def imported_code(self, benchmark_id: str) -> str | None:
        """A module the id makes the benchmark import from outside any installed package (a domain
        package); a deployment runs it only if it lies under the project root. None: nothing."""
        return None

    def code_version(self) -> str:
        """A digest of the family's own code that its replays and trials run (tracer, replay, code
        trials): part of every analysis-cache key (analyzers/trace_cache.py), so an edit to that code
        never reads an observation the old code made. "": none beyond the installed benchmark's version."""
        return ""

    # ---- typed optional hooks (None: not supported) -------------------------------------------------

    def traced_replay(self, bench: SourceBenchmark) -> TracedBenchmark | None:
        """The benchmark as replays traced per text location (instrumented analysis); None: plain replays."""
        return None

    def code_trials(self, bench: SourceBenchmark) -> CodeTrialBenchmark | None:
        """The benchmark as code trials (a code text perturbed alone, replayed); None: code keeps its evidence."""
        return None

    def perturbation(self, bench: SourceBenchmark) -> PerturbedBenchmark | None:
        """The benchmark as a perturbation trial reads it: code and data typed together (analyzers/
        perturbation_trial.py); None: typed by traced or plain replays."""
        return None

    def replay_memo(self) -> ReplayMemo | None:
        """Per-task replay outcomes reusable across variants (flows/pipeline/replay_memo.py)."""
        return None

    def behaviour_scores(self) -> BehaviourScores | None:
        """Ground-truth scores beyond the reward (validators/probes/behavior.py)."""
        return None

    def agent_evaluation(self) -> AgentEvaluation | None:
        """Agents through the family's own runner and scorer (`babelflow evaluate`)."""
        return None

    def hooks(self) -> tuple[str, ...]:
        """The hooks this family provides (those its class overrides), for `babelflow families`."""
        family, base = type(self), BenchmarkFamily
        provided = {
            "traced replay": family.traced_replay is not base.traced_replay,
            "code trials": family.code_trials is not base.code_trials,
            "perturbation": family.perturbation is not base.perturbation,
            "replay memo": family.replay_memo is not base.replay_memo,
            "behaviour scores": family.behaviour_scores is not base.behaviour_scores,
            "agent evaluation": family.agent_evaluation is not base.agent_evaluation,
            "formatted data": family.formats_data,
        }
        return tuple(name for name, present in provided.items() if present)


class SeparatelyInstalledFamily(BenchmarkFamily):
    """A family whose harness is an install of its own (τ³, VitaBench): unavailable until it is found,
    and the command that installs it is the hint."""

    install_command: ClassVar[str]

    @abstractmethod
    def find_runtime(self) -> object | str:
        """The installed runtime, or why none was found (what is missing, with the command)."""

    def unavailable(self, benchmark_id: str) -> str | None:
        found = self.find_runtime()
        return found if isinstance(found, str) else None

    def install_hint(self) -> str:
        return self.install_command
