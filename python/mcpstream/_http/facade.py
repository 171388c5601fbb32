"""What ``McpHttpTransport`` and ``AsyncMcpHttpTransport`` share that does no I/O: the wiring of
the protocol core made in their constructors, the flows of their calls, and the properties and
methods that only read or set the core's state. Each driver (``sync``, ``aio``) runs the flows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..jsonrpc import (
    JsonRpcIdGenerator,
    JsonRpcNotification,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_notification,
    build_jsonrpc_request,
)
from ..models import ResolvedMcpServer
from ..server_requests import McpServerRequestContext
from .core import INITIALIZED_NOTIFICATION, McpHttpProtocol, ReconnectPolicy, call_flow
from .core.steps import Flow


class HttpTransportBase:
    """The base of both HTTP transports: the protocol core, the server, the workspace, the
    context for server-initiated requests and the ids of requests."""

    server: ResolvedMcpServer
    workspace_root: Path
    _protocol: McpHttpProtocol
    _context: McpServerRequestContext
    _ids: JsonRpcIdGenerator
    _listen_enabled: bool

    def _init_core(
        self,
        *,
        server: ResolvedMcpServer,
        workspace_root: Path,
        server_request_context: McpServerRequestContext | None,
        max_event_bytes: int | None,
        listen: bool,
        reconnect_policy: ReconnectPolicy | None,
        connect_timeout_s: float | None,
        has_handler: bool,
        push_notifications: bool,
    ) -> None:
        """Set up what the constructors of both transports set the same way."""
        self._protocol = McpHttpProtocol(
            server,
            max_event_bytes=max_event_bytes,
            reconnect_policy=reconnect_policy or ReconnectPolicy(),
            connect_timeout_s=connect_timeout_s,
        )
        self._protocol.has_handler = has_handler
        self._protocol.push_notifications = push_notifications
        self.server = server
        self.workspace_root = workspace_root.resolve()
        self._context = server_request_context or McpServerRequestContext(
            server_id=server.id, workspace_root=self.workspace_root
        )
        self._ids = JsonRpcIdGenerator()
        self._listen_enabled = listen

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(server_id={self.server.id!r}, "
            f"url={self._protocol.redacted_url!r}, closed={self.closed})"
        )

    # -- state ---------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once ``close`` was called."""
        return self._protocol.closed

    @property
    def session_negotiated(self) -> bool:
        """True once the server assigned a session id (in its answer to ``initialize``)."""
        return self._protocol.session_negotiated

    @property
    def negotiated_protocol_version(self) -> str | None:
        """The protocol version set by ``set_negotiated_protocol_version``."""
        return self._protocol.protocol_version

    def set_negotiated_protocol_version(self, protocol_version: str | None) -> None:
        """Send ``MCP-Protocol-Version: protocol_version`` from now on (blank or None: none)."""
        self._protocol.set_protocol_version(protocol_version)

    def stderr_tail(self) -> str:
        """An HTTP server has no stderr: always ``""`` (kept for hosts that also run stdio)."""
        return ""

    def drain_notifications(self) -> tuple[JsonRpcNotification, ...]:
        """Take every notification received so far, oldest first (always empty when the
        transport was given ``on_notification``: they went to it)."""
        return self._protocol.drain_notifications()

    # -- flows ---------------------------------------------------------------------------------

    def _request_flow(
        self, method: str, params: Any | None, timeout_s: float, now: float
    ) -> Flow[JsonRpcResponse]:
        request_id = self._ids.next()
        payload = build_jsonrpc_request(request_id=request_id, method=method, params=params)
        body = self._protocol.encode(payload)
        response = yield from call_flow(
            self._protocol,
            body,
            method=method,
            expected_id=request_id,
            timeout_s=timeout_s,
            now=now,
        )
        assert response is not None
        return response

    def _notification_flow(
        self, method: str, params: Any | None, completion_timeout_s: float | None, now: float
    ) -> Flow[bool]:
        """Send a notification; return True when it should open the GET stream."""
        timeout_s = completion_timeout_s or self.server.call_timeout_s
        body = self._protocol.encode(build_jsonrpc_notification(method=method, params=params))
        yield from call_flow(
            self._protocol, body, method=method, expected_id=None, timeout_s=timeout_s, now=now
        )
        return self._listen_enabled and method == INITIALIZED_NOTIFICATION

    def _handler_arguments(self, request: JsonRpcRequest) -> dict[str, Any]:
        """The keywords of the server request handler's ``handle_request`` for ``request``."""
        return {
            "context": self._context,
            "method": request.method,
            "request_id": request.id,
            "params": request.params,
        }
