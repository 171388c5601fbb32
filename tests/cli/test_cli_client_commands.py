"""``mcpstream tools|call|ping``, run as a subprocess against the demo server."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from mcpstream.oauth import default_server_id
from mcpstream.oauth_store import McpOAuthTokenRecord, save_oauth_token_record
from transport.helpers import UnansweredPort, free_port

from .conftest import BEARER_TOKEN, RunCommand


def assert_one_error_line(err: str, *fragments: str) -> None:
    """stderr is exactly one ``mcpstream: error:`` line (no traceback) with the fragments."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mcpstream: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_tools_prints_a_table_of_every_tool(mcpstream_cli: RunCommand, demo_url: str) -> None:
    run = mcpstream_cli("tools", demo_url)
    assert run.status == 0, run.err
    # The demo server (the SDK's) speaks both eras: the command negotiates the stateless one.
    assert "mcpstream-demo (modern era, protocol 2026-07-28): 14 tools" in run.out
    assert "big_text" in run.out and "a*: number, b*: number" in run.out


def test_tools_json_is_the_servers_listing(mcpstream_cli: RunCommand, demo_url: str) -> None:
    run = mcpstream_cli("tools", demo_url, "--json")
    assert run.status == 0, run.err
    document = json.loads(run.out)
    assert document["server"]["protocolVersion"] == "2026-07-28"
    assert document["server"]["era"] == "modern"
    assert len(document["tools"]) == 14
    assert {"name", "inputSchema"} <= set(document["tools"][0])


def test_call_takes_key_value_pairs_typed_by_the_tools_schema(
    mcpstream_cli: RunCommand, demo_url: str
) -> None:
    run = mcpstream_cli("call", demo_url, "add", "a=2", "b=3.5")
    assert (run.status, run.out.strip()) == (0, "5.5"), run.err
    # echo's text is a string in its schema: 123 stays the string "123".
    run = mcpstream_cli("call", demo_url, "echo", "text=123")
    assert (run.status, run.out.strip()) == (0, "123"), run.err


def test_call_json_takes_arguments_and_prints_the_result_as_json(
    mcpstream_cli: RunCommand, demo_url: str
) -> None:
    run = mcpstream_cli("call", demo_url, "add", "--json", '{"a": 1, "b": 2}')
    assert run.status == 0, run.err
    result = json.loads(run.out)
    assert result["structuredContent"] == {"result": 3.0}
    assert result["content"][0]["text"] == "3.0"


def test_call_streams_progress_and_prints_the_answer(
    mcpstream_cli: RunCommand, demo_url: str
) -> None:
    run = mcpstream_cli("call", demo_url, "count", "steps=3")
    assert (run.status, run.out.strip()) == (0, "counted to 3"), run.err


def test_a_failing_tool_exits_1_with_one_line(mcpstream_cli: RunCommand, demo_url: str) -> None:
    run = mcpstream_cli("call", demo_url, "fail", "message=boom")
    assert run.status == 1
    assert_one_error_line(run.err, "the tool 'fail' failed")
    run = mcpstream_cli("call", demo_url, "fail", "--json")
    assert run.status == 1 and json.loads(run.out)["isError"] is True


def test_ping_reports_the_round_trip(mcpstream_cli: RunCommand, demo_url: str) -> None:
    run = mcpstream_cli("ping", demo_url, "--count", "2")
    assert run.status == 0, run.err
    assert run.out.count("pong in") == 2
    run = mcpstream_cli("ping", demo_url, "--json")
    document = json.loads(run.out)
    assert document["ok"] is True and len(document["roundTripsMs"]) == 1


def test_connection_refused_exits_3_with_one_line(mcpstream_cli: RunCommand) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    for command in (("tools", url), ("call", url, "echo", "text=x"), ("ping", url, "--json")):
        run = mcpstream_cli(*command)
        assert run.status == 3, run
        assert_one_error_line(run.err, f"cannot connect to {url}", "refused")


def test_debug_shows_the_traceback(mcpstream_cli: RunCommand) -> None:
    run = mcpstream_cli("--debug", "ping", f"http://127.0.0.1:{free_port()}/mcp")
    assert run.status != 0
    assert "Traceback" in run.err


def test_bad_arguments_exit_2(mcpstream_cli: RunCommand, demo_url: str) -> None:
    cases = [
        (("call", demo_url, "add", "a"), "key=value"),
        (("call", demo_url, "add", "--json", "[1]"), "JSON object"),
        (("call", demo_url, "nope", "x=1"), "no tool named 'nope'"),
        (("tools", "ftp://example.com/mcp"), "http:// or https://"),
        (("tools", demo_url, "--header", "no colon"), "--header"),
        (("ping", demo_url, "--timeout", "0"), "--timeout"),
        (("ping", demo_url, "--connect-timeout", "-1"), "--connect-timeout"),
    ]
    for command, fragment in cases:
        run = mcpstream_cli(*command)
        assert run.status == 2, (command, run)
        assert_one_error_line(run.err, fragment)
    run = mcpstream_cli("call", demo_url)  # argparse: the tool is missing
    assert run.status == 2 and "usage:" in run.err and "Traceback" not in run.err


def test_401_exits_4_with_the_login_hint(mcpstream_cli: RunCommand, guarded_url: str) -> None:
    run = mcpstream_cli("tools", guarded_url)
    assert run.status == 4
    assert_one_error_line(run.err, "HTTP 401", f"mcpstream auth login {guarded_url}")
    run = mcpstream_cli("tools", guarded_url, "--token", BEARER_TOKEN)
    assert run.status == 0, run.err
    run = mcpstream_cli("ping", guarded_url, "-H", f"Authorization: Bearer {BEARER_TOKEN}")
    assert run.status == 0, run.err


def test_auth_uses_the_stored_login(
    mcpstream_cli: RunCommand, guarded_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = mcpstream_cli("tools", guarded_url, "--auth")
    assert run.status == 4
    assert_one_error_line(run.err, "mcpstream auth login")
    # The command's token store (see the mcpstream_cli fixture) gets a login for the server.
    monkeypatch.setenv("MCPSTREAM_CONFIG_DIR", str(tmp_path / "config"))
    save_oauth_token_record(
        default_server_id(guarded_url),
        McpOAuthTokenRecord(access_token=BEARER_TOKEN, expires_at=time.time() + 3600),
    )
    run = mcpstream_cli("call", guarded_url, "echo", "text=hi", "--auth")
    assert (run.status, run.out.strip()) == (0, "hi"), run.err


def test_a_call_past_its_timeout_exits_5(mcpstream_cli: RunCommand, demo_url: str) -> None:
    run = mcpstream_cli("call", demo_url, "sleep", "seconds=3", "--timeout", "0.5")
    assert run.status == 5
    assert_one_error_line(run.err, "did not complete within")


def test_connect_timeout_bounds_connecting_only(mcpstream_cli: RunCommand, demo_url: str) -> None:
    with UnansweredPort() as port:
        started = time.monotonic()
        run = mcpstream_cli("ping", port.url, "--connect-timeout", "0.3", timeout_s=20)
        elapsed = time.monotonic() - started
    assert run.status == 5, run
    assert_one_error_line(run.err, "could not connect", "connect timeout of 0.300s")
    assert elapsed < 10  # not the 60 s of the request budget
    # A call that takes longer than the connect timeout is not cut short by it.
    run = mcpstream_cli("call", demo_url, "sleep", "seconds=0.5", "--connect-timeout", "0.1")
    assert run.status == 0, run.err
