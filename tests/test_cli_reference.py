"""docs/reference/cli.md is what the Typer app says about itself: regenerated in memory, compared."""

from __future__ import annotations

from flows.cli.reference import REFERENCE_PATH, REGENERATE, cli_reference


def test_committed_cli_reference_is_current() -> None:
    committed = REFERENCE_PATH.read_text(encoding="utf-8")
    generated = cli_reference()
    assert committed == generated, (
        f"{REFERENCE_PATH.relative_to(REFERENCE_PATH.parents[2])} is out of date with the CLI: run `{REGENERATE}`"
    )


def test_reference_documents_every_command_and_option() -> None:
    # the page is Typer's own rendering of the app, not a hand-kept list: every command and every
    # option name the app declares appears in it
    import typer  # noqa: PLC0415

    from flows.cli.app import app  # noqa: PLC0415

    page = cli_reference()
    group = typer.main.get_command(app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        assert f"## `babelflow {name}`" in page
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("-"):
                    assert opt in page, f"{name} {opt} missing from the reference"
