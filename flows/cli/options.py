"""Every option of an adaptation request, declared once, and the decorator that hands a command the request.

`@takes_request(FLOW)` composes the command's Typer signature from the declared options of the group
and the command's own parameters, and calls the command with one built AdaptRequest (and, for a
command with a `languages` parameter, the `--lang` values): the command never sees the options the
request is made of. Other commands reuse single declarations (`BENCHMARK.info`, `SOURCE_DIR.info`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from babelflow.adapt_request import AdaptRequest, EvaluationRequest, ReviewPolicy
from babelflow.errors import BabelflowError
from flows.cli.common import BENCHMARK_HELP, ENTITY_HELP, SOURCE_DIR_HELP
from source_benchmarks.registry import resolve_benchmark


@dataclass(frozen=True)
class Declared:
    """One option (or argument) as Typer reads it from a signature: its parameter name, type and info."""

    name: str
    annotation: Any
    info: Any

    def parameter(self) -> inspect.Parameter:
        return inspect.Parameter(
            self.name, inspect.Parameter.KEYWORD_ONLY, default=self.info, annotation=self.annotation
        )


BENCHMARK = Declared("benchmark", str, typer.Argument(..., help=BENCHMARK_HELP))
LANG = Declared(
    "lang",
    str,
    typer.Option(..., "--lang", "-l", help="Target language (BCP 47). Offline: en-XA or ar-XB pseudo-locales."),
)
LANGS = Declared(
    "lang",
    list[str],
    typer.Option(..., "--lang", "-l", help="Target language(s); repeat for several (run with a concurrency limit)."),
)
TRANSLATOR = Declared(
    "translator",
    str,
    typer.Option(
        "auto",
        "--translator",
        help=(
            "`auto` (default: pseudo for en-XA/ar-XB, Apertium for a language with an installed pair), `pseudo`, "
            "`apertium[:MODE]`, or openai:MODEL, anthropic:MODEL, dashscope:MODEL, openai-compatible:MODEL@URL."
        ),
    ),
)
SOURCE_DIR = Declared("source_dir", Path | None, typer.Option(None, "--source-dir", help=SOURCE_DIR_HELP))
PROFILE = Declared(
    "profile",
    Path | None,
    typer.Option(
        None, "--profile", help="Analysis profile (TOML); default: the packaged one. A variant is judged by its own."
    ),
)
OUT = Declared(
    "out",
    Path | None,
    typer.Option(None, "--out", "-o", help="Variant folder; default adapted/<benchmark>/<lang>/."),
)
VALIDATORS = Declared(
    "validators",
    str,
    typer.Option(
        "",
        "--validators",
        help=(
            "Model-backed validator agents, one per comma-separated spec, e.g. openai:M,dashscope:M,anthropic:M; "
            "`backtranslation` (Apertium, es/ca/gl) or backtranslation:PROVIDER:M (a model) reads the variant "
            "back into English (default: probes only)."
        ),
    ),
)
ENTITY = Declared("entity", list[str], typer.Option([], "--entity", help=ENTITY_HELP))
DOMAIN_PACKAGE = Declared(
    "domain_package",
    str | None,
    typer.Option(
        None,
        "--domain-package",
        help="A tau2-style domain package (module name or folder) outside tau2; use with the benchmark `tau2`.",
    ),
)
VERSION = Declared(
    "version",
    str | None,
    typer.Option(None, "--version", help="AgentDojo benchmark version (v1 ... v1.2.2); default the newest."),
)
REVIEW_TIMEOUT = Declared(
    "review_timeout",
    int,
    typer.Option(
        0,
        "--review-timeout",
        help=(
            "Seconds to wait in the paused review form (Prefect UI or `babelflow review`). "
            "0 = unattended: stop awaiting review."
        ),
    ),
)
TERMS = Declared(
    "terms",
    str,
    typer.Option(
        "review",
        "--terms",
        help="review: wait at the terms stage while renderings are doubtful (with --review-timeout); approve-all:"
        " approve every proposed rendering unread (for tests; logged as such, never counted as a review).",
    ),
)
EVALUATE_AGENT = Declared(
    "evaluate_agent",
    str,
    typer.Option(
        "",
        "--evaluate-agent",
        help="Evaluation stage once no findings remain: the agent model (as `babelflow evaluate --agent-llm`; "
        "`scripted` runs offline). Off by default.",
    ),
)
EVALUATE_USER = Declared(
    "evaluate_user", str, typer.Option("", "--evaluate-user", help="The evaluation stage's user simulator model.")
)
EVALUATE_JUDGE = Declared(
    "evaluate_judge",
    str,
    typer.Option("", "--evaluate-judge", help="The evaluation stage's judge model (VitaBench scores by one)."),
)
EVALUATE_TRIALS = Declared(
    "evaluate_trials", int, typer.Option(1, "--evaluate-trials", help="Trials per task in the evaluation stage.")
)

REVIEWER = Declared("reviewer", str, typer.Option("", "--reviewer", help="Your name, recorded with every decision."))
NOTE = Declared("note", str, typer.Option("", "--note", help="Reason recorded with --decide decisions."))

_WHAT = (TRANSLATOR, SOURCE_DIR, PROFILE)
_FAMILY = (DOMAIN_PACKAGE, VERSION)
ADAPT = (BENCHMARK, LANG, *_WHAT, OUT, VALIDATORS, ENTITY, *_FAMILY)
FLOW = (
    BENCHMARK,
    LANGS,
    REVIEW_TIMEOUT,
    TERMS,
    *_WHAT,
    VALIDATORS,
    ENTITY,
    *_FAMILY,
    EVALUATE_AGENT,
    EVALUATE_USER,
    EVALUATE_JUDGE,
    EVALUATE_TRIALS,
)


def build_request(given: dict[str, Any]) -> AdaptRequest:
    """The request the options ask for (the first language of several); each option read once here."""
    lang = given["lang"]
    request = AdaptRequest.of_options(
        resolve_benchmark(given["benchmark"], given.get("domain_package"), given.get("version")),
        lang if isinstance(lang, str) else lang[0],
        translator=given["translator"],
        validators=given["validators"],
        entities=given["entity"],
        source_dir=given["source_dir"],
        profile=given["profile"],
        out=given.get("out"),
    )
    terms = given.get("terms", "review")
    if terms not in ("review", "approve-all"):
        raise BabelflowError(f"Unknown terms policy {terms!r}", field="--terms", fix="use review or approve-all")
    review = ReviewPolicy(timeout=given.get("review_timeout", 0), terms=terms)
    asked = [given.get(name) for name in ("evaluate_agent", "evaluate_user", "evaluate_judge", "evaluate_trials")]
    evaluation = EvaluationRequest(
        agent=asked[0] or "", user=asked[1] or "", judge=asked[2] or "", trials=asked[3] or 1
    )
    return request.model_copy(update={"review": review, "evaluation": evaluation})


def takes(
    name: str,
    group: tuple[Declared, ...],
    build: Callable[[dict[str, Any]], Any],
    also: dict[str, Callable[[dict[str, Any]], Any]] | None = None,
) -> Callable[..., Any]:
    """Compose the command's signature from `group` and its own parameters (all but `name` and `also`'s);
    call it with `name` = build(the group's options), and each of `also` = its builder(the same options).
    The command never sees the options its records are made of."""
    builders = {name: build, **(also or {})}

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        own = [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in inspect.signature(command, eval_str=True).parameters.values()
            if p.name not in builders
        ]
        names = [declared.name for declared in group]

        @functools.wraps(command)
        def wrapper(**options: Any) -> Any:
            asked = {n: options.pop(n) for n in names}
            return command(**{param: make(asked) for param, make in builders.items()}, **options)

        parameters = [declared.parameter() for declared in group] + own
        wrapper.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
        return wrapper

    return decorate


def takes_request(group: tuple[Declared, ...]) -> Callable[..., Any]:
    """The command gets `request`, one AdaptRequest; with several `--lang` (`flow`), the request is in the
    first and the command gets `languages` too."""
    languages = {"languages": lambda given: list(given["lang"])} if LANGS in group else None
    return takes("request", group, build_request, languages)
