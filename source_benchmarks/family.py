"""A benchmark family as a plug-in: what the shared engines may ask of it.

The engines (analysis, translation, validation, review, evaluation) never branch on a benchmark
id and never import a family's package: they ask the registry (registry.py) for the family of an
id and use what it declares here. A family lives in `source_benchmarks/<family>/` or in any
installed package, and is found through the entry-point group `babelflow.families`.

Capabilities are optional: the base class says "not supported" (None), and the engine then does
the generic thing (e.g. replays without a memo) or refuses with a clear error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from babelflow.ir import Record
from babelflow.variant import CodeOverlay
from source_benchmarks.protocol import SourceBenchmark


class Capability(str, Enum):
    """What a family's benchmarks can do beyond the SourceBenchmark protocol (listed by `babelflow families`)."""

    INVENTORY = "inventory"  # artifacts: data and code, typed by role
    GROUND_TRUTH = "ground_truth"  # golden and do-nothing replays, scored by the benchmark's own evaluator
    TRACED_REPLAY = "traced_replay"  # location-tagged replays and code trials (analysis evidence)
    PERTURBATION_ANALYSIS = "perturbation_analysis"  # data and code typed together by perturbation trials
    SCORED_BEHAVIOUR = "scored_behaviour"  # behaviour judged by the benchmark's ground-truth scores (utility, security)
    FORMAT_TEMPLATES = "format_templates"  # data go through str.format() when loaded: {…} slots and braces are syntax
    CODE_OVERLAY = "code_overlay"  # a variant carries translated code texts applied at run time
    HARNESS_REGISTRATION = "harness_registration"  # a variant registers in the benchmark's own harness
    REPLAY_MEMO = "replay_memo"  # per-task replay results reusable across variants
    AGENT_EVALUATION = "agent_evaluation"  # `babelflow evaluate`: agents run through the family's runner


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
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.INVENTORY, Capability.GROUND_TRUTH})

    @abstractmethod
    def benchmark_ids(self) -> tuple[str, ...]:
        """The ids listed in help and accepted as they are."""

    def accepts(self, benchmark_id: str) -> bool:
        """Whether an id belongs to this family (also forms such as `<id>@<version>`)."""
        return benchmark_id in self.benchmark_ids()

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

    def option_owner(self, option: str) -> bool:
        """Whether a family-specific CLI option (`domain_package`, `version`) is this family's."""
        return False

    def profile_choice(self, benchmark_id: str, profiles_dir: Path) -> ProfileChoice | None:
        """A packaged profile for an id without one of its own (a version, a domain package); None: none."""
        return None

    def imported_code(self, benchmark_id: str) -> str | None:
        """A module the id makes the benchmark import from outside any installed package (a domain
        package); a deployment runs it only if it lies under the project root. None: nothing."""
        return None

    # ---- optional capabilities (None: not supported) ----------------------------------------------

    def harness_registration(self) -> Any:
        """An object with `register_variant(benchmark_id, variant_root, language) -> str` (the harness's own id)."""
        return None

    def replay_memo(self) -> Any:
        """An object with `reads_key`, `lookups_hold` and `replay_traced` (flows/pipeline/replay_memo.py)."""
        return None

    def behaviour_scores(self) -> Any:
        """With SCORED_BEHAVIOUR: an object with `compared` (reward-breakdown component -> finding kind),
        `score_name(task_id)` and `describe(component, source, target)` (validators/probes/behavior.py)."""
        return None

    def agent_evaluation(self) -> Any:
        """An object with `run_trial`, `agent_texts` and `default_greeting` (flows/evaluation/evaluate.py)."""
        return None
