"""The flows of the stateless era (MCP 2026-07-28), over ``call_flow``: negotiation of the era,
and a modern request from its first POST to its complete result.

* ``negotiate_flow``: ``server/discover`` (stamped as a modern request); its result makes the
  transport modern (the answer cached), a recognised modern error is handled (an unsupported
  version retried once with one both speak), and any other refusal (a 4xx without a modern
  JSON-RPC error) falls back to ``initialize``. A host may pin an era or a version.
* ``modern_request_flow``: one request stamped with ``_meta`` and its headers (see ``era``),
  retried once after ``UnsupportedProtocolVersionError`` (-32022) with a version both speak and
  once after ``HeaderMismatch`` (-32020) with the tools listed again; ``input_required`` results
  answered through the host's handler and the request sent again with ``inputResponses``, the
  byte-exact ``requestState`` and a new id, at most ``ModernState.max_rounds`` times;
  ``tools/list`` pages cleared of tools with invalid ``x-mcp-header`` annotations; list results
  served from the cache while their ``ttlMs`` lasts (private ones per authorization).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..._eras import Negotiated, Negotiation
from ...errors import McpHttpTransportError, McpHttpTransportProtocolError
from ...jsonrpc import (
    JsonRpcId,
    JsonRpcRequest,
    JsonRpcResponse,
    build_jsonrpc_request,
)
from . import era
from .discovery import DISCOVERED
from .flows import call_flow
from .protocol import McpHttpProtocol, ModernState, logger
from .sse_legacy import HTTP_SSE, NEGOTIATED, cached_route, initialize_flow
from .steps import Done, Flow, Handle, Handled, Sleep

__all__ = [
    "LIST_METHODS",
    "Channel",
    "modern_request_flow",
    "negotiate_flow",
]

LIST_METHODS = frozenset(
    {"tools/list", "resources/list", "resources/templates/list", "prompts/list"}
)
"""The methods whose results the cache keeps (by their ``ttlMs`` and ``cacheScope``)."""


def _now() -> Flow[float]:
    """The driver's clock (the core reads none): a zero sleep's outcome."""
    done = yield Sleep(0.0)
    assert isinstance(done, Done)
    return done.now


@dataclass(frozen=True, slots=True)
class Channel:
    """Where a modern request goes: the transport's ``protocol`` and its ``state``, the ids of
    requests (``next_id``) and the time each POST may take."""

    protocol: McpHttpProtocol
    state: ModernState
    next_id: Callable[[], JsonRpcId]
    timeout_s: float


def _one_request(
    channel: Channel, method: str, params: Any, now: float, deadline: float | None = None
) -> Flow[JsonRpcResponse]:
    """One POST of a modern request (a new id each time), its response, within the channel's
    timeout (by ``deadline`` at the latest: that of the whole request)."""
    protocol = channel.protocol
    stamped, headers = channel.state.stamp(method, params)
    request_id = channel.next_id()
    payload = build_jsonrpc_request(request_id=request_id, method=method, params=stamped)
    response = yield from call_flow(
        protocol,
        protocol.encode(payload),
        method=method,
        expected_id=request_id,
        timeout_s=channel.timeout_s,
        now=now,
        headers=headers,
        deadline=deadline,
    )
    assert response is not None
    return response


def modern_request_flow(
    channel: Channel, method: str, params: Any, *, now: float, cache_key: str = ""
) -> Flow[JsonRpcResponse]:
    """A modern request to its complete result (see the module docstring); ``cache_key``
    names the authorization, for private cache entries."""
    protocol, state = channel.protocol, channel.state
    cursor = params.get("cursor") if isinstance(params, Mapping) else None
    cached = _cached(state, method, str(cursor or ""), cache_key, now)
    if cached is not None:
        return cached
    version_retried = relisted = False
    rounds = 0
    # One deadline for the whole request: its retries, its rounds of input and the host's
    # handlers answering them share the channel's timeout.
    deadline = now + channel.timeout_s
    while True:
        if now >= deadline:
            raise protocol.timeout_error(method, channel.timeout_s)
        response = yield from _one_request(channel, method, params, now, deadline)
        now = yield from _now()
        error = response.error
        code = error.get("code") if error is not None else None
        if code == era.UNSUPPORTED_PROTOCOL_VERSION and state.discovery_key is not None:
            DISCOVERED.drop(state.discovery_key)  # (the next session discovers again)
        if code == era.UNSUPPORTED_PROTOCOL_VERSION and not version_retried:
            assert error is not None
            version = era.choose_version(era.supported_versions(error), modern_only=True)
            if version is not None:
                version_retried, state.version = True, version
                continue
        if code == era.HEADER_MISMATCH and method == "tools/call" and not relisted:
            relisted = True
            yield from _relist_tools(channel, now)
            now = yield from _now()
            continue
        wanted = era.input_required(method, response.result) if error is None else None
        if wanted is None:
            return _taken(state, method, str(cursor or ""), cache_key, response, now)
        rounds += 1
        if rounds > state.max_rounds:
            raise protocol.error(
                f"'{method}' still asked for input after {state.max_rounds} rounds; giving up",
                McpHttpTransportProtocolError,
            )
        answers = yield from _answer_inputs(protocol, method, wanted, deadline, channel.timeout_s)
        now = yield from _now()
        params = era.retry_params(params, answers, wanted.request_state)


def _answer_inputs(
    protocol: McpHttpProtocol,
    method: str,
    wanted: era.InputRequired,
    deadline: float,
    timeout_s: float,
) -> Flow[dict[str, Any]]:
    """The answers of the host's handler to the input requests of an ``input_required``
    result (elicitation, sampling, roots), by their keys; the handler's time counts against
    the request's ``deadline`` (its ``timeout_s`` error once past it)."""
    answers: dict[str, Any] = {}
    for key, request in wanted.requests.items():
        if not protocol.has_handler:
            raise protocol.error(
                f"'{method}' needs input ({request['method']}) and no handler is set",
                McpHttpTransportProtocolError,
            )
        now = yield from _now()
        handled = yield Handle(
            JsonRpcRequest(id=key, method=request["method"], params=request.get("params")),
            deadline - now,
        )
        if handled.now >= deadline or not isinstance(handled, Handled):
            raise protocol.timeout_error(method, timeout_s)
        if handled.error is not None:
            failure = protocol.error(
                f"the handler failed on the input request '{request['method']}' of '{method}'",
                McpHttpTransportProtocolError,
            )
            raise failure from handled.error
        answers[key] = handled.result
    return answers


def _relist_tools(channel: Channel, now: float) -> Flow[None]:
    """List the tools again (every page), for their current ``x-mcp-header`` annotations."""
    state = channel.state
    state.tool_paths.clear()
    cursor: Any = None
    while True:
        params = {"cursor": cursor} if cursor else None
        response = yield from _one_request(channel, "tools/list", params, now)
        _taken(state, "tools/list", "", "", response, now, store=False)
        result = response.result if isinstance(response.result, Mapping) else {}
        cursor = result.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return


def _cached(
    state: ModernState, method: str, cursor: str, cache_key: str, now: float
) -> JsonRpcResponse | None:
    if method not in LIST_METHODS:
        return None
    for key in ((method, cursor, ""), (method, cursor, "private:" + cache_key)):
        entry = state.cache.get(key)
        if entry is not None and entry[0] > now:
            result: Any = entry[1]
            return JsonRpcResponse(id=0, result=result)
    return None


def _taken(
    state: ModernState,
    method: str,
    cursor: str,
    cache_key: str,
    response: JsonRpcResponse,
    now: float,
    *,
    store: bool = True,
) -> JsonRpcResponse:
    """A complete response as the host gets it: a ``tools/list`` page without its invalid
    tools (their headers recorded), and a list result kept by its caching hint."""
    result = response.result
    if method == "tools/list" and isinstance(result, Mapping) and "tools" in result:
        kept, paths = era.filter_tools(result["tools"])
        state.tool_paths.update(paths)
        if len(kept) != len(result["tools"]):
            result = {**result, "tools": kept}
            response = JsonRpcResponse(id=response.id, result=result)
    hint = era.cache_hint(result) if response.error is None else None
    if store and hint is not None and method in LIST_METHODS:
        ttl_s, private = hint
        scope = "private:" + cache_key if private else ""
        state.cache[(method, cursor, scope)] = (now + ttl_s, result)
    return response


# -- negotiation -----------------------------------------------------------------------------------


def negotiate_flow(
    protocol: McpHttpProtocol,
    negotiation: Negotiation,
    *,
    next_id: Callable[[], JsonRpcId],
    timeout_s: float,
    now: float,
    discovery_identity: str | None = None,
) -> Flow[Negotiated]:
    """Find the era the server speaks (see the module docstring). For the handshake era this
    sends ``initialize`` (over the HTTP+SSE transport when the server refuses the POST with
    400, 404 or 405, or ``era`` pins ``"http+sse"``) and records the version; the caller sends
    ``notifications/initialized``. What was found is cached per server (``NEGOTIATED``): with
    no pin (or the ``"legacy"`` pin of a renewal), a second negotiation goes straight to it,
    and probes again from the start when that stopped working. With a
    ``discovery_identity`` (``discovery.identity``), a ``server/discover`` answer is taken
    from the process's cache, or kept there (``discovery.DISCOVERED``)."""
    pin = negotiation.era
    known = NEGOTIATED.get(protocol.url) if pin in (None, "legacy") else None
    if known is not None and known != "modern":
        handshake = _handshake(
            protocol, negotiation, next_id, timeout_s, now, direct=known == HTTP_SSE
        )
        cached = yield from cached_route(protocol.url, handshake)
        if cached is not None:
            NEGOTIATED.put(protocol.url, _outcome(cached))
            return cached
        logger.info(
            "server %r no longer speaks what it did (%s); negotiating again",
            protocol.server.id,
            known,
        )
        now = yield from _now()
    negotiated = yield from _probe(
        protocol, negotiation, next_id, timeout_s, now, discovery_identity
    )
    if pin in (None, "legacy"):
        NEGOTIATED.put(protocol.url, _outcome(negotiated))
    return negotiated


def _outcome(negotiated: Negotiated) -> str:
    """The cache's name for what ``negotiated`` found."""
    if negotiated.transport == HTTP_SSE:
        return HTTP_SSE
    return negotiated.era


def _probe(
    protocol: McpHttpProtocol,
    negotiation: Negotiation,
    next_id: Callable[[], JsonRpcId],
    timeout_s: float,
    now: float,
    discovery_identity: str | None = None,
) -> Flow[Negotiated]:
    """Negotiate from the start: ``server/discover`` (or its answer from the cache, given a
    ``discovery_identity``) unless a handshake era or transport is pinned, then
    ``initialize``."""
    pin = negotiation.era
    if pin == HTTP_SSE:
        return (yield from _handshake(protocol, negotiation, next_id, timeout_s, now, direct=True))
    legacy_pin = pin == "legacy" or (pin not in (None, "modern") and not era.is_modern(pin))
    if not legacy_pin:
        version = pin if pin not in (None, "modern") else era.MODERN_VERSIONS[0]
        assert version is not None
        state = ModernState(version, dict(negotiation.capabilities), dict(negotiation.client_info))
        protocol.modern = state
        key = None if discovery_identity is None else (protocol.url, version, discovery_identity)
        hit = None if key is None else DISCOVERED.get(key, now)
        if hit is not None:
            state.version, state.discovered = hit
            state.discovery_key = key
            return Negotiated(True, hit[0], hit[1])
        try:
            channel = Channel(protocol, state, next_id, timeout_s)
            params = {"_meta": dict(negotiation.meta)} if negotiation.meta else None
            response = yield from modern_request_flow(channel, "server/discover", params, now=now)
        except McpHttpTransportProtocolError:
            # A 4xx without a JSON-RPC error: a server of the handshake era.
            response = None
        result = response.result if response is not None and response.error is None else None
        spoken = era.discovered_version(result, state.version)
        if spoken is not None:
            assert isinstance(result, dict)
            state.version, state.discovered = spoken, result
            if key is not None:
                DISCOVERED.put(key, spoken, result, now)
                state.discovery_key = key
            return Negotiated(True, spoken, result)
        if pin is not None or (response is not None and era.is_modern_error(response.error)):
            protocol.modern = None
            raise _refused(protocol, response)
        protocol.modern = None
        now = yield from _now()
    return (yield from _handshake(protocol, negotiation, next_id, timeout_s, now))


def _handshake(
    protocol: McpHttpProtocol,
    negotiation: Negotiation,
    next_id: Callable[[], JsonRpcId],
    timeout_s: float,
    now: float,
    *,
    direct: bool = False,
) -> Flow[Negotiated]:
    """``initialize``: POSTed (the HTTP+SSE transport on a 400, 404 or 405), or over the
    HTTP+SSE transport at once (``direct``)."""
    request_id = next_id()
    params = _initialize_params(negotiation)
    payload = build_jsonrpc_request(request_id=request_id, method="initialize", params=params)
    response, stream = yield from initialize_flow(
        protocol,
        protocol.encode(payload),
        request_id=request_id,
        timeout_s=timeout_s,
        now=now,
        direct=direct,
    )
    negotiated = _initialized(protocol, response)
    if stream is not None:
        return Negotiated(False, negotiated.version, negotiated.result, HTTP_SSE)
    return negotiated


def _refused(protocol: McpHttpProtocol, response: JsonRpcResponse | None) -> McpHttpTransportError:
    detail = response.error if response is not None else "no JSON-RPC answer"
    return protocol.error(
        f"the server refused the modern protocol: {detail}", McpHttpTransportProtocolError
    )


def _initialize_params(negotiation: Negotiation) -> dict[str, Any]:
    """The params of ``initialize``: the pinned version, or the newest of the handshake era."""
    pin = negotiation.era
    offered = pin if pin in era.LEGACY_VERSIONS else era.LEGACY_VERSIONS[0]
    params: dict[str, Any] = {
        "protocolVersion": offered,
        "capabilities": dict(negotiation.capabilities),
        "clientInfo": dict(negotiation.client_info),
    }
    if negotiation.meta:
        params["_meta"] = dict(negotiation.meta)
    return params


def _initialized(protocol: McpHttpProtocol, response: JsonRpcResponse | None) -> Negotiated:
    """The handshake era, from the answer to ``initialize`` (its version recorded)."""
    assert response is not None
    if response.error is not None or not isinstance(response.result, dict):
        raise protocol.error(
            f"initialize failed: {protocol.quote(response.error or response.result)}",
            McpHttpTransportProtocolError,
        )
    version = response.result.get("protocolVersion")
    if not isinstance(version, str) or version not in era.LEGACY_VERSIONS:
        raise protocol.error(
            f"the server chose protocol version {protocol.quote(version)}, which this client "
            "does not speak",
            McpHttpTransportProtocolError,
        )
    protocol.set_protocol_version(version)
    return Negotiated(False, version, response.result)
