"""What the command tells a newcomer when the URL or the server is not what it should be, each
against a real server on loopback (the demo server, Python's ``http.server``, a server that
answers a fixed status): one line naming the fault and what to try, and the exit status of
docs/cli.md (2 bad arguments, 3 unreachable, 4 authentication, 1 anything else)."""

from __future__ import annotations

import pytest
from plain_http import fixed_answer, static_site

from .conftest import BEARER_TOKEN, RunCommand


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mcpstream: error: ")
    return lines[0]


def origin(url: str) -> str:
    return url.rsplit("/", 1)[0]


def test_a_url_without_the_endpoint_path_says_so_and_names_the_likely_one(
    mcpstream_cli: RunCommand, demo_url: str
) -> None:
    run = mcpstream_cli("tools", origin(demo_url))
    line = one_line(run.err)
    assert run.status == 1
    assert "no MCP endpoint at this path" in line
    assert f"usually serve at {demo_url}" in line
    assert "HTTP+SSE transport" not in line.partition("no MCP endpoint")[0]
    assert "may only speak" not in line


def test_a_plain_web_server_is_named_as_no_mcp_server_without_its_page(
    mcpstream_cli: RunCommand,
) -> None:
    with static_site() as site:
        run = mcpstream_cli("tools", f"{site}/")
    line = one_line(run.err)
    assert run.status == 1
    assert "not an MCP endpoint" in line
    assert "HTML page ('Error response')" in line
    assert "<" not in line  # no markup quoted


def test_a_long_error_body_is_cut_to_200_characters(mcpstream_cli: RunCommand) -> None:
    with fixed_answer(500, "x" * 5000) as url:
        run = mcpstream_cli("tools", f"{url}/mcp")
    line = one_line(run.err)
    assert run.status == 1
    assert "x" * 200 + "...(truncated)" in line
    assert "x" * 201 not in line


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("http://127.0.0.1:99999/mcp", "port '99999' is not a port number"),
        ("http://127.0.0.1:abc/mcp", "port 'abc' is not a port number"),
        ("http://[::1/mcp", "the server URL is malformed"),
        ("127.0.0.1:8000/mcp", "no http:// or https:// scheme (did you mean http://127.0.0.1"),
        ("ftp://127.0.0.1/mcp", "scheme 'ftp' is not http or https"),
    ],
)
def test_a_malformed_url_is_named_as_such(mcpstream_cli: RunCommand, url: str, named: str) -> None:
    run = mcpstream_cli("tools", url)
    line = one_line(run.err)
    assert run.status == 2
    assert named in line
    assert "unparseable" not in line and "cannot connect" not in line


def test_https_to_an_http_port_is_explained(mcpstream_cli: RunCommand, demo_url: str) -> None:
    run = mcpstream_cli("tools", demo_url.replace("http://", "https://"))
    line = one_line(run.err)
    assert run.status == 3
    assert "the port answered in plain HTTP, not TLS" in line
    assert f"try {demo_url}" in line
    assert "WRONG_VERSION_NUMBER" not in line and "_ssl.c" not in line


def test_a_403_exits_4(mcpstream_cli: RunCommand) -> None:
    with fixed_answer(403, '{"error": "forbidden"}', "application/json") as url:
        bare = mcpstream_cli("tools", f"{url}/mcp")
        with_token = mcpstream_cli("tools", f"{url}/mcp", "--token", "t0ken")
    assert (bare.status, with_token.status) == (4, 4)
    assert "HTTP 403: forbidden; it may want credentials" in one_line(bare.err)
    assert "the credentials given do not allow it" in one_line(with_token.err)


def test_a_refused_token_is_not_told_to_give_one(
    mcpstream_cli: RunCommand, guarded_url: str
) -> None:
    run = mcpstream_cli("tools", guarded_url, "--token", "wrong-" + BEARER_TOKEN)
    line = one_line(run.err)
    assert run.status == 4
    assert "refused the credentials given (HTTP 401): check --token" in line
    assert "--server-id" not in line and "wrong-" not in line
    run = mcpstream_cli("tools", guarded_url)
    line = one_line(run.err)
    assert run.status == 4
    assert "requires authentication (HTTP 401)" in line and "--token" in line
