"""The limits of the core and of the drivers' body decoding, without a server: the delay taken
from a server's ``retry``, the event ids kept for ``Last-Event-ID``, the bounded notification
queue, excerpts of server values in messages, and decompression piece by piece."""

from __future__ import annotations

import gzip
import logging
import zlib

import httpx
import pytest
from mcpstream import errors
from mcpstream._http import wire
from mcpstream._http.core import McpHttpProtocol, ReconnectPolicy
from mcpstream._http.core import steps as s
from mcpstream._http.core.protocol import EVENT_ID_MAX_CHARS, resumable_event_id
from mcpstream.jsonrpc import JsonRpcNotification
from mcpstream.models import ResolvedMcpServer

from ..fault_server import result, sse
from .script import Answer, Script, protocol, sse_answer
from .test_call_flow import request


@pytest.mark.parametrize(
    ("retry_ms", "delay_s"),
    [(0, 0.1), (50, 0.1), (250, 0.25), (10**15, 60.0), (10**400, 60.0), (-5, 0.1)],
)
def test_the_server_retry_is_clamped_to_the_floor_and_the_cap(
    retry_ms: int, delay_s: float
) -> None:
    assert ReconnectPolicy().delay_s(attempt=1, retry_ms=retry_ms) == delay_s


def test_a_policy_of_many_attempts_backs_off_without_overflow() -> None:
    policy = ReconnectPolicy(max_attempts=100_000)
    assert policy.delay_s(attempt=100_000, retry_ms=None) == policy.max_delay_s


@pytest.mark.parametrize(
    ("event_id", "kept"),
    [
        ("ev-1", True),
        ("with space", True),
        ("\u00e9t\u00e9", False),
        ("a\r\nX-Injected: 1", False),
        ("tab\there", False),
        ("x" * EVENT_ID_MAX_CHARS, True),
        ("x" * (EVENT_ID_MAX_CHARS + 1), False),
    ],
)
def test_only_event_ids_a_header_can_carry_are_kept(event_id: str, kept: bool) -> None:
    assert resumable_event_id(event_id) == (event_id if kept else None)


def _bounded_queue(size: int) -> McpHttpProtocol:
    server = ResolvedMcpServer(id="srv", url="http://mcp.example/mcp")
    return McpHttpProtocol(
        server,
        max_event_bytes=None,
        reconnect_policy=ReconnectPolicy(),
        max_queued_notifications=size,
    )


def test_the_queue_drops_the_oldest_counts_and_logs_once(caplog: pytest.LogCaptureFixture) -> None:
    core = _bounded_queue(3)
    with caplog.at_level(logging.WARNING, logger="mcpstream.transport"):
        for n in range(10):
            core.route_notifications([JsonRpcNotification(method="n", params={"n": n})])
    assert core.dropped_notifications == 7
    assert [n.params["n"] for n in core.drain_notifications()] == [7, 8, 9]
    assert len([r for r in caplog.records if "queue" in r.getMessage()]) == 1


def test_the_queue_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_queued_notifications"):
        _bounded_queue(0)


def _json(text: str, **headers: str) -> Answer:
    return Answer(200, {"content-type": "application/json", **headers}, [text.encode()])


def test_a_json_body_past_the_budget_is_refused_and_its_length_checked_first() -> None:
    core = protocol()
    core.max_event_bytes = 100
    body = _json(result(1, "x" * 200))
    with pytest.raises(errors.McpHttpTransportResponseTooLargeError) as raised:
        request(Script([body]), core)
    assert raised.value.limit == 100
    declared = _json(result(1, "ok"), **{"content-length": str(2**31)})
    script = Script([declared])
    with pytest.raises(errors.McpHttpTransportResponseTooLargeError, match="Content-Length"):
        request(script, core)
    assert script.of(s.ReadBody) == []


def test_an_sse_event_past_the_budget_is_a_too_large_error() -> None:
    core = protocol()
    core.max_event_bytes = 64
    with pytest.raises(errors.McpHttpTransportResponseTooLargeError):
        request(Script([sse_answer(sse(result(1, "x" * 100)))]), core)


def test_a_huge_int_id_is_shown_as_too_long() -> None:
    assert protocol().quote(10**5000) == "<int too long to show>"


def _decoded(data: bytes, coding: str, chunk: int = 4096) -> list[bytes]:
    response = httpx.Response(200, headers={"content-encoding": coding})
    decoder = wire.BodyDecoder.of(response)
    assert decoder is not None
    pieces: list[bytes] = []
    for start in range(0, len(data), chunk):
        pieces.extend(decoder.decode(data[start : start + chunk]))
    pieces.extend(decoder.decode(b"", final=True))
    return pieces


@pytest.mark.parametrize(
    ("coding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data, wbits=-zlib.MAX_WBITS)),
        ("gzip, gzip", lambda data: gzip.compress(gzip.compress(data))),
        ("deflate, gzip", lambda data: gzip.compress(zlib.compress(data))),
    ],
)
def test_bodies_are_decompressed_piece_by_piece(coding: str, compress: object) -> None:
    original = b"spaces " * 300_000  # 2 MiB, a thousand to one
    assert callable(compress)
    pieces = _decoded(compress(original), coding)
    assert b"".join(pieces) == original
    assert max(map(len, pieces)) <= wire.PIECE_BYTES


def test_uncompressed_and_unasked_codings_are_left_as_they_are() -> None:
    assert wire.BodyDecoder.of(httpx.Response(200)) is None
    assert wire.BodyDecoder.of(httpx.Response(200, headers={"content-encoding": "br"})) is None
    assert (
        wire.BodyDecoder.of(httpx.Response(200, headers={"content-encoding": "identity"})) is None
    )


def test_a_corrupt_compressed_body_is_a_decoding_error() -> None:
    with pytest.raises(httpx.DecodingError):
        _decoded(b"\x1f\x8b not gzip at all", "gzip")
