"""A provider endpoint that redirects, and the host it redirects to (issue 28, item 14: a redirect
carried `OpenAI-Organization`, `OpenAI-Project` and the full prompt to the new host). Both are
loopback servers; shared by the bad-input drill's check and tests/translators/providers/test_redirects.py.

`RedirectPair`: the endpoint on 127.0.0.1 answers every request with `status` (307 and 308 keep
the method and body) to the same path on a second server on another port, addressed as
`localhost` (another origin), which records whatever reaches it. Its `arrivals` must stay empty.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Arrival:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    return handler.rfile.read(int(handler.headers.get("Content-Length", 0) or 0))


class _Recording(BaseHTTPRequestHandler):
    """Records every request and answers 200 with a chat-completion-shaped reply (a client that
    followed the redirect would take it as the provider's answer)."""

    arrivals: list[Arrival]

    def log_message(self, *args) -> None:
        pass

    def _record(self) -> None:
        body = _read_body(self)
        self.arrivals.append(Arrival(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        reply = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "?",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_GET = do_POST = do_PUT = _record  # noqa: N815


class _Redirecting(BaseHTTPRequestHandler):
    target: str
    status: int
    hits: list[Arrival]

    def log_message(self, *args) -> None:
        pass

    def _redirect(self) -> None:
        body = _read_body(self)
        self.hits.append(Arrival(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(self.status)
        self.send_header("Location", self.target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_PUT = _redirect  # noqa: N815


class _Loopback:
    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class RedirectPair:
    def __init__(self, status: int = 307):
        self.arrivals: list[Arrival] = []  # what reached the other host: must stay empty
        self.hits: list[Arrival] = []  # what reached the endpoint (that one, the user configured)
        self.elsewhere = _Loopback(type("Recording", (_Recording,), {"arrivals": self.arrivals}))
        self.target = f"http://localhost:{self.elsewhere.port}"
        self.endpoint = _Loopback(
            type("Redirecting", (_Redirecting,), {"target": self.target, "status": status, "hits": self.hits})
        )
        self.root = f"http://127.0.0.1:{self.endpoint.port}"

    def base_urls(self) -> dict[str, str]:
        return {"openai": f"{self.root}/v1", "anthropic": self.root, "dashscope": f"{self.root}/api/v1"}

    def __enter__(self) -> RedirectPair:
        return self

    def __exit__(self, *exc) -> None:
        self.endpoint.close()
        self.elsewhere.close()
