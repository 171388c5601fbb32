"""The public surface: a drop-in for the reference transport, and the small pieces around it."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from mcpstream import errors, transport_http
from mcpstream.models import McpOAuthConfig, ResolvedMcpServer
from mcpstream.redaction import body_snippet, redact_url
from mcpstream.server_requests import McpServerRequestContext
from mcpstream.transport_http import AsyncMcpHttpTransport, McpHttpTransport, ReconnectPolicy

from .conftest import EventLoopThread
from .reference_api import MANIFEST, REFERENCE, ReferenceApi, extract, load

ERROR_CLASSES = [
    "McpHttpTransportError",
    "McpHttpTransportTimeoutError",
    "McpHttpTransportProtocolError",
    "McpHttpTransportRemoteError",
    "McpHttpTransportAuthRequiredError",
    "McpHttpTransportSessionExpiredError",
]
# The reference's API facts, from the committed manifest: present in every checkout, unlike the
# reference itself.
REFERENCE_API = load()


def test_the_manifest_is_what_the_reference_says() -> None:
    """The committed manifest is the reference's API, as written by ``reference_api --write``.

    In every checkout: the file is exactly what the writer renders (so not edited by hand), its
    error classes are the ones these tests check, each below the root error class, and its
    transport entry has constructor keywords, methods and properties, public and none both a
    method and a property. With the reference beside the checkout, also: the manifest equals what
    the extractor reads from the reference today, so a change there fails here until the manifest
    is rewritten. Without the reference (a fresh clone) that comparison cannot be made, and the
    checks above are what the manifest can be held to on its own; the checkouts that have the
    reference (where the manifest is written) make the comparison.
    """
    text = MANIFEST.read_text(encoding="utf-8")
    manifest = ReferenceApi.from_json(text)
    assert manifest.to_json() == text
    assert list(manifest.errors) == ERROR_CLASSES
    root = ERROR_CLASSES[0]
    assert all(root in manifest.errors[name].bases for name in ERROR_CLASSES[1:])
    transport = manifest.transport
    assert transport.constructor_keywords and transport.methods and transport.properties
    names = [*transport.methods, *transport.properties]
    assert len(set(names)) == len(names)
    assert not [name for name in names if name.startswith("_")]
    if REFERENCE.exists():
        assert extract(REFERENCE.read_text(encoding="utf-8")) == manifest


def test_the_transport_has_the_reference_constructor_keywords_methods_and_properties() -> None:
    reference = REFERENCE_API.transport
    keywords = list(reference.constructor_keywords)
    ours = inspect.signature(McpHttpTransport.__init__).parameters
    assert keywords == list(ours)[1 : len(keywords) + 1]
    for name in reference.properties:
        assert isinstance(inspect.getattr_static(McpHttpTransport, name), property), name
    for name, parameters in reference.methods.items():
        method = inspect.getattr_static(McpHttpTransport, name)
        assert not isinstance(method, property), name
        assert list(inspect.signature(method).parameters)[1:] == list(parameters), name


def test_the_async_transport_has_the_same_api_with_coroutines() -> None:
    # Every public name of the sync class, inherited ones included.
    names = [name for name in dir(McpHttpTransport) if not name.startswith("_")] + ["__init__"]
    for name in names:
        attribute = inspect.getattr_static(McpHttpTransport, name)
        ours = inspect.getattr_static(AsyncMcpHttpTransport, name)
        if isinstance(attribute, property):
            assert isinstance(ours, property), name
            continue
        assert list(inspect.signature(ours).parameters) == list(
            inspect.signature(attribute).parameters
        ), name
        coroutine = name in (
            "request",
            "send_notification",
            "negotiate",
            "close",
            "listen_for_resources",
        )
        assert inspect.iscoroutinefunction(ours) == coroutine, name


@pytest.mark.parametrize("name", ERROR_CLASSES)
def test_error_classes_have_the_reference_bases_codes_and_retryability(name: str) -> None:
    reference = REFERENCE_API.errors[name]
    ours = getattr(errors, name)
    assert tuple(base.__name__ for base in ours.__bases__) == reference.bases
    for attribute, value in reference.constants.items():
        # The type too: ``retryable`` must be ``False``, not a ``0`` that equals it.
        assert (type(getattr(ours, attribute)), getattr(ours, attribute)) == (type(value), value)
    assert getattr(transport_http, name) is ours


def test_the_error_tree_gives_every_transport_error_a_code_and_retryability() -> None:
    for name in ERROR_CLASSES:
        error_class = getattr(errors, name)
        assert issubclass(error_class, errors.McpTransportError)
        assert isinstance(error_class.error_code, str)
        assert isinstance(error_class.retryable, bool)
    assert errors.McpHttpTransportTimeoutError.retryable is True
    assert issubclass(errors.McpHttpTransportTimeoutError, errors.McpTimeoutError)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://user:pw@example.com:8443/mcp?key=s#f", "https://example.com:8443/mcp"),
        ("http://example.com", "http://example.com/"),
        ("http://[::1]:9000/a/b?x=1", "http://[::1]:9000/a/b"),
        ("http://example.com:bad/", "<unparseable URL>"),
    ],
)
def test_urls_are_redacted_to_scheme_host_port_and_path(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_body_snippets_are_stripped_and_cut() -> None:
    assert body_snippet("  short \n") == "short"
    assert body_snippet("x" * 1001) == "x" * 1000 + "...(truncated)"


def test_the_reconnect_policy_prefers_the_server_retry_and_else_backs_off() -> None:
    policy = ReconnectPolicy(initial_delay_s=0.5, multiplier=2.0, max_delay_s=3.0)
    assert policy.delay_s(attempt=4, retry_ms=250) == 0.25
    assert [policy.delay_s(attempt=n, retry_ms=None) for n in (1, 2, 3, 4)] == [
        0.5,
        1.0,
        2.0,
        3.0,
    ]


def test_a_resolved_server_is_frozen_and_its_repr_hides_secrets() -> None:
    headers = {"Authorization": "Bearer s3cret"}
    server = ResolvedMcpServer(
        id="s",
        url="https://u:p@h/mcp?token=s3cret",
        headers=headers,
        oauth=McpOAuthConfig(client_id="c", scopes=["a", "b"]),  # type: ignore[arg-type]
    )
    headers["Authorization"] = "changed"
    assert server.headers["Authorization"] == "Bearer s3cret"
    assert server.oauth is not None and server.oauth.scopes == ("a", "b")
    assert "s3cret" not in repr(server) and "u:p" not in repr(server)
    with pytest.raises(AttributeError):
        server.url = "x"  # type: ignore[misc]
    with pytest.raises(ValueError, match="call_timeout_s"):
        ResolvedMcpServer(id="s", url="http://h/", call_timeout_s=0)


def test_a_transport_without_context_gives_its_handler_one_naming_the_server(
    tmp_path: Path,
) -> None:
    transport = McpHttpTransport(
        server=ResolvedMcpServer(id="srv", url="http://127.0.0.1:9/mcp"), workspace_root=tmp_path
    )
    try:
        context = transport._context
        assert isinstance(context, McpServerRequestContext)
        assert context.server_id == "srv"
        assert context.workspace_root == tmp_path.resolve()
        assert transport.workspace_root == tmp_path.resolve()
        assert transport.stderr_tail() == ""
        assert transport.drain_notifications() == ()
        transport.set_negotiated_protocol_version("  ")
        assert transport.negotiated_protocol_version is None
    finally:
        transport.close()


class AsyncHandler:
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def handle_request(
        self, *, context: McpServerRequestContext, method: str, request_id: Any, params: Any
    ) -> Any:
        await asyncio.sleep(0.01)
        self.seen.append(method)
        return {"action": "accept", "content": {"name": "Grace"}}


def test_the_async_transport_awaits_an_async_handler_and_serves_many_sessions_in_one_loop(
    mcp_server_urls: dict[str, str], event_loop_thread: EventLoopThread, tmp_path: Path
) -> None:
    async def one_session(index: int, handler: AsyncHandler) -> list[str]:
        server = ResolvedMcpServer(id=f"s{index}", url=mcp_server_urls["sse"])
        async with AsyncMcpHttpTransport(
            server=server, workspace_root=tmp_path, server_request_handler=handler
        ) as transport:
            await transport.request(
                method="initialize",
                params={
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"elicitation": {"form": {}}},
                    "clientInfo": {"name": "t", "version": "0"},
                },
                timeout_s=10,
            )
            transport.set_negotiated_protocol_version("2025-11-25")
            await transport.send_notification(method="notifications/initialized", params=None)
            texts = []
            for name, arguments in (("echo", {"text": f"#{index}"}), ("ask_name", {})):
                response = await transport.request(
                    method="tools/call",
                    params={"name": name, "arguments": arguments},
                    timeout_s=10,
                )
                texts.append(response.result["content"][0]["text"])
        assert transport.closed
        return texts

    async def many() -> list[list[str]]:
        handler = AsyncHandler()
        results = await asyncio.gather(*(one_session(i, handler) for i in range(8)))
        assert handler.seen == ["elicitation/create"] * 8
        return list(results)

    results = event_loop_thread.run(many())
    assert results == [[f"#{i}", "hello Grace"] for i in range(8)]
