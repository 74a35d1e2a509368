"""What every command module shares: the console, the error wrapper (exit 2, no traceback), help texts."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape

from babelflow.errors import BabelflowError
from babelflow.language_tag import check_language_tag
from babelflow.settings import apply_offline_environment

if TYPE_CHECKING:
    from flows.review.workbench import Workbench

console = Console(stderr=True)  # progress, status, errors
out = Console()  # results a user reads or pipes: tables, paths written, next steps

BENCHMARK_HELP = (
    "Benchmark id, e.g. tau2-retail, agentdojo-travel (agentdojo-travel@v1.1.1: an older version), fixture-library; "
    "`babelflow families` lists every installed one."
)
ENTITY_HELP = (
    "How an entity class is rendered, CLASS_OR_KIND=keep|translate|localize (repeatable), e.g. person=localize, "
    "product_name=keep. Over the language pack's entities table; defaults: catalogue translated, people and "
    "places kept for Latin-script targets and localized elsewhere. `babelflow analyze` lists the classes."
)
SOURCE_DIR_HELP = "Folder laid out like tau2's data/ (tau2/domains/<domain>/...) whose files replace the packaged ones."


def cli_errors(func: Callable) -> Callable:
    """Turn BabelflowError into a clear message and exit code 2, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            check_lang_option(kwargs.get("lang"))  # before anything is created
            apply_offline_environment()  # creates the state folder: its errors are the user's too
            return func(*args, **kwargs)
        except BabelflowError as exc:
            console.print(f"[bold red]error:[/] {shown_text(exc.render())}", highlight=False)
            raise typer.Exit(code=exc.exit_code) from None

    return wrapper


def shown_text(text: str) -> str:
    """User data (a unit id, a file name, a model's reply) as the console prints it: never read as
    markup (a unit id '[/]' was a MarkupError traceback, '[link=…]x[/link]' printed as 'x'), and
    control characters written out (an ESC in a PO msgctxt reached the terminal as an escape)."""
    visible = (f"\\x{ord(c):02x}" if c not in "\n\t" and unicodedata.category(c) == "Cc" else c for c in text)
    return escape("".join(visible))


def check_lang_option(value: str | list[str] | None) -> None:
    """Every command's `--lang` (one tag, or several for `flow`) is checked here, before the command
    runs: a bounded, well-formed BCP 47 tag, or exit 2 naming --lang."""
    for tag in [value] if isinstance(value, str) else value or []:
        check_language_tag(tag)


def status_line(status) -> Callable[[str], None]:
    return lambda message: status.update(f"[cyan]{message}")


def stage_line(bars) -> Callable[[str], None]:
    """Stage messages printed above a running progress display (one live display at a time)."""
    return lambda message: bars.console.print(f"[cyan]{message}", highlight=False)


def load_workbench(
    benchmark: str,
    lang: str,
    *,
    source_dir: Path | None = None,
    translator: str | None = None,
    translate_missing: bool = False,
) -> Workbench:
    """The units of a variant as its run made them: the run is rebuilt from the request its manifest
    stores (translator, entity overrides, profile), over which an option given here wins. With a
    `translator` option (export, import), `auto` with no offline translator for `lang` means none: an
    export goes out with empty targets."""
    # the engine, the stages and CLDR: 35 ms to 2.5 s on `babelflow --help`, which imports this module
    from babelflow.adapt_request import AutoSpec, parse_translator_spec  # noqa: PLC0415
    from babelflow.settings import BabelflowSettings  # noqa: PLC0415
    from flows.review.workbench import Workbench  # noqa: PLC0415
    from flows.run_setup import resolve_run, stored_request  # noqa: PLC0415

    settings = BabelflowSettings()
    request = stored_request(settings, benchmark, lang)
    spec = request.translator
    if translator is not None:
        spec = parse_translator_spec(translator) if translator != "auto" else spec
        spec = AutoSpec(otherwise="none") if isinstance(spec, AutoSpec) else spec
    request = request.model_copy(update={"translator": spec, "source_dir": source_dir or request.source_dir})
    with console.status(f"reading {benchmark} {lang} (translation memory, reviewed texts) …"):
        run = resolve_run(settings, request, translating=translate_missing)
        return Workbench.load(run, translate_missing=translate_missing)
