"""The DELETE that ends a session, without a server."""

from __future__ import annotations

from mcpstream._http.core import delete_flow
from mcpstream._http.core import steps as s

from .script import Answer, Script, failure, protocol


def test_no_session_no_delete() -> None:
    script = Script([])
    script.run(delete_flow(protocol(), authorization=None, call_timeout_s=30))
    assert script.steps == []


def test_the_delete_carries_the_session_and_the_stored_credentials_briefly() -> None:
    core = protocol(session_id="abc")
    core.set_protocol_version("2025-11-25")
    script = Script([Answer(200, {}, [b"bye"])])
    script.run(delete_flow(core, authorization="Bearer stored", call_timeout_s=30))
    delete = script.sent[0]
    assert delete.method == "DELETE" and delete.timeout_s == 2.0
    assert delete.headers["MCP-Session-Id"] == "abc"
    assert delete.headers["MCP-Protocol-Version"] == "2025-11-25"
    assert delete.headers["Authorization"] == "Bearer stored"
    assert isinstance(script.steps[-1], s.ReadSnippet)


def test_a_failed_delete_is_ignored() -> None:
    script = Script([failure()])
    script.run(delete_flow(protocol(session_id="abc"), authorization=None, call_timeout_s=0.5))
    assert script.sent[0].timeout_s == 0.5
