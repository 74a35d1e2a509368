"""One loopback HTTP server that speaks three providers' wire protocols, for the real SDK clients.

* OpenAI   ``POST /v1/chat/completions``                         (``choices[].message.content``)
* Anthropic ``POST /v1/messages``                                 (``content[]`` with a ``tool_use`` block)
* DashScope ``POST /api/v1/services/aigc/text-generation/generation`` (``output.choices[].message``)

It is strict the way the real APIs are: every request is checked first (``wire_rules.py``: headers,
required and forbidden fields per model family, ``response_format`` and tool shapes), and what a
real API would reject gets that provider's own 400 body and is recorded in ``state.rejected``
(the ``fake`` fixture fails a test that caused one unless the test expects it).

Then it translates deterministically into Han script (every English word becomes a common
Chinese word; digits, punctuation, whitespace and ``⟦N⟧`` placeholders are kept), answers review
requests by upholding every probe finding, checks the API key, counts the token usage it
reports, records which credential reached it, and can be scripted with faults (``Fault``) that
answer as each provider really does (its error bodies, its headers, its stop reasons). Nothing
here ever leaves 127.0.0.1.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import random
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from wire_rules import ERROR_BODIES, check_request

from translators.interface import ProtectedSegment, TranslationRequest

PATHS = {
    "/v1/chat/completions": "openai",
    "/v1/messages": "anthropic",
    "/api/v1/services/aigc/text-generation/generation": "dashscope",
}
_PLACEHOLDER = re.compile(r"⟦[0-9]+⟧")
_LETTER = re.compile(r"[A-Za-z]")


# a few real terms, so language-pack glossaries (zh-Hans: task -> 任务 ...) are honoured
GLOSSARY = {
    "task": "任务",
    "order": "订单",
    "refund": "退款",
    "reservation": "预订",
    "flight": "航班",
    "roaming": "漫游",
}
_TERMS = re.compile(r"(?<![\w⟦])(" + "|".join(GLOSSARY) + r")(?!\w)", re.I)


_WORD = re.compile(r"[A-Za-z]+")
_BETWEEN_HAN = re.compile(r"(?<=[\u4e00-\u9fff]) +(?=[\u4e00-\u9fff])")


_READ_BACK: dict[str, str] = {}  # ideographs -> the English word they stand for (what a model reads back)
_MADE: dict[str, str] = {}  # a whole translation this fake made -> its source (words can collide; texts rarely)


@functools.cache
def _vocabulary() -> tuple[str, ...]:
    """Qwen's vocabulary decoded, in vocabulary order (empty without tiktoken)."""
    from babelflow.llm.token_count import _qwen_bpe  # noqa: PLC0415 - the vocabulary, once

    bpe, decoded = _qwen_bpe(), []
    for _, raw in sorted((bpe.decoder if bpe is not None else {}).items()):
        try:
            decoded.append(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
        except UnicodeDecodeError:
            continue
    return tuple(decoded)


@functools.cache
def vocabulary_words(pattern: str) -> tuple[str, ...]:
    """The tokens of Qwen's vocabulary that are whole words matching ``pattern``, in vocabulary order: real
    text is mostly such common words, so a reply made of them is counted the way a real one is."""
    return tuple(text for text in _vocabulary() if re.fullmatch(pattern, text))


def _word_for(word: str, pool: tuple[str, ...]) -> str:
    """The pool's word for an English word, by a stable hash of it (and remembered for the read-back)."""
    seed = int.from_bytes(hashlib.blake2b(word.lower().encode(), digest_size=8).digest(), "big")
    made = pool[seed % len(pool)]
    _READ_BACK.setdefault(made, word)
    return made


_HAN_ONE, _HAN_TWO = r"[\u4e00-\u9fff]", r"[\u4e00-\u9fff]{2}"
_HAN_FALLBACK = tuple(chr(0x4E00 + i) for i in range(2000))  # no tiktoken: plain ideographs


def _ideographs(word: str) -> str:
    """One Chinese word per English word: two characters for a word of five letters or more, one for a
    shorter one (real Chinese runs ~0.26x English's characters, ~0.75x its tokens as in VitaBench's zh/en)."""
    two = vocabulary_words(_HAN_TWO)
    pool = two if len(word) >= 5 and two else (vocabulary_words(_HAN_ONE) or _HAN_FALLBACK)
    return _word_for(word, pool)


def english(text: str) -> str:
    """A back-translation of `han` output: each run of ideographs read as the words it was made from
    (longest known first; the glossary's terms too), everything else as it stands. Text `han` never
    made reads back as itself: a round trip that fails, as a real one on an unfaithful text would."""
    if text in _MADE:
        return _MADE[text]
    known = {**_READ_BACK, **{v: k for k, v in GLOSSARY.items()}}
    longest = max(map(len, known), default=1)
    out: list[str] = []
    i = 0
    while i < len(text):
        for size in range(min(longest, len(text) - i), 0, -1):
            word = known.get(text[i : i + size])
            if word is not None:
                out.append(f" {word} ")
                i += size
                break
        else:
            out.append(text[i])
            i += 1
    return re.sub(r" +", " ", "".join(out)).strip()


def han(text: str) -> str:
    """Deterministic 'Chinese' shaped like the real thing, so language-aware validators accept it:
    glossary words, then one common Chinese word per English word and no spaces between ideographs;
    digits, punctuation and placeholders are unchanged."""
    text = _TERMS.sub(lambda m: GLOSSARY[m.group().lower()], text)
    text = _WORD.sub(lambda m: _ideographs(m.group()), text)
    return _BETWEEN_HAN.sub("", text)


# other scripts a target may be written in: the one-token words of Qwen's vocabulary in that script (long
# enough that two of them rarely look alike: the canonical map refuses confusable targets), and whether the
# language puts spaces between words (what language-aware validators expect of it)
_SCRIPTS: dict[str, tuple[str, bool]] = {
    "ko": (r"[\uac00-\ud7a3]{1,3}", True),
    "th": (r"[\u0e01-\u0e4e]{4,8}", False),
    "ru": (r"[\u0430-\u044f]{4,8}", True),
    "uk": (r"[\u0430-\u044f\u0456\u0457\u0454]{4,8}", True),
    "el": (r"[\u03b1-\u03c9]{4,8}", True),
    "hi": (r"[\u0900-\u097f]{3,6}", True),
}


def written_in(text: str, language: str) -> str:
    """`han` for Chinese and Japanese; for a language of another script in ``_SCRIPTS``, one of that script's
    common words per English word (stable per word), spaced as the language spaces its words."""
    base = language.split("-")[0].lower()
    if base not in _SCRIPTS:
        return han(text)
    pattern, spaced = _SCRIPTS[base]
    pool = vocabulary_words(pattern)
    made = _WORD.sub(lambda match: _word_for(match.group(), pool), text)
    return made if spaced else re.sub(r"(?<=\w) (?=\w)", "", made)


def tokens(text: str) -> int:
    """Tokens as Qwen counts them (its vocabulary ships with the DashScope SDK): what the fake reports."""
    from babelflow.llm.token_count import count_tokens  # noqa: PLC0415

    return max(1, count_tokens(text))


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() if key != "model" for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def prompt_tokens(body: dict) -> int:
    """What a provider bills as input: the texts it renders into the prompt (messages, the schema or
    tool definitions) and a few tokens of chat template per message, not the JSON wrapping around them."""
    messages = body.get("messages") or (body.get("input") or {}).get("messages") or []
    return tokens("\n".join(_texts(body))) + 4 * (len(messages) + bool(body.get("system")))


@dataclass
class Fault:
    """``kind``: transport faults 429 | 500 | overloaded (Anthropic 529, else 503) | timeout |
    malformed (garbled HTTP body); provider answers 400 | 404 | quota | refusal | empty (no choices,
    no content, no tool call) | context_window; model output faults bad_json | truncated |
    drop_placeholder | rewrite_slot | wrong_language | answered | commentary | sentence (a term answered
    with a sentence) | drop_id | no_usage.
    ``times=None`` repeats forever; ``match`` limits the fault to requests holding a segment whose
    text contains it (and aims segment faults at it); ``task`` is translate or review.
    ``retry_after`` goes out with 429/overloaded from OpenAI and Anthropic; DashScope's 429s
    carry no Retry-After, as the real ones do not."""

    kind: str
    times: int | None = 1
    match: str | tuple[str, ...] | None = None
    task: str = "translate"
    retry_after: str | None = "0.2"
    delay: float = 1.5

    def hits(self, text: str) -> bool:
        needles = (self.match,) if isinstance(self.match, str) else self.match or ()
        return any(needle in text for needle in needles)


@dataclass
class Pace:
    """How a loopback provider paces and refuses like a real one (issue 42; bench/provider_run.py): a latency
    drawn from a log-normal (median ``median_s`` and 95th percentile ``p95_s`` for a reply of
    ``reference_tokens`` output tokens, proportional to a reply's tokens), a requests- and a tokens-per-minute
    limit over a sliding minute answered with 429 (``Retry-After`` until the window frees; DashScope's carry
    none), and server errors and timeouts at the given rates. Seeded: a run is reproducible."""

    median_s: float = 1.5
    p95_s: float = 6.0
    reference_tokens: int = 400
    rpm: int = 0  # 0: no limit
    tpm: int = 0
    error_rate: float = 0.0
    timeout_rate: float = 0.0
    timeout_s: float = 30.0  # how long a timed-out request hangs (the client's own timeout ends it first)
    seed: int = 0
    window_s: float = 60.0  # the limits' sliding window (tests shorten it)
    window: list[tuple[float, int]] = field(default_factory=list)  # (when admitted, tokens) over the last minute
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def admit(self, tokens_in: int, tokens_out: int, now: float) -> tuple[Fault | None, float]:
        """(the fault this request meets, or None; the seconds its answer takes). Call under the state's lock."""
        self.window = [(t, n) for t, n in self.window if now - t < self.window_s]
        used = sum(n for _, n in self.window)
        over_rpm = self.rpm and len(self.window) >= self.rpm
        over_tpm = self.tpm and used + tokens_in + tokens_out > self.tpm
        if over_rpm or over_tpm:
            frees = self.window_s - (now - self.window[0][0]) if self.window else 1.0
            return Fault("429", retry_after=str(max(1, math.ceil(frees)))), 0.0
        draw = self.rng.random()
        if draw < self.error_rate:
            return Fault(self.rng.choice(("500", "overloaded")), retry_after=None), 0.0
        if draw < self.error_rate + self.timeout_rate:
            return Fault("timeout", delay=self.timeout_s), 0.0
        self.window.append((now, tokens_in + tokens_out))
        sigma = math.log(self.p95_s / self.median_s) / 1.645
        scale = max(0.1, tokens_out / self.reference_tokens)
        return None, self.median_s * scale * math.exp(sigma * self.rng.gauss(0.0, 1.0))


@dataclass
class Seen:
    provider: str
    task: str
    at: float
    segment_ids: list[str]
    status: int
    fault: str | None
    usage: tuple[int, int] | None
    host: str = ""  # the Host header: which server name the client addressed
    answered: float = 0.0  # when the answer went out (monotonic; 0: not yet)
    credential: str | None = None  # the key that arrived (Authorization / x-api-key), None if none
    headers: dict[str, str] = field(default_factory=dict)
    body: dict = field(default_factory=dict)

    @property
    def payload(self) -> dict:
        """The JSON the client sent as its user message."""
        return _user_payload(self.provider, self.body)


@dataclass
class FakeState:
    keys: dict[str, str | None]  # provider -> expected key; None: a local server that needs none
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # requests a real API would have refused
    lock: threading.Lock = field(default_factory=threading.Lock)
    inflight: int = 0
    max_inflight: int = 0
    pace: Pace | None = None  # None: answer at once, never limit (the tests' default)

    def usage(self, provider: str | None = None, task: str | None = None) -> tuple[int, int]:
        rows = [s.usage for s in self.seen if s.usage and (provider in (None, s.provider)) and (task in (None, s.task))]
        return sum(r[0] for r in rows), sum(r[1] for r in rows)

    def requests(self, provider: str, task: str = "translate") -> list[Seen]:
        return [s for s in self.seen if s.provider == provider and s.task == task]

    def credentials(self) -> dict[str, set[str | None]]:
        """provider path -> every credential that reached it."""
        out: dict[str, set[str | None]] = {}
        for s in self.seen:
            out.setdefault(s.provider, set()).add(s.credential)
        return out

    def take_fault(self, provider: str, task: str, texts: list[str]) -> Fault | None:
        with self.lock:
            for fault in self.faults.get(provider, []):
                if fault.times == 0 or fault.task != task or (fault.match and not any(fault.hits(t) for t in texts)):
                    continue
                if fault.times is not None:
                    fault.times -= 1
                return fault
        return None


def _user_payload(provider: str, body: dict) -> dict:
    messages = body["input"]["messages"] if provider == "dashscope" else body["messages"]
    content = messages[-1]["content"]
    if isinstance(content, list):
        content = "".join(block.get("text", "") for block in content)
    return json.loads(content)


def _translate(segments: list[dict], fault: Fault | None, language: str = "zh-Hans") -> list[dict]:
    out = [{"id": s["id"], "text": written_in(s["text"], language)} for s in segments]
    _MADE.update((o["text"], s["text"]) for o, s in zip(out, segments, strict=True))
    if fault is None:
        return out
    aims = [i for i, s in enumerate(segments) if fault.hits(s["text"])] if fault.match else [0]
    for aim in aims:
        source = segments[aim]["text"]
        if fault.kind == "drop_placeholder":
            out[aim]["text"] = _PLACEHOLDER.sub("", han(source), count=1)
        elif fault.kind == "rewrite_slot":  # a model "translating" a protected slot: {status} -> {estado}
            out[aim]["text"] = _PLACEHOLDER.sub("{estado['ssid']}", han(source), count=1)
        elif fault.kind == "wrong_language":
            out[aim]["text"] = source
        elif fault.kind == "answered":
            out[aim]["text"] = "Sure! Here is what you asked for: " + source
        elif fault.kind == "commentary":
            out[aim]["text"] = han(source) + " (Translator's note: kept the tone informal.)"
        elif fault.kind == "sentence":  # a term answered with a sentence about it
            out[aim]["text"] = f"{han(source)}是商店目录中的一种产品，顾客可以在网上订购。"
    if fault.kind == "drop_id":
        out = [item for i, item in enumerate(out) if i not in aims]
    return out


def _review(payload: dict) -> dict:
    """Upholds every probe finding; raises, with a quote, a field of the translation it reads
    whose target kept the source's text untouched (what a reviewer of zh-Hans would notice)."""
    actions = [
        {"kind": "uphold", "finding_id": f["id"], "reasoning": "the evidence supports it"}
        for f in payload.get("probe_findings", [])
    ]
    views = [(f, t["task_id"]) for t in payload.get("tasks", []) for f in t["fields"]] + [
        (u, u.get("task_id")) for u in payload.get("units", [])
    ]
    for view, task_id in views:
        if view["target"] == view["source"]:
            actions.append(
                {
                    "kind": "raise_finding",
                    "element_id": view["unit_id"],
                    "task_id": task_id,
                    "layer": "fidelity",
                    "finding_kind": "untranslated",
                    "severity": "major",
                    "reasoning": "left in English",
                    "quote": view["target"][:40],
                }
            )
    return {"actions": actions + [{"kind": "done", "reasoning": "reviewed"}]}


def _openai_message(
    model: str, message: dict, finish: str, usage: tuple[int, int] | None, choices: bool = True
) -> dict:
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}]
        if choices
        else [],
    }
    if usage:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    return body


def _anthropic_message(model: str, content: list[dict], stop: str, usage: tuple[int, int] | None) -> dict:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}
        if usage
        else {"input_tokens": 0, "output_tokens": 0},
    }


def _dashscope_message(content: str, finish: str, usage: tuple[int, int] | None, choices: bool = True) -> dict:
    body = {
        "request_id": "req-fake",
        "output": {
            "choices": [{"finish_reason": finish, "message": {"role": "assistant", "content": content}}]
            if choices
            else []
        },
    }
    if usage:
        body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1], "total_tokens": sum(usage)}
    return body


def _reply(provider: str, body: dict, reply: dict, kind: str | None, usage: tuple[int, int] | None) -> dict:
    """A 200 answer: the reply JSON as each protocol carries it, bent by the output fault ``kind``."""
    model = body.get("model", "?")
    text = json.dumps(reply, ensure_ascii=False)
    if provider == "anthropic":
        tool = body["tools"][0]["name"]
        # under a forced tool Anthropic always answers with that tool: bad output is a bad input
        # object, a cut-off answer an incomplete one; never a text-only reply
        if kind == "bad_json":
            return _anthropic_message(
                model,
                [
                    {
                        "type": "tool_use",
                        "id": "toolu_fake",
                        "name": tool,
                        "input": {"answer": "Here are your translations"},
                    }
                ],
                "tool_use",
                usage,
            )
        if kind in ("truncated", "context_window"):
            stop = "max_tokens" if kind == "truncated" else "model_context_window_exceeded"
            return _anthropic_message(
                model, [{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": {}}], stop, usage
            )
        if kind == "empty":
            return _anthropic_message(model, [], "end_turn", usage)
        if kind == "refusal":
            return _anthropic_message(model, [], "refusal", usage)
        return _anthropic_message(
            model, [{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": reply}], "tool_use", usage
        )
    finish = "stop"
    if kind == "bad_json":
        text = "Here are your translations: " + text[:40]
    if kind in ("truncated", "context_window"):
        text, finish = text[: len(text) // 2], "length"
    if provider == "openai":
        if kind == "refusal":
            return _openai_message(
                model, {"content": None, "refusal": "I'm sorry, I can't help with that."}, "stop", usage
            )
        return _openai_message(model, {"content": text}, finish, usage, choices=kind != "empty")
    if body.get("parameters", {}).get("result_format") != "message":
        return {
            "request_id": "req-fake",
            "output": {"text": text, "finish_reason": finish},
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]} if usage else {},
        }
    return _dashscope_message(text, finish, usage, choices=kind != "empty")


def _credential(headers) -> str | None:
    # the installed Anthropic SDK sends its key as Authorization: Bearer (older ones as x-api-key)
    if headers.get("x-api-key"):
        return headers["x-api-key"]
    auth = headers.get("Authorization")
    return auth.removeprefix("Bearer ") if auth is not None else None


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeLLM/1"
    state: FakeState
    official: bool = True

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes | dict, headers: dict[str, str] | None = None) -> None:
        if isinstance(body, dict):
            body = json.dumps(body, ensure_ascii=False).encode()
        self._finished()  # before the client can read it: its next request must not overlap this one
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and went away

    def do_POST(self) -> None:  # noqa: N802
        provider = PATHS.get(self.path.split("?")[0])
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if provider is None:
            return self._send(404, b'{"error": "no such path"}')
        state = self.state
        credential = _credential(self.headers)
        headers = {k.lower(): v for k, v in self.headers.items()}
        seen = Seen(
            provider,
            "?",
            time.monotonic(),
            [],
            200,
            None,
            None,
            host=self.headers.get("Host", ""),
            credential=credential,
            headers=headers,
            body=body,
        )
        with state.lock:
            state.seen.append(seen)
        expected = state.keys.get(provider)
        if expected is not None and credential != expected:
            seen.task, seen.status = "unauthorized", 401
            code = {"openai": "invalid_api_key", "anthropic": "authentication_error", "dashscope": "InvalidApiKey"}[
                provider
            ]
            return self._send(401, ERROR_BODIES[provider](401, code, "Incorrect API key provided."))
        problem = check_request(provider, headers, body, official=self.official)
        if problem is not None:
            status, code, message = problem
            seen.task, seen.status, seen.fault = "rejected", status, f"rejected: {message}"
            with state.lock:
                state.rejected.append(f"{provider} {body.get('model')}: {message}")
            return self._send(status, ERROR_BODIES[provider](status, code, message))
        payload = _user_payload(provider, body)
        seen.task = payload.get("task", "translate")
        segments = payload.get("segments", [])
        seen.segment_ids = [s["id"] for s in segments]
        fault = state.take_fault(provider, seen.task, [s["text"] for s in segments])
        latency = 0.0
        if fault is None and state.pace is not None:
            made = [written_in(s["text"], payload.get("target_language") or "zh-Hans") for s in segments]
            out = tokens(json.dumps(made, ensure_ascii=False)) if segments else 200
            with state.lock:
                fault, latency = state.pace.admit(prompt_tokens(body), out, time.monotonic())
        seen.fault = fault.kind if fault else None
        with state.lock:
            state.inflight += 1
            state.max_inflight = max(state.max_inflight, state.inflight)
        self._in_flight = True
        try:
            time.sleep(latency)
            self._answer(provider, body, payload, seen.task, segments, fault, seen)
        finally:
            self._finished()
            seen.answered = time.monotonic()

    def _finished(self) -> None:
        """This request leaves the in-flight count, once (an answer, an error, or a client gone)."""
        if getattr(self, "_in_flight", False):
            self._in_flight = False
            with self.state.lock:
                self.state.inflight -= 1

    def _error(self, provider: str, kind: str, fault: Fault, seen: Seen) -> bool:
        """Answer a fault that is an HTTP error, as this provider words it; False if ``kind`` is not one."""
        retry = {"Retry-After": fault.retry_after} if fault.retry_after is not None and provider != "dashscope" else {}
        errors = {
            "429": (
                429,
                {"openai": "rate_limit_exceeded", "anthropic": "rate_limit_error", "dashscope": "Throttling.RateQuota"}[
                    provider
                ],
                "Requests rate limit exceeded, please try again later.",
                retry,
            ),
            "500": (
                500,
                {"openai": "server_error", "anthropic": "api_error", "dashscope": "InternalError"}[provider],
                "The server had an error while processing your request.",
                {},
            ),
            "overloaded": (
                (529 if provider == "anthropic" else 503),
                {"openai": "server_error", "anthropic": "overloaded_error", "dashscope": "ServiceUnavailable"}[
                    provider
                ],
                "Overloaded",
                retry,
            ),
            "400": (
                400,
                {"openai": "invalid_value", "anthropic": "invalid_request_error", "dashscope": "InvalidParameter"}[
                    provider
                ],
                "messages: the request is invalid",
                {},
            ),
            "404": (
                404,
                {"openai": "model_not_found", "anthropic": "not_found_error", "dashscope": "ModelNotFound"}[provider],
                "The model does not exist or you do not have access to it.",
                {},
            ),
            "quota": (
                {"openai": 429, "anthropic": 429, "dashscope": 429}[provider],
                {
                    "openai": "insufficient_quota",
                    "anthropic": "enforced_spend_limit_reached",
                    "dashscope": "Throttling.AllocationQuota",
                }[provider],
                {
                    "openai": "You exceeded your current quota, please check your plan and billing details.",
                    "anthropic": "You have reached your specified workspace API usage limits.",
                    "dashscope": "Free allocated quota exceeded.",
                }[provider],
                {},
            ),
        }
        if provider == "dashscope":
            errors["refusal"] = (400, "DataInspectionFailed", "Input data may contain inappropriate content.", {})
        if kind not in errors:
            return False
        status, code, message, headers = errors[kind]
        seen.status = status
        self._send(status, ERROR_BODIES[provider](status, code, message), headers)
        return True

    def _answer(
        self, provider: str, body: dict, payload: dict, task: str, segments: list[dict], fault: Fault | None, seen: Seen
    ) -> None:
        time.sleep(0.02)  # a little latency, so concurrent requests overlap
        kind = fault.kind if fault else None
        if kind and self._error(provider, kind, fault, seen):
            return
        if kind == "timeout":
            time.sleep(fault.delay)
            seen.status = 0
            return self._send(200, b"{}")
        if kind == "malformed":
            return self._send(200, b'{"choices": [ this is not json')
        if task == "review":
            reply = _review(payload)
        elif task == "backtranslate":
            reply = {"translations": [{"id": s["id"], "text": english(s["text"])} for s in segments]}
        else:
            reply = {"translations": _translate(segments, fault, payload.get("target_language") or "zh-Hans")}
        text = json.dumps(reply, ensure_ascii=False)
        usage = None if kind == "no_usage" else (prompt_tokens(body), tokens(text))
        seen.usage = usage  # None: this reply reports no usage (Anthropic's then carries zeros)
        self._send(200, _reply(provider, body, reply, kind, usage))


class FakeLLMServer:
    """Bound to 127.0.0.1; ``host`` is the name its URLs use (``localhost`` for a second,
    "someone else's" server), so the Host header tells which one a client addressed.
    ``keys``: provider -> the key it expects, None for a server that needs none."""

    def __init__(self, keys: dict[str, str | None], host: str = "127.0.0.1", *, official: bool = True):
        self.state = FakeState(keys=dict(keys))
        self.host = host
        self.expect_rejections = False  # a test that sends a rejected request on purpose sets it
        # official=False: a self-hosted OpenAI-compatible server, without OpenAI's per-model rules
        handler = type("Handler", (_Handler,), {"state": self.state, "official": official})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def root(self) -> str:
        return f"http://{self.host}:{self.port}"

    def base_urls(self) -> dict[str, str]:
        return {"openai": f"{self.root}/v1", "anthropic": self.root, "dashscope": f"{self.root}/api/v1"}

    def script(self, provider: str, *faults: Fault) -> None:
        with self.state.lock:
            self.state.faults[provider] = list(faults)

    def reset(self) -> None:
        with self.state.lock:
            self.state.faults.clear()
            self.state.seen.clear()
            self.state.rejected.clear()

    def __enter__(self) -> FakeLLMServer:
        # the vocabulary and the Chinese word lists load before the first request, not inside its latency
        vocabulary_words(_HAN_ONE), vocabulary_words(_HAN_TWO)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- shared by the tests -------------------------------------------------------------------------

SDKS = ("openai", "anthropic", "dashscope")
KEYS = {
    "openai": "sk-test-openai-7f3c9b2e1d4a",
    "anthropic": "sk-ant-test-5e8d1c0b9a7f",
    "dashscope": "sk-ds-test-2b4d6f8a0c1e",
}
MODELS = {
    "openai": "gpt-5-mini",
    "anthropic": "claude-sonnet-4-6",
    "dashscope": "qwen3-32b",
}  # real names: their families decide what is sent
# fast but real: tiny backoff, a short timeout for the timeout cases
FAST = "timeout=0.5&backoff=0.01&max_retries=3&throttle_floor=0.05"


def spec(provider: str, options: str = FAST) -> str:
    return f"{provider}:{MODELS[provider]}?{options}" if options else f"{provider}:{MODELS[provider]}"


SOURCES = [
    "Cancel the reservation ⟦0⟧ for the passenger ⟦1⟧.",
    "The refund goes back to the original payment method.",
    "Ask the user to confirm ⟦0⟧ before making any change.",
    "Orders that are delivered cannot be cancelled.",
    "Use the tool ⟦0⟧ to look up the flight status.",
    "Never invent information that the tools did not return.",
]


def request(texts: list[str] | None = None, language: str = "zh-Hans") -> TranslationRequest:
    texts = SOURCES if texts is None else texts
    return TranslationRequest(
        source_language="en",
        target_language=language,
        segments=[
            ProtectedSegment(segment_id=f"seg-{i}", text=text, context="airline policy", kind="free")
            for i, text in enumerate(texts)
        ],
    )
