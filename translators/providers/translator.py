"""A `Translator` backed by a model: batches of protected segments out as JSON, validated JSON back.

A reply is checked (``checks``) before anything is accepted. Segments that come back bad are
retried, first in smaller batches (halves), then one by one; a segment still bad is returned in
``TranslationResponse.failed`` with its problems, and the engine records it as a unit failure.
Empty replies, content refusals and requests too large for the model take the same path: the
smaller batch isolates the segment that causes them, and the rest is translated.
Transport problems (429, 529, 5xx, timeouts, garbled bodies) are retried on the same request with
backoff (``resilience``); when they persist, or the provider says retrying cannot help (key,
quota, region, a parameter it does not take: ``failures``), a ``ProviderError`` stops the run,
and the translation memory keeps the batches already finished.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

from babelflow.llm.clients import ChatClient, ModelCaller
from babelflow.llm.config import ProviderConfig
from babelflow.llm.costs import CostLedger
from babelflow.llm.estimate_mode import is_estimating
from babelflow.llm.prompts import language_name
from babelflow.llm.resilience import BatchRejected
from babelflow.llm.translation_reply import SCHEMA_NAME
from translators.interface import (
    ProtectedSegment,
    TranslatedSegment,
    TranslationRequest,
    TranslationResponse,
    TranslationUsage,
)
from translators.prompts import Prompt, load_prompt
from translators.providers.checks import TRANSLATION_SCHEMA, BatchProblem, check_reply, parse_batch

ORIGINAL, SMALLER, SINGLE = 0, 1, 2


ROUNDS_PER_ENGINE_BATCH = 8  # requests per slot per engine batch (progress is reported between batches)


class _Run:
    """What one translate() call has gathered so far (shared by its worker threads)."""

    def __init__(self) -> None:
        self.good: dict[str, str] = {}
        self.failed: dict[str, list[str]] = {}
        self.input_characters = self.input_tokens = self.output_tokens = self.requests = 0
        self.lock = threading.Lock()


def model_translator_id(config: ProviderConfig, prompt: Prompt | None = None) -> str:
    """``<provider>:<model>/<prompt id>``: part of every translation-memory and cache key."""
    return (prompt or load_prompt("translate")).model_id(config.provider, config.model)


class ModelTranslator:
    """``translator_id`` = ``<provider>:<model>/<prompt id>`` (e.g. ``openai:gpt-x/prompt-translate.v1``)."""

    def __init__(
        self,
        config: ProviderConfig,
        target_language: str,
        *,
        costs: CostLedger | None = None,
        prompt: Prompt | None = None,
        client: ChatClient | None = None,
    ):
        self.config = config
        self.target_language = target_language
        self.prompt = prompt or load_prompt("translate")
        self.translator_id = model_translator_id(config, self.prompt)
        self.caller = ModelCaller(config, costs if costs is not None else CostLedger(), client)

    @property
    def costs(self) -> CostLedger:
        """Where this translator's token usage goes (assignable: a run shares one ledger)."""
        return self.caller.costs

    @costs.setter
    def costs(self, ledger: CostLedger) -> None:
        self.caller.costs = ledger

    def __repr__(self) -> str:
        return f"ModelTranslator({self.translator_id!r}, {self.target_language!r})"

    @property
    def batch_limits(self) -> tuple[int, int]:
        """What the engine hands over at once: enough requests to keep every slot busy for several rounds.
        The pool refills a slot the moment its request returns; with the engine's 40 segments (two requests)
        each pair waited for its slower reply, and retail's translation took 3.05x its lower bound
        (bench/provider_run.py, issue 42)."""
        items = self.config.batch * self.config.concurrency * ROUNDS_PER_ENGINE_BATCH
        return items, items * 400

    def translate(self, request: TranslationRequest) -> TranslationResponse:
        if request.target_language != self.target_language:
            raise ValueError(
                f"{self.translator_id} was configured for {self.target_language!r}, not {request.target_language!r}"
            )
        system = self.prompt.render(
            source_language=language_name(request.source_language),
            target_language=language_name(request.target_language),
        )
        if request.instructions:
            system += "\n\nAdditional instructions:\n" + request.instructions
        run = _Run()
        chunks = [
            request.segments[i : i + self.config.batch] for i in range(0, len(request.segments), self.config.batch)
        ]
        workers = max(1, min(self.config.concurrency, len(chunks)))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="babelflow-llm")
        try:
            for future in [pool.submit(self._solve, chunk, ORIGINAL, request, system, run) for chunk in chunks]:
                future.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        segments = [
            TranslatedSegment(segment_id=s.segment_id, text=run.good[s.segment_id])
            for s in request.segments
            if s.segment_id in run.good
        ]
        usage = TranslationUsage(
            input_characters=run.input_characters,
            output_characters=sum(len(s.text) for s in segments),
            input_tokens=run.input_tokens,
            output_tokens=run.output_tokens,
            requests=run.requests,
        )
        return TranslationResponse(translator_id=self.translator_id, segments=segments, usage=usage, failed=run.failed)

    def _exchange(
        self, segments: list[ProtectedSegment], request: TranslationRequest, system: str, run: _Run
    ) -> tuple[dict[str, str], dict[str, list[str]]]:
        payload = {
            "task": "translate",
            "source_language": request.source_language,
            "target_language": request.target_language,
            "segments": [{"id": s.segment_id, "text": s.text, "context": s.context, "kind": s.kind} for s in segments],
            "glossary": [{"source": g.source, "target": g.target} for g in _mentioned(request.glossary, segments)],
        }
        try:
            completion = self.caller.call(
                system,
                json.dumps(payload, ensure_ascii=False),
                SCHEMA_NAME,
                TRANSLATION_SCHEMA,
                stage="translate",
                language=request.target_language,
            )
        except BatchRejected as rejected:  # not billed: the provider answered with an error
            return {}, {s.segment_id: [rejected.reason] for s in segments}
        with run.lock:
            run.requests += 1
            run.input_characters += sum(len(s.text) for s in segments)
            run.input_tokens += completion.input_tokens or 0
            run.output_tokens += completion.output_tokens or 0
        if completion.problem:
            return {}, {s.segment_id: [completion.problem] for s in segments}
        parsed = parse_batch(completion.text, completion.data, completion.truncated)
        if isinstance(parsed, BatchProblem):
            return {}, {s.segment_id: [parsed.reason] for s in segments}
        if is_estimating():  # a stand-in of the right size, not a translation: nothing to judge
            return parsed, {}
        return check_reply(segments, parsed, request.target_language)

    def _solve(
        self, segments: list[ProtectedSegment], stage: int, request: TranslationRequest, system: str, run: _Run
    ) -> None:
        """Translate ``segments``; retry the bad ones smaller, then alone; record what stays bad."""
        good, bad = self._exchange(segments, request, system, run)
        with run.lock:
            run.good.update(good)
        if not bad:
            return
        retry = [s for s in segments if s.segment_id in bad]
        if stage == SINGLE:
            with run.lock:
                run.failed.update(
                    {
                        sid: [f"{p} (after retrying smaller batches and alone)" for p in problems]
                        for sid, problems in bad.items()
                    }
                )
            return
        if stage == ORIGINAL and len(retry) > 2:
            half = -(-len(retry) // 2)
            for part in (retry[:half], retry[half:]):
                self._solve(part, SMALLER, request, system, run)
            return
        for segment in retry:
            self._solve([segment], SINGLE, request, system, run)


def _mentioned(glossary: list, segments: list[ProtectedSegment]) -> list:
    """The glossary entries this request's segments mention: the engine's list covers its whole batch, which
    is split into several requests, and each request paid for every term of the others (+10% tokens)."""
    text = "\n".join(s.text for s in segments).casefold()
    return [entry for entry in glossary if entry.source.casefold() in text]
