"""A real MCP server protected by OAuth, for driving the transports with OAuth end to end.

The MCP server is the transport tests' (``transport.mcp_sdk_server``: the official SDK's
``MCPServer`` with an event store, in SSE mode, so that GET streams and resumption work), served
by uvicorn on a thread of this process. In front of it sits a small bearer gate that trusts the
access tokens of an ``AuthServer`` (the OAuth tests' loopback authorization server): no valid
token is a 401 with the authorization server's challenge, a token without the scopes that
``AuthServerConfig.required_scopes`` asks for the JSON-RPC method is a 403
``insufficient_scope``. Every request to ``/mcp`` is recorded with the credentials it carried
and the status it got.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import uvicorn
from transport.mcp_sdk_server import MemoryEventStore, build_server

from .auth_server import AuthServer, token_of

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass
class GateRecord:
    """One request to ``/mcp`` as the gate saw it."""

    http_method: str
    rpc_method: str | None
    authorization: str | None
    last_event_id: str | None
    status: int | None = None
    dpop: str | None = None


class BearerGate:
    """ASGI middleware: the resource server's token checks, in front of the MCP app."""

    def __init__(self, app: App, auth: AuthServer) -> None:
        self.app = app
        self.auth = auth
        self.records: list[GateRecord] = []
        self.revoke_on_get = 0
        """Revoke the token of the next this-many GETs and answer them 401 (an expired token)."""
        self.always_unauthorized: set[str] = set()
        """JSON-RPC methods answered 401 whatever token they carry."""
        self.next_nonce_on_success: str | None = None
        """Hand this DPoP nonce out on the next answer that passes the gate (a 200), and ask
        for it from then on, as a server rotating its nonces does (RFC 9449 section 8.2)."""

    def revoke(self, authorization: str | None) -> None:
        """Make the access token in ``authorization`` invalid, as if it had expired."""
        token = token_of(authorization or "")
        if token:
            self.auth.access_tokens.pop(token, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/mcp":
            await self.app(scope, receive, send)
            return
        headers = {key.decode().lower(): value.decode() for key, value in scope["headers"]}
        body, receive = await _buffered(receive) if scope["method"] == "POST" else (b"", receive)
        record = GateRecord(
            http_method=scope["method"],
            rpc_method=_rpc_method(body),
            authorization=headers.get("authorization"),
            last_event_id=headers.get("last-event-id"),
            dpop=headers.get("dpop"),
        )
        self.records.append(record)
        url = f"http://{headers.get('host', '')}/mcp"
        refusal = self.auth.resource_refusal(record.http_method, url, headers) or self._refusal(
            record
        )
        if refusal is not None:
            status, error_headers, payload = refusal
            record.status = status
            await _send_json(send, status, payload, error_headers)
            return

        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = message["status"]
                if (nonce := self.next_nonce_on_success) is not None:
                    self.next_nonce_on_success = None
                    self.auth.config.dpop_rs_nonce = nonce
                    message = {
                        **message,
                        "headers": [*message["headers"], (b"dpop-nonce", nonce.encode())],
                    }
            await send(message)

        await self.app(scope, receive, recording_send)

    def _refusal(self, record: GateRecord) -> tuple[int, dict[str, str], Any] | None:
        auth = self.auth
        token = token_of(record.authorization or "") or ""
        if record.http_method == "GET" and self.revoke_on_get and token:
            self.revoke_on_get -= 1
            self.revoke(record.authorization)
        grant = auth.access_tokens.get(token) if token else None
        if grant is None or record.rpc_method in self.always_unauthorized:
            return 401, {"WWW-Authenticate": auth.challenge()}, {"error": "invalid_token"}
        required = auth.config.required_scopes.get(record.rpc_method or "", [])
        if not set(required) <= set(grant.scopes):
            challenge = auth.challenge(error="insufficient_scope", scope=" ".join(required))
            return 403, {"WWW-Authenticate": challenge}, {"error": "insufficient_scope"}
        return None

    def statuses(self, http_method: str, rpc_method: str | None = None) -> list[int | None]:
        """The statuses of the recorded requests of one kind, in order."""
        return [
            r.status
            for r in self.records
            if r.http_method == http_method and (rpc_method is None or r.rpc_method == rpc_method)
        ]


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """Read the whole request body; return it and a ``receive`` that replays it."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def _rpc_method(body: bytes) -> str | None:
    try:
        payload = json.loads(body) if body else None
    except ValueError:
        return None
    method = payload.get("method") if isinstance(payload, dict) else None
    return method if isinstance(method, str) else None


async def _send_json(send: Send, status: int, payload: Any, headers: dict[str, str]) -> None:
    data = json.dumps(payload).encode()
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(data))]
    raw_headers += [(name.lower().encode(), value.encode()) for name, value in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": data})


class ProtectedMcpServer:
    """The gate and the MCP server under uvicorn on a thread; ``url`` is the MCP endpoint.

    The authorization server's protected resource metadata is pointed at ``url``.
    """

    def __init__(self, auth: AuthServer) -> None:
        app = build_server().streamable_http_app(event_store=MemoryEventStore(), retry_interval=100)
        self.gate = BearerGate(app, auth)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(128)
        port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        auth.config.prm_resource = self.url
        # asyncio's own loop, not uvloop (which uvicorn takes when installed): the resumption
        # scenario was written against it, and over uvloop the server's stream now and then ends
        # with nothing to resume from
        config = uvicorn.Config(
            self.gate,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=1,
            loop="asyncio",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self) -> ProtectedMcpServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the protected MCP server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()


def secrets_of(auth: AuthServer, gate: BearerGate) -> set[str]:
    """Every secret the servers handed out or saw: access and refresh tokens (revoked ones
    too), client secrets, authorization codes and PKCE verifiers."""
    found: set[str] = set(auth.access_tokens) | set(auth.refresh_tokens)
    found |= auth.used_refresh_tokens
    found |= {secret for secret, _ in auth.clients.values() if secret}
    found |= {secret for secret in auth.config.pre_registered.values() if secret}
    for request in auth.requests:
        for key in ("code", "code_verifier", "refresh_token", "client_secret"):
            if request.form.get(key):
                found.add(request.form[key])
    for record in gate.records:
        token = token_of(record.authorization or "")
        if token:
            found.add(token)
    return found
