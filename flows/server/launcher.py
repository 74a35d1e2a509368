"""`python -m flows.server.launcher --port N --state DIR`: the project's Prefect server.

What `prefect server start` runs in the foreground (uvicorn serving `create_app(final=True)`: API,
UI, migrations on start, every background service), with what Prefect has no setting for:

- the Host header must be 127.0.0.1:PORT or localhost:PORT (a DNS-rebinding page names its own
  host), for HTTP and websockets;
- `/babelflow/identity` answers a caller's random challenge with which state folder it serves and a
  proof only the holder of this project's auth string can make (an HMAC of the challenge and the
  answer): `babelflow server --stop` and `babelflow flow` adopt or end a recorded server only after
  it proves it is their project's. The caller never sends the secret to prove anything, so a
  process that took the port first learns nothing (issue 44).

The auth string is read from its owner-only file here, so it never travels in an environment;
CORS admits only the UI's own two origins, and CSRF tokens are required for changes.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import re
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from babelflow.settings import BabelflowSettings
from flows.server.auth import basic_authorization, read_auth_string

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

IDENTITY_PATH = "/babelflow/identity"
CHALLENGE_HEADER = b"x-babelflow-challenge"
CHALLENGE = re.compile(rb"[0-9a-f]{32,128}")


def identity_proof(key: bytes, challenge: bytes, identity: bytes) -> str:
    """HMAC-SHA256, keyed by the project's auth secret, of the caller's challenge and the identity answered."""
    return hmac.new(key, challenge + b"\0" + identity, hashlib.sha256).hexdigest()


def allowed_hosts(port: int) -> frozenset[str]:
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})


def ui_origins(port: int) -> list[str]:
    return [f"http://{host}" for host in sorted(allowed_hosts(port))]


class ProjectGuard:
    """ASGI middleware in front of Prefect's app: Host check, then the identity route."""

    def __init__(self, app: ASGIApp, *, port: int, authorization: str, state_dir: Path):
        self.app = app
        self.hosts = allowed_hosts(port)
        self.authorization = authorization.encode()
        self.identity = json.dumps(
            {"service": "babelflow-prefect-server", "state_dir": str(state_dir), "pid": os.getpid()}
        ).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):  # lifespan: Prefect's migrations and services
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if headers.get(b"host", b"").lower() not in {h.encode() for h in self.hosts}:
            await self._refuse(
                scope, send, 421, b"unknown Host: this server answers only as 127.0.0.1 or localhost on its port"
            )
            return
        if scope["type"] == "http" and scope.get("path") == IDENTITY_PATH:
            challenge = headers.get(CHALLENGE_HEADER, b"")
            if not CHALLENGE.fullmatch(challenge):
                await self._refuse(scope, send, 400, b"a challenge of 32 to 128 hex digits is required")
                return
            proof = identity_proof(self.authorization, challenge, self.identity)
            body = json.dumps({**json.loads(self.identity), "proof": proof}).encode()
            await _respond(send, 200, body, b"application/json")
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(scope: Scope, send: Send, status: int, body: bytes) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # before accept: uvicorn answers 403
        else:
            await _respond(send, status, body, b"text/plain; charset=utf-8")


async def _respond(send: Send, status: int, body: bytes, content_type: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def server_settings(port: int, home: Path, auth_string: str) -> dict[str, str]:
    """Prefect settings of the project server (set before Prefect is imported: it reads them once)."""
    return {
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_API_HOST": "127.0.0.1",
        "PREFECT_SERVER_API_PORT": str(port),
        "PREFECT_UI_API_URL": f"http://127.0.0.1:{port}/api",  # else the UI assumes port 4200
        "PREFECT_SERVER_API_AUTH_STRING": auth_string,
        "PREFECT_SERVER_CORS_ALLOWED_ORIGINS": ",".join(ui_origins(port)),
        "PREFECT_SERVER_CSRF_PROTECTION_ENABLED": "true",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state", type=Path, required=True, help="the project's state folder (.babelflow)")
    args = parser.parse_args(argv)
    settings = BabelflowSettings(state_dir=args.state)
    auth_string = read_auth_string(settings)
    os.environ.update(server_settings(args.port, settings.layout.prefect_home(), auth_string))

    # Prefect reads its settings from the environment when imported (prefect.context): after the update above
    import uvicorn  # noqa: PLC0415
    from prefect.server.api.server import create_app  # noqa: PLC0415
    from prefect.settings import get_current_settings  # noqa: PLC0415

    api = get_current_settings().server.api
    app = ProjectGuard(
        create_app(final=True),
        port=args.port,
        authorization=basic_authorization(auth_string),
        state_dir=settings.resolved_state_dir(),
    )
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=args.port,
        timeout_keep_alive=api.keepalive_timeout,
        ws_ping_interval=api.websocket_ping_interval,
        ws_ping_timeout=api.websocket_ping_timeout,
        log_level=get_current_settings().server.logging_level.lower(),
    )


if __name__ == "__main__":
    main()
