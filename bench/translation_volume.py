"""Characters sent to the translator vs the naive per-field total and the unique-text floor,
and wall time per domain, for the offline pseudo-locale translator (one run).

Usage: python -m bench.translation_volume [--lang en-XA]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from babelflow.adapt_request import AdaptRequest


def main() -> None:
    from analyzers.analyze import analyze_benchmark
    from babelflow.settings import BabelflowSettings
    from flows.pipeline.adapt import adapt
    from source_benchmarks import get_benchmark

    language = sys.argv[sys.argv.index("--lang") + 1] if "--lang" in sys.argv else "en-XA"
    table = Table(title=f"translation volume, pseudo translator → {language}")
    for column in (
        "benchmark",
        "naive chars",
        "unique chars",
        "sent chars",
        "sent/unique",
        "naive/sent",
        "analyze s",
        "translate+rebuild s",
    ):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as tmp:
        settings = BabelflowSettings(project_root=Path(tmp))
        for benchmark_id in ("tau2-mock", "tau2-airline", "tau2-retail", "tau2-telecom"):
            started = time.perf_counter()
            ir = analyze_benchmark(get_benchmark(benchmark_id))
            analyzed = time.perf_counter()
            stats = adapt(AdaptRequest.of_options(benchmark_id, language), settings=settings, ir=ir).outcome.stats
            done = time.perf_counter()
            table.add_row(
                benchmark_id,
                f"{stats.naive_characters:,}",
                f"{stats.unique_characters:,}",
                f"{stats.characters_sent:,}",
                f"{stats.characters_sent / stats.unique_characters:.3f}",
                f"{stats.naive_characters / stats.characters_sent:.1f}x",
                f"{analyzed - started:.1f}",
                f"{done - analyzed:.1f}",
            )
    Console(width=160).print(table)
    print("sent < unique because placeholders replace protected tokens (ids, numbers, names) before sending.")


if __name__ == "__main__":
    main()
