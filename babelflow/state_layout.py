"""Where everything lives: one object owns the layout of the state folder and the outputs.

Stages and commands ask it for a path by what the path is (the IR of a benchmark, the canonical
map of a language, the cost ledger of a stage) instead of joining folder names themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StateLayout:
    state: Path  # .babelflow/: IRs, translation memories, runs, reviews, costs, Prefect home
    adapted: Path  # adapted/<benchmark>/<language>/: the variants
    canonical_maps: Path  # canonical_maps/<benchmark>/<language>.json

    # ---- analysis and translation ----
    def ir(self, benchmark: str) -> Path:
        return self.state / "ir" / f"{benchmark}.json"

    def memory(self, benchmark: str, language: str, translator_id: str) -> Path:
        safe = translator_id.replace("/", "_").replace(":", "_")
        return self.memories(benchmark, language) / f"{safe}.jsonl"

    def memories(self, benchmark: str, language: str) -> Path:
        """The translation memories of one language, one file per translator."""
        return self.state / "tm" / benchmark / language

    def canonical_map(self, benchmark: str, language: str) -> Path:
        return self.canonical_maps / benchmark / f"{language}.json"

    def term_base(self, benchmark: str, language: str) -> Path:
        """The terms stage's term base of one language (run-generated: rebuilt by every run)."""
        return self.state / "terms" / benchmark / f"{language}.json"

    def term_decisions(self, benchmark: str, language: str) -> Path:
        """Append-only log of term reviews (approve, correct), beside the reviewed map it feeds."""
        return self.canonical_maps / benchmark / f"{language}.terms-log.jsonl"

    def variant(self, benchmark: str, language: str, out: Path | None = None) -> Path:
        return Path(out) if out else self.adapted / benchmark / language

    # ---- runs and review ----
    def run_dir(self, benchmark: str, language: str) -> Path:
        return self.state / "runs" / benchmark / language

    def reviewed_translations(self, benchmark: str, language: str) -> Path:
        """element id -> a reviewer's or human translator's text (review loop, imports)."""
        return self.run_dir(benchmark, language) / "reviewed_translations.json"

    def adopted_translations(self, benchmark: str, language: str) -> Path:
        """What `babelflow adopt` took from a variant made elsewhere (translators/adoption.py)."""
        return self.run_dir(benchmark, language) / "adopted_translations.json"

    def targets(self, benchmark: str, language: str) -> Path:
        """element id -> the translated text of the run's last translation."""
        return self.run_dir(benchmark, language) / "targets.json"

    def behavior_cache(self, benchmark: str, language: str) -> Path:
        """task id -> the input hashes its last behaviour comparison saw (rerun only what changed)."""
        return self.run_dir(benchmark, language) / "behavior_cache.json"

    def review_dir(self, benchmark: str, language: str) -> Path:
        return self.state / "review" / benchmark / language

    def agent_memory(self, benchmark: str, language: str) -> Path:
        """What each model validator agent read and found, so a rerun re-reads only what changed."""
        return self.state / "agent_memory" / benchmark / language

    def profile_overrides(self, benchmark: str) -> Path:
        return self.state / "review" / benchmark / "profile_overrides.json"

    def costs(self, benchmark: str, language: str, stage: str) -> Path:
        return self.state / "costs" / benchmark / language / f"{stage}.json"

    def replays(self, benchmark: str) -> Path:
        return self.state / "replays" / benchmark

    # ---- Prefect and locks ----
    def prefect_home(self) -> Path:
        return self.state / "prefect"

    def locks(self) -> Path:
        return self.state / "locks"
