"""The rule of a lost session (``McpHttpProtocol.session_lost``) without a server: a 404 to
any request of the session forgets it at once, whichever request it answered; nothing is sent
in it afterwards, and the next ``initialize`` carries no session id."""

from __future__ import annotations

from typing import Any

import pytest
from mcpstream._http.core import (
    ListenStream,
    ReconnectPolicy,
    call_flow,
    delete_flow,
    listen_flow,
    resume_flow,
)
from mcpstream._http.core.relay import Relay
from mcpstream.errors import McpHttpTransportProtocolError, McpHttpTransportSessionExpiredError

from ..fault_server import result
from .script import Answer, Script, dumps, protocol

NOT_FOUND = Answer(404, {"content-type": "application/json"}, [b'{"error": "Session not found"}'])
INITIALIZE = dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})


def post(script: Script, core: Any, method: str, *, expected_id: int | None = 1) -> Any:
    """POST a message of ``method`` (a request with id 1, or a notification)."""
    body = INITIALIZE if method == "initialize" else dumps({"jsonrpc": "2.0", "method": method})
    flow = call_flow(
        core, body, method=method, expected_id=expected_id, timeout_s=5.0, now=script.now
    )
    return script.run(flow)


def answered(headers: dict[str, str] | None = None) -> Answer:
    """A JSON result for the request with id 1."""
    all_headers = {"content-type": "application/json", **(headers or {})}
    return Answer(200, all_headers, [result(1, {}).encode()])


def lost(core: Any) -> None:
    """``core`` in a session "S1" at 2025-11-25 that a 404 to a call lost."""
    with pytest.raises(McpHttpTransportSessionExpiredError):
        post(Script([NOT_FOUND]), core, "tools/call")


@pytest.mark.parametrize(
    ("method", "expected_id"),
    [("tools/call", 1), ("notifications/initialized", None), ("initialize", 1)],
)
def test_a_404_to_a_post_of_the_session_forgets_it(method: str, expected_id: int | None) -> None:
    core = protocol(session_id="S1")
    core.set_protocol_version("2025-11-25")
    script = Script([NOT_FOUND])
    with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
        post(script, core, method, expected_id=expected_id)
    assert script.sent[0].headers["MCP-Session-Id"] == "S1"
    assert not raised.value.request_delivered
    assert (core.session_id, core.protocol_version, core.lost_session) == (None, None, "S1")


def test_nothing_is_sent_in_a_lost_session_until_a_new_one_opens() -> None:
    core = protocol(session_id="S1")
    lost(core)
    script = Script([])
    with pytest.raises(McpHttpTransportSessionExpiredError, match="was not sent") as raised:
        post(script, core, "tools/call")
    assert script.sent == [] and not raised.value.request_delivered
    assert raised.value.status_code == 404
    # The next initialize carries no session id, and its answer opens the new session.
    script = Script([answered({"mcp-session-id": "S2"})])
    post(script, core, "initialize")
    assert "MCP-Session-Id" not in script.sent[0].headers
    assert (core.session_id, core.lost_session) == ("S2", None)
    script = Script([answered()])
    post(script, core, "tools/call")
    assert script.sent[0].headers["MCP-Session-Id"] == "S2"


def test_a_new_session_without_an_id_ends_the_loss_too() -> None:
    core = protocol(session_id="S1")
    lost(core)
    post(Script([answered()]), core, "initialize")
    assert (core.session_id, core.lost_session) == (None, None)
    script = Script([answered()])
    post(script, core, "tools/call")
    assert len(script.sent) == 1


def test_a_late_404_for_a_session_already_replaced_changes_nothing() -> None:
    core = protocol(session_id="S2")
    error = core.status_error(status_code=404, body=b"", method="tools/call", session_id="S1")
    assert isinstance(error, McpHttpTransportSessionExpiredError)
    assert (core.session_id, core.lost_session) == ("S2", None)


def test_a_404_without_a_session_loses_nothing() -> None:
    core = protocol()
    script = Script([NOT_FOUND])
    with pytest.raises(McpHttpTransportProtocolError, match="no MCP endpoint"):
        post(script, core, "initialize")
    assert core.lost_session is None


def test_a_404_to_the_get_stream_forgets_the_session_before_any_call_goes_on() -> None:
    core = protocol(session_id="S1", policy=ReconnectPolicy(max_attempts=1))
    stream = ListenStream(core)
    script = Script([NOT_FOUND])
    flow = listen_flow(stream, call_timeout_s=30)
    script.run(flow)
    assert script.sent[0].headers["MCP-Session-Id"] == "S1"
    assert (core.session_id, core.lost_session) == (None, "S1")


def test_a_404_to_the_delete_forgets_the_session() -> None:
    core = protocol(session_id="S1")
    script = Script([NOT_FOUND])
    script.run(delete_flow(core, authorization=None, call_timeout_s=30))
    assert (core.session_id, core.lost_session) == (None, "S1")


def test_a_delete_answered_otherwise_keeps_the_id() -> None:
    core = protocol(session_id="S1")
    script = Script([Answer(200, {}, [b""])])
    script.run(delete_flow(core, authorization=None, call_timeout_s=30))
    assert (core.session_id, core.lost_session) == ("S1", None)


def test_a_relayed_session_keeps_its_id_as_the_sdks_transport_does() -> None:
    core = protocol(session_id="S1")
    Relay(core)
    script = Script([NOT_FOUND])
    with pytest.raises(McpHttpTransportSessionExpiredError):
        post(script, core, "notifications/initialized", expected_id=None)
    assert (core.session_id, core.lost_session) == ("S1", None)
    script = Script([answered()])
    post(script, core, "tools/call")
    assert script.sent[0].headers["MCP-Session-Id"] == "S1"


def test_a_404_to_the_get_resuming_a_calls_stream_forgets_the_session() -> None:
    core = protocol(session_id="S1")
    flow = resume_flow(
        core, last_event_id="e1", method="tools/call", expected_id=1, timeout_s=5.0, now=100.0
    )
    script = Script([NOT_FOUND])
    with pytest.raises(McpHttpTransportSessionExpiredError) as raised:
        script.run(flow)
    assert raised.value.request_delivered  # the server had the call: it is not sent again
    assert (core.session_id, core.lost_session) == (None, "S1")


def test_a_get_stream_of_a_session_gone_is_not_reopened() -> None:
    core = protocol(session_id="S1")
    stream = ListenStream(core)
    core.session_id = "S2"  # a new session opened meanwhile: it opens a stream of its own
    assert stream.outlived
    script = Script([])
    script.run(listen_flow(stream, call_timeout_s=30))
    assert script.sent == []
    assert not ListenStream(core).outlived
