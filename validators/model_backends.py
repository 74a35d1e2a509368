"""Validator agents backed by models: one `ReviewModel` per provider SDK.

``--validators openai:M1,dashscope:M2,anthropic:M3`` gives three agents, each with its own client
(no shared conversation, cache or state; the shared per-provider rate limit is the only thing
they have in common with other calls to the same provider). Each turn sends the ReviewRequest as
JSON with the versioned review prompt (``validators/prompts/review.v2.md``: the agent reads tasks
and units, not only the probes' findings); the reply must be
JSON that validates into ``ReviewReply`` (OpenAI: json_schema; Anthropic: a forced tool;
DashScope: JSON mode), else the turn is asked again (also after an empty reply, a content
refusal or a request too large), and a model that never complies stops the run with a
ProviderError rather than being read as "no findings".
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import ValidationError

from babelflow.llm.clients import ChatClient, ModelCaller
from babelflow.llm.config import ProviderConfig, parse_spec
from babelflow.llm.costs import CostLedger
from babelflow.llm.prompts import Prompt, language_name
from babelflow.llm.replies import nullable, parse_json_reply
from babelflow.llm.resilience import BatchRejected, ProviderError
from babelflow.llm.translation_reply import SCHEMA_NAME as SCHEMA_NAME_TRANSLATIONS
from babelflow.llm.translation_reply import TRANSLATION_SCHEMA, BatchProblem, parse_batch
from validators.agent_exchange import ReviewReply, ReviewRequest
from validators.agents import Reviewer, ValidatorAgent
from validators.backtranslation import BacktranslationAgent
from validators.findings import Layer, Severity
from validators.prompts import load_prompt

SCHEMA_NAME = "submit_review"
REPLY_ATTEMPTS = 3
MAX_TURNS = 4


_ACTION_PROPERTIES = {
    "kind": {
        "type": "string",
        "enum": ["ask_field_pair", "ask_task_replay", "raise_finding", "uphold", "dispute", "done"],
    },
    "element_id": nullable({"type": "string"}),
    "task_id": nullable({"type": "string"}),
    "finding_id": nullable({"type": "string"}),
    "layer": nullable({"type": "string", "enum": [layer.value for layer in Layer]}),
    "finding_kind": nullable({"type": "string"}),
    "severity": {"type": "string", "enum": [severity.value for severity in Severity]},
    "reasoning": {"type": "string"},
    "quote": nullable({"type": "string"}),
}
# strict-mode compatible: every property required (nullable where optional), no extras
REVIEW_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "actions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": _ACTION_PROPERTIES,
                "required": list(_ACTION_PROPERTIES),
                "additionalProperties": False,
            },
        }
    },
    "required": ["actions"],
    "additionalProperties": False,
}


class ModelReviewer:
    """A ReviewModel over one provider; ``model_id`` = ``<provider>:<model>/<prompt id>``."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        costs: CostLedger | None = None,
        prompt: Prompt | None = None,
        client: ChatClient | None = None,
        max_turns: int = MAX_TURNS,
    ):
        self.config = config
        self.prompt = prompt or load_prompt("review")
        self.model_id = self.prompt.model_id(config.provider, config.model)
        self.costs = costs if costs is not None else CostLedger()
        self.caller = ModelCaller(config, self.costs, client)
        self.max_turns = max_turns

    def __repr__(self) -> str:
        return f"ModelReviewer({self.model_id!r})"

    def review(self, request: ReviewRequest) -> ReviewReply:
        system = self.prompt.render(
            source_language="English (en)", language=language_name(request.language), max_turns=str(self.max_turns)
        )
        user = json.dumps({"task": "review", **request.wire()}, ensure_ascii=False)
        problem = ""
        for _ in range(REPLY_ATTEMPTS):
            try:
                completion = self.caller.call(
                    system,
                    user,
                    SCHEMA_NAME,
                    REVIEW_SCHEMA,
                    stage="validate",
                    language=request.language,
                    agent=request.validator_id,
                )
            except BatchRejected as rejected:  # a review request cannot be split: ask again, then stop
                problem = rejected.reason
                continue
            if completion.problem:
                problem = completion.problem
                continue
            if completion.truncated:
                problem = "reply truncated at the token limit"
                continue
            try:
                return ReviewReply.model_validate(parse_json_reply(completion.text, completion.data))
            except (ValueError, ValidationError) as exc:
                problem = f"reply is not a valid ReviewReply ({type(exc).__name__})"
        raise ProviderError(
            f"{self.model_id} gave no valid review reply in {REPLY_ATTEMPTS} attempts (turn {request.turn}): {problem}",
            field="--validators",
            fix="use a model that follows JSON schemas, or raise max_tokens",
        )


class ModelBackTranslator:
    """Back-translation by a model (``--validators backtranslation:PROVIDER:MODEL``): any language, not only
    those with an Apertium reverse pair. Batches of ``config.batch`` texts, ``config.concurrency`` at once
    within the provider's shared limit; a text the model does not give back after ``REPLY_ATTEMPTS``
    is None (that unit is not scored, and the report says how many)."""

    def __init__(self, config: ProviderConfig, *, costs: CostLedger | None = None, agent: str = ""):
        self.config = config
        self.prompt = load_prompt("backtranslate")
        self.model_id = self.prompt.model_id(config.provider, config.model)
        self.caller = ModelCaller(config, costs if costs is not None else CostLedger())
        self.agent = agent

    def back_translate(self, texts: list[str], language: str) -> list[str | None]:
        system = self.prompt.render(source_language=language_name(language))
        size, numbered = self.config.batch, list(enumerate(texts))
        chunks = [numbered[i : i + size] for i in range(0, len(numbered), size)]
        out: list[str | None] = [None] * len(texts)
        with ThreadPoolExecutor(self.config.concurrency, thread_name_prefix="backtranslate") as pool:
            for answered in pool.map(lambda chunk: self._batch(system, chunk, language), chunks):
                for index, text in answered.items():
                    out[index] = text
        return out

    def _batch(self, system: str, chunk: list[tuple[int, str]], language: str) -> dict[int, str]:
        payload = {"task": "backtranslate", "source_language": language, "target_language": "en"}
        wanted = {str(i): text for i, text in chunk}
        got: dict[int, str] = {}
        for _ in range(REPLY_ATTEMPTS):
            segments = [{"id": i, "text": text} for i, text in wanted.items() if int(i) not in got]
            if not segments:
                break
            try:
                completion = self.caller.call(
                    system,
                    json.dumps({**payload, "segments": segments}, ensure_ascii=False),
                    SCHEMA_NAME_TRANSLATIONS,
                    TRANSLATION_SCHEMA,
                    stage="validate",
                    language=language,
                    agent=self.agent,
                )
            except BatchRejected:  # refused as it is: what is left stays unscored
                break
            parsed = parse_batch(completion.text, completion.data, completion.truncated)
            if isinstance(parsed, BatchProblem):
                continue
            got |= {int(i): text for i, text in parsed.items() if i in wanted and text.strip()}
        return got


def split_specs(specs: str | list[str] | None) -> list[str]:
    items = specs if isinstance(specs, list) else (specs or "").split(",")
    return [item.strip() for item in items if item and item.strip()]


OFFLINE_AGENTS = ("backtranslation",)  # specs that name an offline agent instead of a provider
BACKTRANSLATION_BY_MODEL = "backtranslation:"  # backtranslation:PROVIDER:MODEL[?options]: a model reads it back


def make_validator_agents(
    specs: str | list[str] | None,
    *,
    costs: CostLedger | None = None,
    max_turns: int = MAX_TURNS,
    memory_dir: Path | None = None,
) -> list[Reviewer]:
    """One isolated agent per spec: ``validator-<n>-<provider>``; ``backtranslation`` for the offline
    Apertium back-translation agent, ``backtranslation:PROVIDER:MODEL`` for a model's. Every key is
    checked first. ``memory_dir``: each model agent keeps there what it read (its own file), and a later
    run sends it only what changed."""
    items = split_specs(specs)
    configs = {
        i: parse_spec(spec.removeprefix(BACKTRANSLATION_BY_MODEL), field="--validators")
        for i, spec in enumerate(items)
        if spec not in OFFLINE_AGENTS
    }
    ledger = costs if costs is not None else CostLedger()
    agents: list[Reviewer] = []
    for i, spec in enumerate(items):
        if spec == "backtranslation":
            agents.append(BacktranslationAgent())
            continue
        config = configs[i]
        if spec.startswith(BACKTRANSLATION_BY_MODEL):
            name = f"backtranslation-{config.provider}"
            agents.append(
                BacktranslationAgent(name, back_translator=ModelBackTranslator(config, costs=ledger, agent=name))
            )
            continue
        agents.append(
            ValidatorAgent(
                f"validator-{i + 1}-{config.provider}",
                model=ModelReviewer(config, costs=ledger, max_turns=max_turns),
                max_turns=max_turns,
                batch_size=config.batch,
                budget=config.budget,
                parallel=config.concurrency,  # the provider's limiter shares these slots with every other caller
                remember=memory_dir is not None,
                memory_file=memory_dir / f"validator-{i + 1}-{config.provider}.json" if memory_dir else None,
            )
        )
    return agents
