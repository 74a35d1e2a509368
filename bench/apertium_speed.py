"""Apertium (eng-spa) translation speed per τ² domain, and the share of units that needed a
fallback (broken in a batch, translated again alone) or failed; optionally the Spanish variant's
validation (behaviour of every task side by side with the source) and a sample of units.

One run, fresh translation memory. chars/s counts the protected characters sent to Apertium over
the seconds spent in Apertium processes (process start included).

Usage: python -m bench.apertium_speed [--validate] [--sample FILE] [--domains tau2-mock,tau2-retail]
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from babelflow.adapt_request import AdaptRequest

DOMAINS = ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom")


def _arg(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


def _sample(result, count: int, seed: int = 15) -> list[tuple[str, str, str]]:
    roles = {e.id: (e.artifact, e.role, e.source_text) for e in result.ir.elements}
    seen, rows = set(), []
    for element_id, target in result.outcome.targets.items():
        artifact, role, source = roles[element_id]
        if source != target and source not in seen and 20 <= len(source) <= 400:
            seen.add(source)
            rows.append((f"{artifact} · {role}", source, target))
    return random.Random(seed).sample(rows, min(count, len(rows)))


def main() -> None:
    from analyzers.analyze import analyze_benchmark
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark
    from translators.apertium import ApertiumTranslator

    domains = (_arg("--domains") or ",".join(DOMAINS)).split(",")
    validate = "--validate" in sys.argv
    sample_path = _arg("--sample")
    table = Table(title="Apertium eng-spa → es (one run, fresh translation memory)")
    columns = [
        "benchmark",
        "units",
        "chars sent",
        "apertium calls",
        "apertium s",
        "chars/s",
        "fallback units",
        "failed units",
        "adapt s",
    ]
    if validate:
        columns += ["tasks", "validation findings", "validate s"]
    for column in columns:
        table.add_column(column, justify="right")
    samples: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = BabelflowSettings(project_root=Path(tmp))
        for benchmark_id in domains:
            bench = get_benchmark(benchmark_id)
            ir = analyze_benchmark(bench)
            translator = ApertiumTranslator("es")
            started = time.perf_counter()
            # the same pipeline as `babelflow adapt --translator apertium`, with our instance so its stats are readable
            import flows.pipeline.adapt as adapt_module

            original = adapt_module.make_translator
            adapt_module.make_translator = lambda spec, language, pack, costs=None, chosen=translator: chosen
            try:
                result = adapt(AdaptRequest.of_options(benchmark_id, "es"), settings=settings, ir=ir)
            finally:
                adapt_module.make_translator = original
            adapted = time.perf_counter() - started
            stats = translator.stats
            units = stats.segments
            row = [
                benchmark_id,
                f"{units:,}",
                f"{stats.input_characters:,}",
                str(stats.calls),
                f"{stats.seconds:.1f}",
                f"{stats.input_characters / stats.seconds:,.0f}" if stats.seconds else "—",
                f"{stats.fallbacks} ({stats.fallbacks / units:.1%})" if units else "0",
                f"{len(result.outcome.failures)} ({len(result.outcome.failures) / units:.1%})" if units else "0",
                f"{adapted:.1f}",
            ]
            if validate:
                from validators.run import validate_variant, variant_context

                began = time.perf_counter()
                failures = validate_variant(variant_context(bench, result.paths.variant, result.ir, "es"))
                row += [
                    str(len(bench.task_ids(None))),
                    str(len(failures.findings)),
                    f"{time.perf_counter() - began:.1f}",
                ]
                for finding in failures.findings[:10]:
                    print(
                        f"{benchmark_id}: {finding.layer.value}/{finding.kind} {finding.artifact} {finding.location}: "
                        f"{finding.message[:300]}"
                    )
            table.add_row(*row)
            if sample_path:
                samples += [
                    f"{i}. **{where}**\n   - en: {source!r}\n   - es: {target!r}\n"
                    for i, (where, source, target) in enumerate(
                        _sample(result, 20 // len(domains) + 1), start=len(samples) + 1
                    )
                ]
    Console(width=200).print(table)
    if sample_path:
        header = "# 20 sampled Spanish units (Apertium eng-spa draft, source → target)\n\n"
        Path(sample_path).write_text(header + "\n".join(samples[:20]), encoding="utf-8")
        print(f"sample written to {sample_path}")


if __name__ == "__main__":
    main()
