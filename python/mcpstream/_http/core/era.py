"""The rules of the stateless protocol era (MCP 2026-07-28), free of I/O and state.

* versions: which are modern (per-request ``_meta``, no session) and which legacy (the
  ``initialize`` handshake), and which one to speak from a server's list;
* request metadata: the ``_meta`` every modern request carries, and the HTTP headers that mirror
  the body (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*``) with the
  spec's value encoding (``=?base64?...?=``);
* ``x-mcp-header`` annotations of tools: read, validated (invalid tools are left out of
  ``tools/list``), and turned into headers for a call's arguments;
* modern errors: which JSON-RPC error codes identify a modern server (an HTTP 400 with another
  body means a legacy one);
* multi-round-trip results (SEP-2322): ``resultType``, ``input_required`` and the retry's params;
* the caching hints of results (``ttlMs``, ``cacheScope``).
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..._eras import LEGACY_VERSIONS, MODERN_VERSIONS
from ..._text import sanitize

__all__ = [
    "HEADER_MISMATCH",
    "LEGACY_VERSIONS",
    "MODERN_ERROR_CODES",
    "MODERN_VERSIONS",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "InputRequired",
    "InvalidToolHeaders",
    "choose_version",
    "encode_header_value",
    "filter_tools",
    "input_required",
    "is_modern",
    "is_modern_error",
    "jsonrpc_error",
    "param_headers",
    "request_headers",
    "retry_params",
    "stamp_meta",
    "tool_header_paths",
]

logger = logging.getLogger("mcpstream.transport")

META_PREFIX = "io.modelcontextprotocol/"
META_PROTOCOL_VERSION = META_PREFIX + "protocolVersion"
META_CLIENT_CAPABILITIES = META_PREFIX + "clientCapabilities"
META_CLIENT_INFO = META_PREFIX + "clientInfo"

UNSUPPORTED_PROTOCOL_VERSION = -32022
HEADER_MISMATCH = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
MODERN_ERROR_CODES = frozenset({UNSUPPORTED_PROTOCOL_VERSION, HEADER_MISMATCH, -32021})
"""JSON-RPC error codes that only a modern server sends (in a 400): the protocol's own range."""

MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
"""The methods whose results may be ``input_required`` (SEP-2322)."""
NAMED_METHODS = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    # The tasks extension: its requests name their task, so that intermediaries route them to
    # the instance holding it (a MUST of io.modelcontextprotocol/tasks).
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
"""The methods whose ``Mcp-Name`` header mirrors a param, and which param."""

_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_SAFE_INTEGER = 2**53 - 1


def is_modern(version: str | None) -> bool:
    """True for a version of the stateless era (per-request metadata, no session)."""
    return version is not None and version >= MODERN_VERSIONS[-1]


def choose_version(supported: Iterable[Any], *, modern_only: bool = False) -> str | None:
    """The newest version of ``supported`` this client speaks too (None when none is)."""
    offered = {value for value in supported if isinstance(value, str)}
    ours = MODERN_VERSIONS if modern_only else MODERN_VERSIONS + LEGACY_VERSIONS
    return next((version for version in ours if version in offered), None)


def discovered_version(result: Any, asked: str) -> str | None:
    """The modern version to speak after a ``server/discover`` ``result``: ``asked`` when the
    server lists it, else the newest modern one both speak; None when the answer is no
    ``DiscoverResult`` (a server of the handshake era answering anything with a result)."""
    supported = result.get("supportedVersions") if isinstance(result, Mapping) else None
    if not isinstance(supported, list):
        return None
    if asked in supported:
        return asked
    return choose_version(supported, modern_only=True)


# -- request metadata ------------------------------------------------------------------------------


def stamp_meta(
    params: Any, *, version: str, capabilities: Mapping[str, Any], client_info: Mapping[str, Any]
) -> dict[str, Any]:
    """``params`` (an object or None) with the modern ``_meta`` fields added; the host's own
    ``_meta`` entries are kept. Each declared capability is sent as an object."""
    stamped = dict(params) if isinstance(params, Mapping) else {}
    meta = dict(stamped.get("_meta") or {})
    meta[META_PROTOCOL_VERSION] = version
    meta[META_CLIENT_CAPABILITIES] = {
        name: dict(value) if isinstance(value, Mapping) else {}
        for name, value in capabilities.items()
    }
    meta[META_CLIENT_INFO] = dict(client_info)
    stamped["_meta"] = meta
    return stamped


def encode_header_value(value: str) -> str:
    """``value`` as an HTTP header value: as it is when it is visible ASCII with inner spaces,
    else (non-ASCII, controls, tabs, CR/LF, edge spaces, or a value that looks encoded)
    ``=?base64?<UTF-8 base64>?=``."""
    plain = (
        value != ""
        and all(0x20 <= ord(char) <= 0x7E for char in value)
        and value == value.strip(" ")
        and not (value.startswith("=?base64?") and value.endswith("?="))
    )
    if plain:
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def _header_text(value: Any) -> str | None:
    """A parameter's value as header text: strings as they are, booleans and integers as JSON
    text; None (no header) for null and everything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    return None


def request_headers(
    method: str, params: Any, *, version: str, tool_paths: Mapping[str, HeaderPaths]
) -> dict[str, str]:
    """The headers that mirror a modern request's body: the version, the method, the name of a
    named method, and a tool call's annotated arguments (``tool_paths``: by tool name)."""
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": method}
    key = NAMED_METHODS.get(method)
    if key is None or not isinstance(params, Mapping):
        return headers
    name = params.get(key)
    if isinstance(name, str):
        headers["Mcp-Name"] = encode_header_value(name)
    if method == "tools/call" and isinstance(name, str) and name in tool_paths:
        headers.update(param_headers(tool_paths[name], params.get("arguments")))
    return headers


# -- x-mcp-header annotations ---------------------------------------------------------------------

HeaderPaths = dict[tuple[str, ...], str]
"""The annotated properties of a tool's ``inputSchema``: property path -> header name part."""


class InvalidToolHeaders(ValueError):
    """A tool's ``x-mcp-header`` annotations break the spec's constraints (the reason)."""


_NESTING_KEYWORDS = (
    "items",
    "prefixItems",
    "additionalProperties",
    "patternProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
    "dependentSchemas",
    "contains",
)


def tool_header_paths(input_schema: Any) -> HeaderPaths:
    """The ``x-mcp-header`` annotations of ``input_schema``; raises ``InvalidToolHeaders``
    when one is invalid (empty, not a token, duplicate ignoring case, on a non-primitive or
    ``number`` property, or not reachable from the root by ``properties`` alone)."""
    paths: HeaderPaths = {}
    if isinstance(input_schema, Mapping):
        _walk(input_schema, (), paths, reachable=True)
    seen: set[str] = set()
    for name in paths.values():
        if name.lower() in seen:
            raise InvalidToolHeaders(f"x-mcp-header {name!r} is used twice (ignoring case)")
        seen.add(name.lower())
    return paths


def _walk(
    schema: Mapping[str, Any], path: tuple[str, ...], paths: HeaderPaths, *, reachable: bool
) -> None:
    if "x-mcp-header" in schema:
        _annotation(schema, path, paths, reachable=reachable)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():
            if isinstance(sub, Mapping):
                _walk(sub, (*path, str(key)), paths, reachable=reachable)
    for keyword in _NESTING_KEYWORDS:
        value = schema.get(keyword)
        subs = value if isinstance(value, list) else [value]
        if keyword in ("$defs", "definitions", "patternProperties", "dependentSchemas"):
            subs = list(value.values()) if isinstance(value, Mapping) else []
        for sub in subs:
            if isinstance(sub, Mapping):
                _walk(sub, path, paths, reachable=False)


def _annotation(
    schema: Mapping[str, Any], path: tuple[str, ...], paths: HeaderPaths, *, reachable: bool
) -> None:
    name = schema["x-mcp-header"]
    if not isinstance(name, str) or not name:
        raise InvalidToolHeaders("an x-mcp-header is empty or not a string")
    if not _TOKEN.match(name):
        raise InvalidToolHeaders(f"x-mcp-header {name!r} is not an HTTP token")
    if not reachable or not path:
        raise InvalidToolHeaders(
            f"x-mcp-header {name!r} is not on a property reachable through 'properties' alone"
        )
    kind = schema.get("type")
    if kind not in ("string", "integer", "boolean"):
        raise InvalidToolHeaders(
            f"x-mcp-header {name!r} is on a property of type {kind!r} (string, integer or "
            "boolean only)"
        )
    paths[path] = name


def param_headers(paths: HeaderPaths, arguments: Any) -> dict[str, str]:
    """The ``Mcp-Param-*`` headers of a call's ``arguments`` (none for a missing or null
    value, or one of a type the header cannot carry)."""
    headers: dict[str, str] = {}
    for path, name in paths.items():
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE_INTEGER:
            continue
        text = _header_text(value)
        if text is not None:
            headers[f"Mcp-Param-{name}"] = encode_header_value(text)
    return headers


def filter_tools(tools: Any) -> tuple[list[Any], dict[str, HeaderPaths]]:
    """The tools of a ``tools/list`` page without those whose annotations are invalid (each
    logged), and the header paths of the annotated ones."""
    kept: list[Any] = []
    annotated: dict[str, HeaderPaths] = {}
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, Mapping):
            kept.append(tool)
            continue
        try:
            paths = tool_header_paths(tool.get("inputSchema"))
        except InvalidToolHeaders as exc:
            name = sanitize(repr(tool.get("name")))
            logger.warning("tools/list: leaving out the tool %s: %s", name, sanitize(exc))
            continue
        if paths and isinstance(tool.get("name"), str):
            annotated[tool["name"]] = paths
        kept.append(tool)
    return kept, annotated


# -- errors ----------------------------------------------------------------------------------------


def jsonrpc_error(body: bytes) -> dict[str, Any] | None:
    """The error object of a body that is a JSON-RPC error response (None for anything else)."""
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    error = message.get("error")
    if not isinstance(error, dict) or not isinstance(error.get("code"), int):
        return None
    return error


def is_modern_error(error: Mapping[str, Any] | None) -> bool:
    """True for an error only a modern server sends (one of ``MODERN_ERROR_CODES``); any other
    answer to a modern request identifies a server of the handshake era."""
    return error is not None and error.get("code") in MODERN_ERROR_CODES


def supported_versions(error: Mapping[str, Any]) -> list[Any]:
    """The ``supported`` list of an ``UnsupportedProtocolVersionError`` (empty when none)."""
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, Mapping) else None
    return list(supported) if isinstance(supported, list) else []


# -- multi-round-trip results ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InputRequired:
    """An ``input_required`` result: the server's requests (key -> ``{method, params}``) and
    its ``requestState``, exactly as it came (None when it sent none)."""

    requests: dict[str, dict[str, Any]]
    request_state: str | None


def input_required(method: str, result: Any) -> InputRequired | None:
    """The input a result asks for, when it is an ``input_required`` result of a method that
    may have one; None for a complete result (``resultType`` absent means complete)."""
    if method not in MRTR_METHODS or not isinstance(result, Mapping):
        return None
    if result.get("resultType") != "input_required":
        return None
    raw = result.get("inputRequests")
    requests = {
        str(key): dict(value)
        for key, value in (raw.items() if isinstance(raw, Mapping) else ())
        if isinstance(value, Mapping) and isinstance(value.get("method"), str)
    }
    state = result.get("requestState")
    return InputRequired(requests, state if isinstance(state, str) else None)


def retry_params(params: Any, responses: Mapping[str, Any], request_state: str | None) -> Any:
    """The params of the retry of an ``input_required`` request: the original ones with
    ``inputResponses`` and the ``requestState`` (left out when the server sent none)."""
    retried = {
        key: value
        for key, value in (params.items() if isinstance(params, Mapping) else ())
        if key not in ("inputResponses", "requestState")
    }
    retried["inputResponses"] = dict(responses)
    if request_state is not None:
        retried["requestState"] = request_state
    return retried


# -- caching hints ---------------------------------------------------------------------------------


def cache_hint(result: Any) -> tuple[float, bool] | None:
    """A result's caching hint: (seconds it stays fresh, True when private to the
    authorization); None when it may not be cached (no ``ttlMs`` or 0)."""
    if not isinstance(result, Mapping):
        return None
    ttl_ms = result.get("ttlMs")
    if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int | float) or ttl_ms <= 0:
        return None
    return ttl_ms / 1000.0, result.get("cacheScope") != "public"
