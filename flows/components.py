"""What the plain pipeline (`flows/pipeline/adapt.py`) and the flow's stages (`flows/pipeline/stages.py`) share:
who owns the output folder, and analysis that reuses a fresh IR."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from analyzers import ANALYZER_VERSION
from analyzers.analyze import analyze_benchmark
from analyzers.profile import load_profile
from babelflow.errors import BabelflowError
from babelflow.ir import IRDocument, save_ir
from babelflow.ir_cache import load_ir_cached, remember
from babelflow.output_guard import resolve_out
from babelflow.run_lock import one_at_a_time, output_lock
from babelflow.settings import BabelflowSettings
from babelflow.variant import MANIFEST_NAME, load_manifest
from source_benchmarks.protocol import SourceBenchmark
from source_benchmarks.registry import family_of
from translators.rebuild import check_out


@contextmanager
def owned_output(settings: BabelflowSettings, bench: SourceBenchmark, language: str, variant: Path) -> Iterator[Path]:
    """Hold the variant folder for the whole run: refused (exit 2, nothing written) when it is or
    contains a source, lies in code, holds files that are not a variant of this benchmark, or another
    run is writing into it (two languages into one --out would leave a mixed variant)."""
    resolve_out(variant)  # a symlink loop or a file is refused before a lock is named after it
    with output_lock(settings.layout.locks(), variant, f"{bench.id} {language}"):
        # checked under the lock: nobody changes the folder between the check and the writes;
        # the state folder (IRs, memories, locks) is never a variant's, nor inside one
        yield check_out(bench, variant, extra_packages=[settings.layout.state])


def domain_name_for(benchmark_id: str, language: str) -> str:
    """The name a variant registers under in its benchmark's own harness (the family decides)."""
    return family_of(benchmark_id).variant_harness_name(benchmark_id, language)


def analyze_or_reuse(
    bench: SourceBenchmark,
    profile_path: Path | None,
    ir_path: Path,
    progress: Callable[[str], None],
    reuse: bool = True,
) -> IRDocument:
    """Reuse the saved IR iff it was made by this analyzer from the same source files, harness and profile;
    `reuse=False` analyses again all the same (`babelflow analyze --reanalyze`) and refreshes the saved IR."""
    profile = load_profile(bench.id, profile_path)
    with one_at_a_time(analysis_lock(ir_path)):  # the languages of one flow analyse their benchmark once
        saved = _saved_ir(ir_path, bench.id) if reuse else None
        if (
            saved is not None
            and saved.analyzer_version == ANALYZER_VERSION
            and saved.profile_sha256 == profile.sha256
            and saved.source_version == bench.source_version
            and [a.model_dump() for a in saved.artifacts] == [a.model_dump() for a in bench.fingerprints()]
        ):
            progress("IR unchanged (same analyzer, source files, harness and profile): reused")
            return saved
        ir = analyze_benchmark(bench, profile, progress=progress)
        save_ir(ir, ir_path)
        remember(ir_path, ir)
        return ir


def analysis_lock(ir_path: Path) -> Path:
    """The lock every analysis writing `ir_path` holds (never taken twice by one caller: flock is per open file)."""
    return ir_path.with_name(f".{ir_path.name}.lock")


def _saved_ir(ir_path: Path, benchmark: str) -> IRDocument | None:
    if not ir_path.exists():
        return None
    try:
        return load_ir_cached(ir_path, benchmark)
    except BabelflowError:
        return None  # an IR of an older schema or a damaged file: analyze again


def check_same_profile(variant_dir: Path, profile_sha256: str, profile: Path | None) -> None:
    """A variant is judged against the IR it was built from: built with another analysis profile, its
    fields would be typed otherwise (an entity kept there, renamed here). Exit 2 naming both."""
    manifest_path = variant_dir / MANIFEST_NAME
    if not manifest_path.is_file():
        return  # a variant made elsewhere (no manifest of ours): judged against this IR
    built_with = load_manifest(variant_dir).profile_sha256
    if built_with != profile_sha256:
        raise BabelflowError(
            f"the variant was built with another analysis profile (sha256 {built_with[:12]}) than this "
            f"validation uses ({'--profile ' + str(profile) if profile else 'the packaged profile'}, "
            f"sha256 {profile_sha256[:12]})",
            file=manifest_path,
            field="profile_sha256",
            fix="pass the --profile the variant was adapted with, or adapt the variant again with this one",
        )
