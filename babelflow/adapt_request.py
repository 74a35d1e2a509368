"""What a user asks for when they adapt one benchmark into one language: one frozen, JSON-able record.

The CLI builds it from its options (flows/cli/options.py), the Prefect flow takes it as its one
parameter, a pool submits it, the run guard checks it against what a deployment fixed, and the
variant's manifest stores it, so every later rebuild of the run (`units`, `correct`, `export`,
`import`, the review workbench) asks for exactly what the run asked for. flows/run_setup.py
resolves it into an AdaptationRun (babelflow/adaptation_run.py) once per language.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from babelflow.entity_policy import EntityRendering, parse_entity_options
from babelflow.errors import BabelflowError
from babelflow.ir import Record
from babelflow.llm.config import PROVIDERS

TRANSLATOR_SPECS_FIX = (
    "use `auto` (default), `pseudo`, `apertium[:MODE]` (offline) "
    "or openai:MODEL, anthropic:MODEL, dashscope:MODEL, openai-compatible:MODEL@URL"
)


class _Spec(Record):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AutoSpec(_Spec):
    """`auto`: the language's offline default (pseudo, Apertium); `otherwise` says what a language
    without one gets: an error naming the ways forward, or no translator (export's empty targets)."""

    kind: Literal["auto"] = "auto"
    otherwise: Literal["error", "none"] = "error"

    @property
    def text(self) -> str:
        return "auto"


class PseudoSpec(_Spec):
    kind: Literal["pseudo"] = "pseudo"

    @property
    def text(self) -> str:
        return "pseudo"


class ApertiumSpec(_Spec):
    kind: Literal["apertium"] = "apertium"
    mode: str | None = Field(default=None, description="an installed Apertium mode; default the pair's own")

    @property
    def text(self) -> str:
        return f"apertium:{self.mode}" if self.mode else "apertium"


class ProviderSpec(_Spec):
    """A model provider (options and environment: babelflow/llm/config.py)."""

    kind: Literal["provider"] = "provider"
    provider: str
    model: str = Field(description="the model, with its `?option=value` query when given")
    url: str | None = Field(default=None, description="the endpoint an openai-compatible server answers on")

    @property
    def text(self) -> str:
        model, _, query = self.model.partition("?")
        return f"{self.provider}:{model}" + (f"@{self.url}" if self.url else "") + (f"?{query}" if query else "")


# what a unit no translator was asked for records as its failure (`--translator none`, or `auto` with none)
NO_TRANSLATOR_PROBLEM = "no translator configured: translate this unit in the exchange file (babelflow export / import)"


class NoSpec(_Spec):
    """`none`: nothing is machine-translated (export writes empty targets for human translators)."""

    kind: Literal["none"] = "none"

    @property
    def text(self) -> str:
        return "none"


TranslatorSpec = Annotated[AutoSpec | PseudoSpec | ApertiumSpec | ProviderSpec | NoSpec, Field(discriminator="kind")]


def parse_translator_spec(text: str) -> TranslatorSpec:
    """`--translator` as typed (auto, pseudo, apertium[:MODE], none, PROVIDER:MODEL[@URL][?OPTIONS])."""
    if text == "auto":
        return AutoSpec()
    if text == "pseudo":
        return PseudoSpec()
    if text == "none":
        return NoSpec()
    if text == "apertium" or text.startswith("apertium:"):
        return ApertiumSpec(mode=text.partition(":")[2] or None)
    provider, colon, rest = text.partition(":")
    if colon and provider in PROVIDERS:
        rest, _, query = rest.partition("?")
        model, _, url = rest.partition("@")
        return ProviderSpec(provider=provider, model=model + (f"?{query}" if query else ""), url=url or None)
    raise BabelflowError(f"Unknown translator {text!r}", field="--translator", fix=TRANSLATOR_SPECS_FIX)


class ReviewPolicy(Record):
    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout: int = Field(default=0, description="seconds a review or sign-off form waits; 0 = unattended")
    max_rounds: int = Field(default=4, description="review rounds before the flow stops (rounds_exhausted)")
    terms: Literal["review", "approve-all"] = Field(
        default="review",
        description="review: the flow waits at the terms stage while renderings are doubtful (attended runs);"
        " approve-all: every proposed rendering is approved unread (tests; recorded, never a human review)",
    )


class EvaluationRequest(Record):
    """The evaluation stage once no findings remain: agents on the variant and its source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str = Field(default="", description="the agent model spec (`scripted` runs offline); '' = no stage")
    user: str = Field(default="", description="the user simulator's model spec")
    judge: str = Field(
        default="", description="the judge's model spec, where the family scores by a model's reading (VitaBench)"
    )
    trials: int = 1

    @property
    def asked(self) -> bool:
        return bool(self.agent or self.user)


class AgentRunRequest(Record):
    """`babelflow evaluate` (and the flow's evaluation stage): agents on one variant, and on its source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    benchmark: str
    language: str
    models: EvaluationRequest
    task_ids: list[str] | None = Field(default=None, description="default: every task")
    with_source: bool = Field(default=False, description="the same agents on the English source, side by side")
    with_injections: bool = Field(default=False, description="AgentDojo: every user task with every injection task")
    variant: Path | None = Field(default=None, description="default adapted/<benchmark>/<lang>/")


class AdaptRequest(Record):
    """One (benchmark, language) adaptation as asked: nothing here is resolved yet (the pack, the
    translator `auto` means, the paths: flows/run_setup.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    benchmark: str = Field(description="the benchmark id; a domain package or a version is part of it")
    language: str = Field(description="the BCP 47 tag as given")
    translator: TranslatorSpec = Field(default_factory=AutoSpec)
    validators: str = Field(default="", description="comma-separated PROVIDER:MODEL specs of validator agents")
    entities: dict[str, EntityRendering] = Field(
        default_factory=dict, description="--entity CLASS_OR_KIND=POLICY: over the pack's table and the defaults"
    )
    review: ReviewPolicy = Field(default_factory=ReviewPolicy)
    evaluation: EvaluationRequest = Field(default_factory=EvaluationRequest)
    source_dir: Path | None = None
    profile: Path | None = None
    out: Path | None = None
    project_root: Path | None = Field(default=None, description="the project a worker serves; default the current")

    @classmethod
    def of_options(
        cls,
        benchmark: str,
        language: str,
        *,
        translator: str = "auto",
        validators: str = "",
        entities: Iterable[str] = (),
        source_dir: Path | None = None,
        profile: Path | None = None,
        out: Path | None = None,
    ) -> AdaptRequest:
        """From the command line's spellings: the translator spec and `--entity` options parsed here."""
        return cls(
            benchmark=benchmark,
            language=language,
            translator=parse_translator_spec(translator),
            validators=validators,
            entities=parse_entity_options(entities),
            source_dir=source_dir,
            profile=profile,
            out=out,
        )

    def for_language(self, language: str) -> AdaptRequest:
        return self.model_copy(update={"language": language})

    def for_adoption(self) -> AdaptRequest:
        """The request of a run that adopted a variant made elsewhere (`babelflow adopt`, `flow --adopt`, and
        every later run of that language): `auto` with no offline translator means none, so what the variant
        lacks stays a failure to review; people and places keep the variant's own renderings unless
        `--entity` asks otherwise (the script's default, localize for a non-Latin target, would rename what
        the variant's prose already names its way)."""
        request = self
        if isinstance(request.translator, AutoSpec):
            request = request.model_copy(update={"translator": AutoSpec(otherwise="none")})
        variant_own = {kind: EntityRendering.TRANSLATE for kind in ("person", "place")}
        return request.model_copy(update={"entities": {**variant_own, **request.entities}})

    @property
    def entity_options(self) -> list[str]:
        """The `--entity` options this request was made of (a command line that asks the same)."""
        return [f"{name}={rendering.value}" for name, rendering in self.entities.items()]
