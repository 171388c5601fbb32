"""What ``McpHttpTransport`` and ``AsyncMcpHttpTransport`` share that does no I/O: the wiring of
the protocol core made in their constructors and the properties that only read or set its state.
The calls, the GET stream and closing stay in each transport (they differ by sync and async)."""

from __future__ import annotations

from pathlib import Path

from ..jsonrpc import JsonRpcIdGenerator
from ..models import ResolvedMcpServer
from ..server_requests import McpServerRequestContext
from .protocol import McpHttpProtocol, ReconnectPolicy


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
    ) -> None:
        """Set up what the constructors of both transports set the same way."""
        self._protocol = McpHttpProtocol(
            server,
            max_event_bytes=max_event_bytes,
            reconnect_policy=reconnect_policy or ReconnectPolicy(),
            connect_timeout_s=connect_timeout_s,
        )
        self.server = server
        self.workspace_root = workspace_root.resolve()
        self._context = server_request_context or McpServerRequestContext(
            server_id=server.id, workspace_root=self.workspace_root
        )
        self._ids = JsonRpcIdGenerator()
        self._listen_enabled = listen

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
