"""A loopback OpenAI-compatible server that plays a tau2 agent and user simulator from the tasks.

The model name picks the role:

* ``user``: says the task's scenario (the ``<scenario>`` block of its system prompt) once, then
  ``###STOP###`` as soon as the agent answers in text.
* ``agent``: finds the task from the user's words (the source's or the variant's scenario), calls
  the golden actions one per turn (ids ``fake_N``), then answers in text: a sentence of its own
  system prompt's policy (so it speaks the variant's language) plus the task's communicate_info.
* ``agent-english``: the same, but the closing text is a fixed English sentence.

Nothing here leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler

from tests.loopback_http import LoopbackServer

_SCENARIO = re.compile(r"<scenario>\n(.*)\n</scenario>", re.S)
_POLICY = re.compile(r"<policy>\n(.*)\n</policy>", re.S)
ENGLISH_CLOSING = "All done: your request has been completed successfully, thank you for waiting."


class TaskBook:
    """Tasks by what their simulated user says first (source and variant tasks alike). Tasks that
    share a scenario are told apart by their scripted message history, else the first one wins."""

    def __init__(self, tasks):
        self.by_scenario: dict[str, list] = {}
        for task in tasks:
            self.by_scenario.setdefault(str(task.user_scenario).strip(), []).append(task)

    @staticmethod
    def _history(task) -> list[str]:
        history = task.initial_state.message_history if task.initial_state else None
        return [m.content for m in history or [] if m.role == "user" and m.content]

    def find(self, user_texts: list[str]):
        for text in user_texts:
            candidates = self.by_scenario.get((text or "").strip(), [])
            fitting = [t for t in candidates if all(h in user_texts for h in self._history(t))]
            fitting.sort(key=lambda t: -len(self._history(t)))
            if fitting:
                return fitting[0]
        return None


def _reply(content: str | None = None, call: tuple[str, str, dict] | None = None) -> dict:
    message: dict = {"role": "assistant", "content": content}
    if call is not None:
        call_id, name, arguments = call
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        ]
    return {
        "id": "fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def play_user(messages: list[dict]) -> dict:
    system = messages[0]["content"]
    spoken = [m for m in messages[1:] if m["role"] == "assistant"]  # the simulator's own turns (roles are flipped)
    if not spoken:
        return _reply(_SCENARIO.search(system).group(1))
    return _reply("###STOP###")


def play_agent(messages: list[dict], book: TaskBook, english: bool) -> dict:
    task = book.find([m["content"] for m in messages if m["role"] == "user"])
    if task is None:
        return _reply("I cannot identify the task." if english else _closing(messages))
    actions = [a for a in (task.evaluation_criteria.actions or []) if a.requestor == "assistant"]
    done = sum(
        1
        for m in messages
        if m["role"] == "assistant" and any(c["id"].startswith("fake_") for c in m.get("tool_calls") or [])
    )
    if done < len(actions):
        action = actions[done]
        return _reply(None, (f"fake_{done}", action.name, action.arguments))
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    return _reply(f"{ENGLISH_CLOSING if english else _closing(messages)} {info}".strip())


def _closing(messages: list[dict]) -> str:
    policy = _POLICY.search(messages[0]["content"])
    lines = [line.strip(" -0123456789.") for line in (policy.group(1) if policy else "").splitlines()]
    prose = [line for line in lines if len(line.split()) >= 5 and not line.startswith("#")]
    return prose[0] if prose else "…"


class FakeAgentServer(LoopbackServer):
    def __init__(self, tasks):
        self.book = TaskBook(tasks)
        self.requests: list[str] = []
        self.tool_results: list[str] = []  # what the agent model was shown as tool output, as sent
        book, requests, tool_results = self.book, self.requests, self.tool_results

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                return

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model = body["model"]
                requests.append(model)
                tool_results.extend(m["content"] for m in body["messages"] if m["role"] == "tool" and model != "user")
                if model == "user":
                    answer = play_user(body["messages"])
                else:
                    answer = play_agent(body["messages"], book, english=model == "agent-english")
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)
