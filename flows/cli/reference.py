"""The CLI reference page (docs/reference/cli.md), generated from the Typer app by Typer's own
`typer MODULE utils docs` command, so the page says what `--help` says.

Regenerate after changing a command or an option:  python -m flows.cli.reference
(tests/test_cli_reference.py fails while the committed page differs from what this returns)."""

from __future__ import annotations

import sys
from pathlib import Path

REFERENCE_PATH = Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli.md"
REGENERATE = "python -m flows.cli.reference"
_TITLE = "CLI reference"
_HEADER = f"<!-- Generated from the Typer app (flows/cli/app.py) by `{REGENERATE}`; do not edit by hand. -->\n\n"


def cli_reference() -> str:
    """The page's text: Typer's Markdown for `flows.cli.app:app`, run in this process."""
    from typer.cli import app as typer_cli  # noqa: PLC0415 - only the docs need Typer's own CLI
    from typer.testing import CliRunner  # noqa: PLC0415

    # Typer's documented generator, invoked in memory; COLUMNS pins nothing it prints (it emits
    # Markdown, not a terminal layout), but keeps any rich fallback from reading the terminal
    result = CliRunner().invoke(
        typer_cli,
        ["flows.cli.app", "utils", "docs", "--name", "babelflow", "--title", _TITLE],
        env={"COLUMNS": "100", "NO_COLOR": "1"},
    )
    if result.exit_code != 0:
        raise RuntimeError(f"typer utils docs failed ({result.exit_code}): {result.output}") from result.exception
    return _HEADER + result.stdout.strip() + "\n"


def main() -> None:
    REFERENCE_PATH.write_text(cli_reference(), encoding="utf-8")
    print(f"wrote {REFERENCE_PATH}", file=sys.stderr)


if __name__ == "__main__":
    main()
