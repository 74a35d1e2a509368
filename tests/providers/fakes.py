"""One loopback HTTP server that speaks three providers' wire protocols, for the real SDK clients.

* OpenAI   ``POST /v1/chat/completions``                         (``choices[].message.content``)
* Anthropic ``POST /v1/messages``                                 (``content[]`` with a ``tool_use`` block)
* DashScope ``POST /api/v1/services/aigc/text-generation/generation`` (``output.choices[].message``)

It translates deterministically into Han script (every ASCII letter becomes one CJK ideograph;
digits, punctuation, whitespace and ``⟦N⟧`` placeholders are kept), answers review requests by
upholding every probe finding, checks the API key, counts the token usage it reports, and can be
scripted with faults (``Fault``) to exercise the clients' retry and validation paths. Nothing here
ever leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from translators.interface import ProtectedSegment, TranslationRequest

PATHS = {
    "/v1/chat/completions": "openai",
    "/v1/messages": "anthropic",
    "/api/v1/services/aigc/text-generation/generation": "dashscope",
}
_PLACEHOLDER = re.compile(r"⟦[0-9]+⟧")
_LETTER = re.compile(r"[A-Za-z]")


# a few real terms, so language-pack glossaries (zh-Hans: task -> 任务 ...) are honoured
GLOSSARY = {"task": "任务", "order": "订单", "refund": "退款", "reservation": "预订", "flight": "航班", "roaming": "漫游"}
_TERMS = re.compile(r"(?<![\w⟦])(" + "|".join(GLOSSARY) + r")(?!\w)", re.I)


def han(text: str) -> str:
    """Deterministic 'Chinese': glossary words, then one ideograph per ASCII letter; digits,
    punctuation, whitespace and placeholders are unchanged."""
    text = _TERMS.sub(lambda m: GLOSSARY[m.group().lower()], text)
    return _LETTER.sub(lambda m: chr(0x4E00 + (ord(m.group()) - 65) * 11), text)


def tokens(text: str) -> int:
    return max(1, len(text) // 3)


@dataclass
class Fault:
    """``kind``: 429 | 500 | timeout | malformed (HTTP body) | bad_json (model text) | truncated |
    drop_placeholder | wrong_language | answered | commentary | drop_id | no_usage. ``times=None``
    repeats forever; ``match`` limits the fault to requests holding a segment whose text contains
    it (and aims segment faults at it); ``task`` is translate or review."""

    kind: str
    times: int | None = 1
    match: str | tuple[str, ...] | None = None
    task: str = "translate"

    def hits(self, text: str) -> bool:
        needles = (self.match,) if isinstance(self.match, str) else self.match or ()
        return any(needle in text for needle in needles)
    retry_after: str = "0.2"
    delay: float = 1.5


@dataclass
class Seen:
    provider: str
    task: str
    at: float
    segment_ids: list[str]
    status: int
    fault: str | None
    usage: tuple[int, int] | None


@dataclass
class FakeState:
    keys: dict[str, str]
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    inflight: int = 0
    max_inflight: int = 0

    def usage(self, provider: str | None = None, task: str | None = None) -> tuple[int, int]:
        rows = [s.usage for s in self.seen if s.usage and (provider in (None, s.provider)) and (task in (None, s.task))]
        return sum(r[0] for r in rows), sum(r[1] for r in rows)

    def requests(self, provider: str, task: str = "translate") -> list[Seen]:
        return [s for s in self.seen if s.provider == provider and s.task == task]

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


def _translate(segments: list[dict], fault: Fault | None) -> list[dict]:
    out = [{"id": s["id"], "text": han(s["text"])} for s in segments]
    if fault is None:
        return out
    aims = [i for i, s in enumerate(segments) if fault.hits(s["text"])] if fault.match else [0]
    for aim in aims:
        source = segments[aim]["text"]
        if fault.kind == "drop_placeholder":
            out[aim]["text"] = _PLACEHOLDER.sub("", han(source), count=1)
        elif fault.kind == "wrong_language":
            out[aim]["text"] = source
        elif fault.kind == "answered":
            out[aim]["text"] = "Sure! Here is what you asked for: " + source
        elif fault.kind == "commentary":
            out[aim]["text"] = han(source) + " (Translator's note: kept the tone informal.)"
    if fault.kind == "drop_id":
        out = [item for i, item in enumerate(out) if i not in aims]
    return out


def _review(payload: dict) -> dict:
    actions = [{"kind": "uphold", "finding_id": f["id"], "reasoning": "the evidence supports it"} for f in payload.get("probe_findings", [])]
    return {"actions": actions + [{"kind": "done", "reasoning": "reviewed"}]}


def _wire(provider: str, model: str, payload: dict, tool: str | None, finish: str, text: str, usage: tuple[int, int] | None) -> dict:
    if provider == "openai":
        body = {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}]}
        if usage:
            body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
        return body
    if provider == "anthropic":
        stop = {"stop": "tool_use" if tool else "end_turn", "length": "max_tokens"}[finish]
        if tool and finish == "stop":
            content = [{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": payload}]
        else:
            content = [{"type": "text", "text": text}]
        body = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content, "stop_reason": stop, "stop_sequence": None}
        body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]} if usage else {"input_tokens": 0, "output_tokens": 0}
        return body
    body = {"request_id": "req-fake", "output": {"choices": [{"finish_reason": finish, "message": {"role": "assistant", "content": text}}]}}
    if usage:
        body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1], "total_tokens": sum(usage)}
    return body


def _key_of(provider: str, headers) -> str:
    # Anthropic's SDK sends x-api-key (older) or Authorization: Bearer (newer); both are accepted
    return headers.get("x-api-key") or headers.get("Authorization", "").removeprefix("Bearer ")


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeLLM/1"
    state: FakeState

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
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
        if _key_of(provider, self.headers) != state.keys.get(provider):
            with state.lock:
                state.seen.append(Seen(provider, "unauthorized", time.monotonic(), [], 401, None, None))
            return self._send(401, json.dumps({"error": {"message": "invalid api key", "type": "authentication_error"}, "code": "InvalidApiKey", "message": "invalid api key"}).encode())
        payload = _user_payload(provider, body)
        task = payload.get("task", "translate")
        segments = payload.get("segments", [])
        fault = state.take_fault(provider, task, [s["text"] for s in segments])
        seen = Seen(provider, task, time.monotonic(), [s["id"] for s in segments], 200, fault.kind if fault else None, None)
        with state.lock:
            state.seen.append(seen)
            state.inflight += 1
            state.max_inflight = max(state.max_inflight, state.inflight)
        try:
            self._answer(provider, body, payload, task, segments, fault, seen)
        finally:
            with state.lock:
                state.inflight -= 1

    def _answer(self, provider: str, body: dict, payload: dict, task: str, segments: list[dict], fault: Fault | None, seen: Seen) -> None:
        time.sleep(0.02)  # a little latency, so concurrent requests overlap
        kind = fault.kind if fault else None
        if kind in ("429", "500"):
            seen.status = int(kind)
            headers = {"Retry-After": fault.retry_after} if kind == "429" else {}
            error = {"error": {"message": f"fake {kind}", "type": "rate_limit_error" if kind == "429" else "api_error"}, "code": "Throttling", "message": f"fake {kind}"}
            return self._send(int(kind), json.dumps(error).encode(), headers)
        if kind == "timeout":
            time.sleep(fault.delay)
            seen.status = 0
            return self._send(200, b"{}")
        if kind == "malformed":
            return self._send(200, b'{"choices": [ this is not json')
        tool = body["tools"][0]["name"] if provider == "anthropic" and body.get("tools") else None
        reply = _review(payload) if task == "review" else {"translations": _translate(segments, fault)}
        text = json.dumps(reply, ensure_ascii=False)
        finish = "stop"
        if kind == "bad_json":
            text, tool = "Here are your translations: " + text[:40], None
        if kind == "truncated":
            text, finish, tool = text[: len(text) // 2], "length", None
        usage = None if kind == "no_usage" else (tokens(json.dumps(body, ensure_ascii=False)), tokens(text))
        seen.usage = usage  # None: this reply reports no usage (Anthropic's then carries zeros)
        wire = _wire(provider, body.get("model", "?"), reply, tool, finish, text, usage)
        self._send(200, json.dumps(wire, ensure_ascii=False).encode())


class FakeLLMServer:
    def __init__(self, keys: dict[str, str]):
        self.state = FakeState(keys=keys)
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_urls(self) -> dict[str, str]:
        return {"openai": f"{self.root}/v1", "anthropic": self.root, "dashscope": f"{self.root}/api/v1"}

    def script(self, provider: str, *faults: Fault) -> None:
        with self.state.lock:
            self.state.faults[provider] = list(faults)

    def reset(self) -> None:
        with self.state.lock:
            self.state.faults.clear()
            self.state.seen.clear()

    def __enter__(self) -> "FakeLLMServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- shared by the tests -------------------------------------------------------------------------

SDKS = ("openai", "anthropic", "dashscope")
KEYS = {"openai": "sk-test-openai-7f3c9b2e1d4a", "anthropic": "sk-ant-test-5e8d1c0b9a7f", "dashscope": "sk-ds-test-2b4d6f8a0c1e"}
MODELS = {"openai": "gpt-fake", "anthropic": "claude-fake", "dashscope": "qwen-fake"}
# fast but real: tiny backoff, a short timeout for the timeout cases
FAST = "timeout=0.5&backoff=0.01&max_retries=3"


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
        segments=[ProtectedSegment(segment_id=f"seg-{i}", text=text, context="airline policy", kind="free") for i, text in enumerate(texts)],
    )
