"""The README's commands work as shown.

Every command in a fenced ``bash`` block is checked against what it calls: a `babelflow` command is parsed
by the real Typer app (the subcommand, every option and its value), so a renamed or misspelled option
fails here; a script or module must exist and take the options written. The cheap ones (offline, on the
small benchmarks, no Prefect server, no model) then run for real, in README order, in a fresh project
folder, and must exit 0."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer

from flows.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 250
# the two commands the README opens with, exactly (issue 37: they stay as they are)
TWO_COMMANDS = (
    "bash scripts/install.sh && .venv/bin/babelflow flow tau2-retail --lang es --lang en-XA",
    "bash .ci/run",
)
BABELFLOW = {"babelflow", ".venv/bin/babelflow"}
PYTHON = {"python", ".venv/bin/python"}
# run for real only what is offline and takes seconds: no Prefect server, no model, small benchmarks
NOT_RUN_SUBCOMMANDS = {"flow", "server"}
CHEAP_BENCHMARKS = {"tau2-mock", "fixture-library"}
BENCHMARK_FREE_SUBCOMMANDS = {"families", "ir-schema"}
PROVIDER_SPEC = re.compile(r"^(openai|anthropic|dashscope|openai-compatible):")


@dataclass(frozen=True)
class ShownCommand:
    line: int  # where the README shows it (1-based, the block's first line of the command)
    argv: tuple[str, ...]

    def __str__(self) -> str:
        return f"README.md:{self.line}: {shlex.join(self.argv)}"


def shown_commands(text: str) -> list[ShownCommand]:
    """The commands of every fenced bash block, comments dropped, `\\` continuations joined, `&&` split."""
    commands: list[ShownCommand] = []
    in_bash = False
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            in_bash = not in_bash and line.strip() == "```bash"
            continue
        if not in_bash:
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        tokens = shlex.split(pending + line, comments=True)
        pending = ""
        argv: list[str] = []
        for token in [*tokens, "&&"]:
            if token == "&&":
                if argv:
                    commands.append(ShownCommand(start, tuple(argv)))
                argv = []
            else:
                argv.append(token)
    return commands


def _parse_babelflow(args: list[str]) -> str | None:
    """Parse `babelflow ARGS` with the real app; None when it parses, else what is wrong."""
    group = typer.main.get_command(app)
    try:
        # the group's own options (only --help) end at the subcommand's name; its context is the
        # parent the subcommand parses under
        ctx = group.make_context("babelflow", list(args))
        if args[0].startswith("-"):
            return None
        name, command, sub_args = group.resolve_command(ctx, list(args))  # type: ignore[attr-defined]
        command.make_context(name, sub_args, parent=ctx)
    except typer.Exit:  # --help
        return None
    except Exception as error:  # click's usage errors (unknown option, bad value, missing argument), any version
        return f"{type(error).__name__}: {error}"
    return None


def problems_of(command: ShownCommand) -> list[str]:
    """What does not exist of what `command` writes: program, subcommand, options, files, modules."""
    program, *args = command.argv
    if program in BABELFLOW:
        problem = _parse_babelflow(args)
        return [f"{command}: {problem}"] if problem else []
    if program == "bash":
        script = ROOT / args[0]
        if not script.is_file():
            return [f"{command}: no script {args[0]}"]
        source = script.read_text(encoding="utf-8")
        return [f"{command}: {args[0]} takes no {option}" for option in args[1:] if f"{option})" not in source]
    if program in PYTHON and args[:1] == ["-m"]:
        module = args[1]
        return [] if importlib.util.find_spec(module) else [f"{command}: no module {module}"]
    return [f"{command}: the README test does not know the program {program!r}; teach it or leave it out"]


def runs_for_real(command: ShownCommand) -> bool:
    program, *args = command.argv
    if program not in BABELFLOW or not args or args[0] in NOT_RUN_SUBCOMMANDS:
        return False
    if any(PROVIDER_SPEC.match(arg) for arg in args):  # needs a key and the network
        return False
    return args[0] in BENCHMARK_FREE_SUBCOMMANDS or (len(args) > 1 and args[1] in CHEAP_BENCHMARKS)


def test_readme_is_short_and_keeps_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES
    shown = {shlex.join(c.argv) for c in shown_commands(text)}
    for line in TWO_COMMANDS:
        assert line in text.splitlines(), f"the README's command changed: {line}"
    assert {"bash scripts/install.sh", ".venv/bin/babelflow flow tau2-retail --lang es --lang en-XA"} <= shown


def test_every_command_shown_exists_as_written() -> None:
    commands = shown_commands(README.read_text(encoding="utf-8"))
    assert len(commands) >= 10  # the blocks were read (a parsing slip would find nothing and pass)
    problems = [problem for command in commands for problem in problems_of(command)]
    assert not problems, "\n".join(problems)


def test_a_misspelled_option_or_command_fails_the_check() -> None:
    # the check is not vacuous: the README with an option misspelled, a command renamed and an
    # installer option that does not exist gets one problem naming each
    text = README.read_text(encoding="utf-8")
    mutations = {
        "--agent-llm scripted": "--agent-lm scripted",
        "babelflow units ": "babelflow unit ",
        "bash scripts/install.sh &&": "bash scripts/install.sh --tau4 &&",
    }
    for good, bad in mutations.items():
        assert good in text
        text = text.replace(good, bad, 1)
    problems = "\n".join(problem for command in shown_commands(text) for problem in problems_of(command))
    assert "--agent-lm" in problems and "'unit'" in problems and "--tau4" in problems, problems


def test_links_to_files_resolve() -> None:
    # the README's and the docs' relative links (mkdocs build --strict checks the docs' anchors too, in CI)
    pages = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    missing = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in pages
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert not missing, missing


def test_the_cheap_commands_run_as_shown(tmp_path: Path) -> None:
    """The tour, in order, in a fresh project folder (offline; `--sign` answered yes)."""
    commands = [c for c in shown_commands(README.read_text(encoding="utf-8")) if runs_for_real(c)]
    subcommands = {c.argv[1] for c in commands}
    # the tour's steps are all here; a README that dropped them would make this test pass on nothing
    assert {"adapt", "validate", "units", "review", "evaluate"} <= subcommands, subcommands
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "BABELFLOW_"))}
    env |= {
        "PYTHONPATH": str(ROOT),  # this checkout's code, as the editable install provides
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    for command in commands:
        result = subprocess.run(
            [sys.executable, "-m", "flows.cli.app", *command.argv[1:]],
            cwd=tmp_path,
            env=env,
            input="y\n",
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if result.returncode != 0:
            pytest.fail(f"{command} exited {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
