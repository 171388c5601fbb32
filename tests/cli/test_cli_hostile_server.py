"""The command against a hand-made MCP server whose strings are hostile (issue 11, class 6):
rich markup and terminal escape sequences in names, descriptions, results and errors are shown
literally and harmlessly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.hostile.server import Connection, HostileServer

from .conftest import RunCommand

ESC_TITLE = "\x1b]0;pwned\x07"
ESC_CLEAR = "\x1b[2J\x1b[H"
HOSTILE_NAME = "[/]"
HOSTILE_DESCRIPTION = f"[bold red]fake[/] {ESC_TITLE}hidden{ESC_CLEAR} \x9b31m"


def _result(request_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": f"[link=file:///etc]evil{ESC_TITLE}", "version": "[/]1"},
        }
    if method == "tools/list":
        tool = {"name": HOSTILE_NAME, "description": HOSTILE_DESCRIPTION, "inputSchema": {}}
        schema = {"type": "object", "properties": {"[x]": {"type": "string"}}}
        return {"tools": [tool, {"name": f"t{ESC_CLEAR}", "inputSchema": schema}]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": f"ok {ESC_TITLE}{ESC_CLEAR}[/] done"}]}
    return {}


def _mcp(connection: Connection) -> None:
    if connection.method != "POST":
        connection.respond(b"", status="405 Method Not Allowed")
        return
    message = json.loads(connection.body)
    if "id" not in message:
        connection.respond(b"", status="202 Accepted")
        return
    if message["method"] == "tools/call" and message["params"]["name"] == "fail":
        error = {"code": -32000, "message": f"boom {ESC_TITLE}[/]{ESC_CLEAR}"}
        connection.json({"jsonrpc": "2.0", "id": message["id"], "error": error})
        return
    result = _result(message["id"], message["method"], message.get("params") or {})
    connection.json({"jsonrpc": "2.0", "id": message["id"], "result": result})


@pytest.fixture
def hostile_mcp() -> Iterator[str]:
    with HostileServer({"/mcp": _mcp}) as server:
        yield f"{server.url}/mcp"


def _assert_harmless(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "Traceback" not in text


def test_tools_prints_hostile_names_literally(mcpstream_cli: RunCommand, hostile_mcp: str) -> None:
    run = mcpstream_cli("tools", hostile_mcp)
    assert run.status == 0, run.err
    _assert_harmless(run.out + run.err)
    assert HOSTILE_NAME in run.out
    assert "[bold red]fake[/]" in run.out
    assert "[link=file:///etc]evil" in run.out


def test_ping_prints_a_hostile_server_name_literally(
    mcpstream_cli: RunCommand, hostile_mcp: str
) -> None:
    run = mcpstream_cli("ping", hostile_mcp)
    assert run.status == 0, run.err
    _assert_harmless(run.out + run.err)
    assert "[link=file:///etc]evil" in run.out


def test_call_prints_a_hostile_result_and_error_harmlessly(
    mcpstream_cli: RunCommand, hostile_mcp: str
) -> None:
    run = mcpstream_cli("call", hostile_mcp, "[/]")
    assert run.status == 0, run.err
    _assert_harmless(run.out + run.err)
    assert "[/] done" in run.out
    failed = mcpstream_cli("call", hostile_mcp, "fail")
    assert failed.status != 0
    _assert_harmless(failed.out + failed.err)
    assert "boom" in failed.err


@pytest.mark.parametrize(
    "option",
    [
        ["--header", "X-Api-Key: sk-live-SECRET123\r\nX-Injected: 1"],
        ["--header", "sk-live-SECRET123"],
        ["--token", "sk-live-SECRET123\nmore"],
    ],
)
def test_a_malformed_secret_option_is_refused_without_quoting_it(
    mcpstream_cli: RunCommand, hostile_mcp: str, option: list[str]
) -> None:
    run = mcpstream_cli("tools", hostile_mcp, *option)
    assert run.status != 0
    assert "SECRET123" not in run.out + run.err
    assert "Traceback" not in run.err
