"""An error message carries user data (unit ids, file names, texts from a translator's file): the
CLI prints it as text, never as Rich markup or terminal control sequences (flows/cli/common.py)."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from babelflow.errors import BabelflowError
from flows.cli.common import cli_errors

app = typer.Typer()


@app.command()
@cli_errors
def fail(message: str) -> None:
    raise BabelflowError(message, file="/tmp/[draft].xlf", field="unit [link=https://x]y[/link]", fix="fix [/]")


def test_markup_in_a_message_is_printed_as_text():
    # '[/]' was a MarkupError traceback (exit 1); '[draft]' and the link vanished from the message
    result = CliRunner().invoke(app, ["unit [/] (line 12): unknown unit id"], env={"COLUMNS": "300"})
    assert result.exit_code == 2, result.output
    assert "unit [/] (line 12)" in result.output
    assert "/tmp/[draft].xlf" in result.output and "unit [link=https://x]y[/link]" in result.output
    assert "fix: fix [/]" in result.output


def test_control_characters_are_written_out():
    result = CliRunner().invoke(app, ["unit \x1b[31mRED\x1b[0m\x07 ok\n  next line\ttab"], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "unit \\x1b[31mRED\\x1b[0m\\x07 ok\n  next line" in result.output  # Rich expands the tab


def test_export_to_a_path_that_reads_as_markup(tmp_path, seed_analysis_cache):
    from flows.cli.app import app as babelflow

    seed_analysis_cache(tmp_path / "project", "tau2-mock")

    out = tmp_path / "drafts[/]" / "mock[draft].xlf"
    out.parent.mkdir(parents=True)
    result = CliRunner().invoke(
        babelflow,
        ["export", "tau2-mock", "--lang", "en-XA", "--out", str(out)],
        env={"BABELFLOW_PROJECT_ROOT": str(tmp_path / "project"), "COLUMNS": "400"},
    )
    assert result.exit_code == 0, result.output  # was a MarkupError traceback once the file was written
    assert out.exists() and f"written to {out}" in result.output


def test_review_prints_translated_text_as_text(tmp_path, monkeypatch):
    """A translation holding '[/]' or '[bold]…[/bold]' is shown as written in `babelflow review`
    (it was read as Rich markup: a MarkupError traceback, or words that vanished)."""
    from typer.testing import CliRunner

    from flows.cli.app import app
    from validators.findings import Evidence, FailureSet, Finding, Layer, Severity

    finding = Finding(
        id="F-1",
        layer=Layer.FIDELITY,
        kind="untranslated",
        severity=Severity.MAJOR,
        artifact="tasks.json",
        location="user_scenario [/]",
        message="left in English: [bold]Order[/bold] [/]",
        validators=["probe"],
        evidence=[Evidence(validator_id="probe", reasoning="r", source="the [/] order", target="la [red]orden[/red]")],
    )
    queue = FailureSet(benchmark="tau2-mock", language="en-XA", findings=[finding], validators=["probe"])
    folder = tmp_path / ".babelflow" / "review" / "tau2-mock" / "en-XA"
    folder.mkdir(parents=True)
    (folder / "queue.json").write_text(queue.model_dump_json())
    monkeypatch.setenv("BABELFLOW_PROJECT_ROOT", str(tmp_path))
    result = CliRunner().invoke(app, ["review", "tau2-mock", "--lang", "en-XA"], input="skip\n", env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "[bold]Order[/bold] [/]" in result.output and "la [red]orden[/red]" in result.output
