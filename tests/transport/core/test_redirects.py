"""Redirects (``McpHttpProtocol.redirect_target`` and the flows that follow them): within the
endpoint's origin and keeping the method, as the official SDK's transport; any other is the
answer, a refusal; at most ``MAX_REDIRECTS``; on a fake clock."""

from __future__ import annotations

import pytest
from mcpstream import errors
from mcpstream._http.core import call_flow, delete_flow
from mcpstream._http.core.protocol import MAX_REDIRECTS

from ..fault_server import result, sse
from .script import URL, Answer, Script, json_answer, protocol, resuming, sse_answer


def redirect(location: str, status: int = 307) -> Answer:
    return Answer(status, {"location": location, "content-length": "0"}, [])


def call(script: Script, core: object = None) -> object:
    flow = call_flow(
        core or protocol(), b"{}", method="tools/list", expected_id=1, timeout_s=5.0, now=100.0
    )
    return script.run(flow)


@pytest.mark.parametrize("status", [307, 308])
def test_a_post_follows_a_redirect_within_the_origin(status: int) -> None:
    script = Script(
        [redirect(URL + "/", status), json_answer({"jsonrpc": "2.0", "id": 1, "result": {}})]
    )
    assert call(script).result == {}  # type: ignore[attr-defined]
    assert [r.url for r in script.sent] == [URL, URL + "/"]
    assert script.sent[1].body == b"{}" and script.sent[1].method == "POST"


@pytest.mark.parametrize(
    ("status", "location"),
    [
        (302, "/mcp/"),  # would turn a POST into a GET
        (303, "/mcp/"),
        (307, "http://elsewhere.example/mcp"),  # another host
        (307, "https://127.0.0.1:1/mcp"),  # another port
        (307, ""),
    ],
)
def test_any_other_redirect_of_a_post_is_refused(status: int, location: str) -> None:
    script = Script([redirect(location, status)])
    with pytest.raises(errors.McpHttpTransportError) as caught:
        call(script)
    assert caught.value.status_code == status
    assert len(script.sent) == 1


def test_redirects_are_followed_at_most_max_redirects_times() -> None:
    script = Script([redirect(URL) for _ in range(MAX_REDIRECTS + 1)])
    with pytest.raises(errors.McpHttpTransportError) as caught:
        call(script)
    assert caught.value.status_code == 307
    assert len(script.sent) == MAX_REDIRECTS + 1


def test_a_resumption_get_follows_any_redirect_status_within_the_origin() -> None:
    resumed = sse_answer(sse(result(1, {"v": 2}), id="ev-2"))
    script = Script([redirect(URL + "/", 302), resumed])
    flow = resuming(last_event_id="ev-1", expected_id=1, now=100.0, session_id="s")
    assert script.run(flow).result == {"v": 2}
    assert [(r.method, r.url) for r in script.sent] == [("GET", URL), ("GET", URL + "/")]
    assert script.sent[1].headers["Last-Event-ID"] == "ev-1"


def test_the_delete_follows_a_307_within_the_origin() -> None:
    script = Script([redirect(URL + "/"), Answer(204, {}, [])])
    core = protocol(session_id="s")
    script.run(delete_flow(core, authorization=None, call_timeout_s=5.0))
    assert [(r.method, r.url) for r in script.sent] == [("DELETE", URL), ("DELETE", URL + "/")]


def test_http_to_https_on_the_same_host_is_within_the_origin() -> None:
    core = protocol()
    core.url = "http://mcp.example/mcp"
    script = Script(
        [
            redirect("https://mcp.example/mcp"),
            json_answer({"jsonrpc": "2.0", "id": 1, "result": {}}),
        ]
    )
    assert call(script, core).result == {}  # type: ignore[attr-defined]
    assert script.sent[1].url == "https://mcp.example/mcp"
