"""The rules of the stateless era (2026-07-28) without a server: the header value encoding, the
``x-mcp-header`` annotations, the negotiation of the era, and multi-round-trip results, driven
by the scripted driver on a fake clock."""

from __future__ import annotations

import itertools
import json
import logging
from typing import Any

import pytest
from mcpstream import errors
from mcpstream._eras import Negotiation
from mcpstream._http.core import era
from mcpstream._http.core.modern import (
    Channel,
    modern_request_flow,
    negotiate_flow,
)
from mcpstream._http.core.protocol import ModernState
from mcpstream.jsonrpc import JsonRpcRequest

from .script import Answer, Script, json_answer, protocol

CAPS = {"elicitation": {"form": {}}, "roots": None}
INFO = {"name": "t", "version": "1"}


# -- header values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "header"),
    [
        ("us-west1", "us-west1"),
        ("us west 1", "us west 1"),
        ("Hello, \u4e16\u754c", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("line1\r\nline2", "=?base64?bGluZTENCmxpbmUy?="),
        ("\tindented", "=?base64?CWluZGVudGVk?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
    ],
)
def test_header_values_are_plain_or_base64_as_the_spec_says(value: str, header: str) -> None:
    assert era.encode_header_value(value) == header


def test_param_headers_mirror_primitives_and_omit_null_and_missing() -> None:
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "nested": {
                "type": "object",
                "properties": {"id": {"type": "string", "x-mcp-header": "Id"}},
            },
            "gone": {"type": "string", "x-mcp-header": "Gone"},
            "float": {"type": "number"},
        },
    }
    paths = era.tool_header_paths(schema)
    arguments = {
        "region": "eu",
        "priority": 42,
        "verbose": None,
        "nested": {"id": "x"},
        "float": 1.5,
    }
    assert era.param_headers(paths, arguments) == {
        "Mcp-Param-Region": "eu",
        "Mcp-Param-Priority": "42",
        "Mcp-Param-Id": "x",
    }
    assert era.param_headers(paths, {"verbose": False}) == {"Mcp-Param-Verbose": "false"}


@pytest.mark.parametrize(
    ("prop", "where"),
    [
        ({"type": "string", "x-mcp-header": ""}, "properties"),
        ({"type": "string", "x-mcp-header": "My Region"}, "properties"),
        ({"type": "string", "x-mcp-header": "R\u00e9gion"}, "properties"),
        ({"type": "string", "x-mcp-header": "a:b"}, "properties"),
        ({"type": "number", "x-mcp-header": "N"}, "properties"),
        ({"type": "object", "x-mcp-header": "O"}, "properties"),
        ({"type": "string", "x-mcp-header": "I"}, "items"),
        ({"type": "string", "x-mcp-header": "A"}, "anyOf"),
    ],
)
def test_invalid_annotations_are_refused(prop: dict[str, Any], where: str) -> None:
    if where == "properties":
        schema: dict[str, Any] = {"type": "object", "properties": {"p": prop}}
    elif where == "items":
        schema = {"type": "object", "properties": {"p": {"type": "array", "items": prop}}}
    else:
        schema = {"type": "object", "anyOf": [{"properties": {"p": prop}}]}
    with pytest.raises(era.InvalidToolHeaders):
        era.tool_header_paths(schema)


def test_duplicate_annotations_ignoring_case_leave_the_tool_out_with_a_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bad = {
        "name": "dup",
        "inputSchema": {
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "REGION"},
            }
        },
    }
    good = {"name": "ok", "inputSchema": {"properties": {"a": {"type": "string"}}}}
    with caplog.at_level(logging.WARNING, logger="mcpstream.transport"):
        kept, annotated = era.filter_tools([bad, good])
    assert kept == [good] and annotated == {}
    assert "'dup'" in caplog.text


# -- negotiation -------------------------------------------------------------------------------


def discover_ok(request_id: int = 1, versions: tuple[str, ...] = ("2026-07-28",)) -> Answer:
    return json_answer(
        {"jsonrpc": "2.0", "id": request_id, "result": {"supportedVersions": list(versions)}}
    )


def initialize_ok(request_id: int) -> Answer:
    result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": INFO}
    return json_answer({"jsonrpc": "2.0", "id": request_id, "result": result})


def negotiate(script: Script, core: Any, pin: str | None = None) -> Any:
    ids = itertools.count(1)
    flow = negotiate_flow(
        core,
        Negotiation(CAPS, INFO, pin),
        next_id=lambda: next(ids),
        timeout_s=5.0,
        now=script.now,
    )
    return script.run(flow)


def bodies(script: Script) -> list[dict[str, Any]]:
    return [json.loads(request.body) for request in script.sent if request.body]


def test_a_modern_server_is_spoken_to_in_2026_with_meta_and_headers() -> None:
    core = protocol(session_id="stale")
    script = Script([discover_ok()])
    negotiated = negotiate(script, core)
    assert (negotiated.modern, negotiated.version) == (True, "2026-07-28")
    (sent,) = script.sent
    assert sent.headers["MCP-Protocol-Version"] == "2026-07-28"
    assert sent.headers["Mcp-Method"] == "server/discover"
    assert "MCP-Session-Id" not in sent.headers
    meta = bodies(script)[0]["params"]["_meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientCapabilities"] == {
        "elicitation": {"form": {}},
        "roots": {},
    }
    assert meta["io.modelcontextprotocol/clientInfo"] == INFO
    assert core.modern is not None and core.modern.discovered == {
        "supportedVersions": ["2026-07-28"]
    }


def test_an_unsupported_version_is_retried_once_with_one_both_speak() -> None:
    refusal = {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32022, "message": "no", "data": {"supported": ["2026-07-28"]}},
    }
    script = Script([json_answer(refusal, status=400), discover_ok(2)])
    core = protocol()
    assert negotiate(script, core, pin="2026-07-28").modern
    ids = [body["id"] for body in bodies(script)]
    assert ids == [1, 2]


@pytest.mark.parametrize(
    "refusal",
    [
        Answer(400, {"content-type": "text/plain"}, [b"Missing MCP-Protocol-Version header"]),
        json_answer({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "x"}}, 400),
        json_answer({"jsonrpc": "2.0", "id": 1, "result": {"something": "else"}}),
    ],
)
def test_a_refusal_that_is_not_a_modern_error_falls_back_to_initialize(refusal: Answer) -> None:
    core = protocol()
    script = Script([refusal, initialize_ok(2)])
    negotiated = negotiate(script, core)
    assert (negotiated.modern, negotiated.version) == (False, "2025-11-25")
    assert [body["method"] for body in bodies(script)] == ["server/discover", "initialize"]
    assert core.modern is None and core.protocol_version == "2025-11-25"


def test_a_pinned_handshake_era_sends_initialize_at_once() -> None:
    script = Script([initialize_ok(1)])
    assert not negotiate(script, protocol(), pin="legacy").modern
    assert [body["method"] for body in bodies(script)] == ["initialize"]


def test_a_pinned_modern_era_does_not_fall_back() -> None:
    script = Script([Answer(400, {"content-type": "text/plain"}, [b"no"])])
    with pytest.raises(errors.McpHttpTransportProtocolError, match="modern"):
        negotiate(script, protocol(), pin="modern")


# -- multi-round-trip results ------------------------------------------------------------------


def modern_core(**kwargs: Any) -> Any:
    core = protocol(**kwargs)
    core.modern = ModernState("2026-07-28", dict(CAPS), dict(INFO), max_rounds=2)
    return core


def call(script: Script, core: Any, method: str = "tools/call", params: Any = None) -> Any:
    ids = itertools.count(1)
    params = params if params is not None else {"name": "t", "arguments": {"a": 1}}
    channel = Channel(core, core.modern, lambda: next(ids), 5.0)
    flow = modern_request_flow(channel, method, params, now=script.now)
    return script.run(flow)


STATE = '{"nonce": "x",  "spaced":  true}'
ASK = {"method": "elicitation/create", "params": {"message": "name?", "requestedSchema": {}}}


def input_required(request_id: int, state: str | None) -> Answer:
    result: dict[str, Any] = {"resultType": "input_required", "inputRequests": {"q": ASK}}
    if state is not None:
        result["requestState"] = state
    return json_answer({"jsonrpc": "2.0", "id": request_id, "result": result})


def complete(request_id: int) -> Answer:
    return json_answer({"jsonrpc": "2.0", "id": request_id, "result": {"content": []}})


def handler(request: JsonRpcRequest) -> Any:
    return {"action": "accept", "content": {"name": request.id}}


def test_input_required_is_answered_and_retried_with_the_exact_state_and_a_new_id() -> None:
    script = Script(
        [input_required(1, STATE), input_required(2, None), complete(3)], handler=handler
    )
    response = call(script, modern_core(has_handler=True))
    assert response.result == {"content": []}
    first, second, third = bodies(script)
    assert [first["id"], second["id"], third["id"]] == [1, 2, 3]
    assert "inputResponses" not in first["params"]
    assert second["params"]["inputResponses"] == {
        "q": {"action": "accept", "content": {"name": "q"}}
    }
    assert second["params"]["requestState"] == STATE  # byte for byte
    assert "requestState" not in third["params"]  # the second round sent none
    assert third["params"]["arguments"] == {"a": 1}


def test_rounds_are_bounded() -> None:
    answers = [input_required(n, STATE) for n in (1, 2, 3)]
    script = Script(answers, handler=handler)
    with pytest.raises(errors.McpHttpTransportProtocolError, match="2 rounds"):
        call(script, modern_core(has_handler=True))


def test_input_required_without_a_handler_is_an_error() -> None:
    with pytest.raises(errors.McpHttpTransportProtocolError, match="no handler"):
        call(Script([input_required(1, None)]), modern_core())


def test_a_header_mismatch_lists_the_tools_again_and_retries_once() -> None:
    mismatch = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32020, "message": "header"}}
    tool = {
        "name": "t",
        "inputSchema": {"properties": {"a": {"type": "integer", "x-mcp-header": "A"}}},
    }
    listing = json_answer({"jsonrpc": "2.0", "id": 2, "result": {"tools": [tool]}})
    script = Script([json_answer(mismatch, 400), listing, complete(3)])
    assert call(script, modern_core()).result == {"content": []}
    assert [body["method"] for body in bodies(script)] == ["tools/call", "tools/list", "tools/call"]
    assert "Mcp-Param-A" not in script.sent[0].headers
    assert script.sent[2].headers["Mcp-Param-A"] == "1"
    assert script.sent[2].headers["Mcp-Name"] == "t"


def test_list_results_are_cached_for_their_ttl_and_private_ones_per_authorization() -> None:
    page = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"tools": [], "ttlMs": 60_000, "cacheScope": "private"},
    }
    core = modern_core()
    script = Script([json_answer(page)])
    ids = itertools.count(1)

    def listing(key: str) -> Any:
        channel = Channel(core, core.modern, lambda: next(ids), 5.0)
        flow = modern_request_flow(channel, "tools/list", None, now=script.now, cache_key=key)
        return script.run(flow)

    assert listing("Bearer a").result["tools"] == []
    assert listing("Bearer a").result["tools"] == []  # from the cache: nothing sent
    assert len(script.sent) == 1
    script.answers.append(json_answer({**page, "id": 2}))
    listing("Bearer b")  # another authorization never sees the private entry
    assert len(script.sent) == 2
