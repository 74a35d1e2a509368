"""A loopback OpenAI-compatible judge for VitaBench's sliding-window evaluator, strict about what it is sent.

It reads the `<current_rubrics>` block VitaBench's judge prompt carries, records each rubric it was shown,
and answers in the JSON VitaBench parses (rubric_idx, rubric, justification, meetExpectation). The model
name picks the verdict: `judge` meets every rubric, `judge-strict` fails the first one. A request that is
not a judge's (tools offered, no system prompt, no rubrics) is answered 400. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler

from tests.loopback_http import LoopbackServer

_RUBRICS = re.compile(r"<current_rubrics>\n(.*)\n</current_rubrics>", re.S)


def _verdicts(rubrics: list[dict], strict: bool) -> list[dict]:
    return [
        {
            "rubric_idx": item["rubric_idx"],
            "rubric": item["rubric"],
            "justification": "checked by the loopback judge",
            "meetExpectation": not (strict and index == 0),
        }
        for index, item in enumerate(rubrics)
    ]


class FakeJudgeServer(LoopbackServer):
    def __init__(self):
        self.rubrics_seen: list[str] = []
        self.system_prompts: list[str] = []
        self.refused: list[str] = []
        seen, systems, refused = self.rubrics_seen, self.system_prompts, self.refused

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                return

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                messages = body.get("messages") or []
                found = _RUBRICS.search(messages[-1].get("content") or "") if messages else None
                judging = found and messages[0]["role"] == "system" and not body.get("tools")
                if self.path != "/v1/chat/completions" or not judging:
                    refused.append(self.path)
                    self._send(400, {"error": {"message": "not a judge request", "type": "invalid_request_error"}})
                    return
                rubrics = json.loads(found.group(1))
                seen.extend(item["rubric"] for item in rubrics)
                systems.append(messages[0]["content"])
                verdict = json.dumps(_verdicts(rubrics, strict=body["model"] == "judge-strict"), ensure_ascii=False)
                self._send(
                    200,
                    {
                        "id": "judge",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": verdict}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220},
                    },
                )

        super().__init__(Handler)
