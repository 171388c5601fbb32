"""mcpstream.jsonrpc: the builders, the id generator, and the re-exported codec names."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from mcpstream import codec, jsonrpc
from mcpstream.jsonrpc import (
    JsonRpcIdGenerator,
    build_jsonrpc_error_response,
    build_jsonrpc_notification,
    build_jsonrpc_request,
    build_jsonrpc_result_response,
    encode_jsonrpc_message,
    parse_jsonrpc_line,
)


def test_a_request_has_version_id_method_and_params() -> None:
    assert build_jsonrpc_request(request_id=1, method="tools/list", params={"cursor": "c"}) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {"cursor": "c"},
    }


def test_a_request_without_params_leaves_them_out() -> None:
    assert build_jsonrpc_request(request_id="a", method="ping", params=None) == {
        "jsonrpc": "2.0",
        "id": "a",
        "method": "ping",
    }


@pytest.mark.parametrize("params", [{}, []])
def test_empty_params_are_kept(params: Any) -> None:
    assert build_jsonrpc_request(request_id=1, method="m", params=params)["params"] == params
    assert build_jsonrpc_notification(method="m", params=params)["params"] == params


def test_a_notification_has_no_id() -> None:
    assert build_jsonrpc_notification(method="notifications/initialized", params=None) == {
        "jsonrpc": "2.0",
        "method": "notifications/initialized",
    }
    assert build_jsonrpc_notification(method="n", params=[1]) == {
        "jsonrpc": "2.0",
        "method": "n",
        "params": [1],
    }


def test_a_result_response_keeps_a_null_result() -> None:
    assert build_jsonrpc_result_response(request_id=4, result=None) == {
        "jsonrpc": "2.0",
        "id": 4,
        "result": None,
    }


def test_an_error_response_has_code_and_message_and_data_only_when_given() -> None:
    assert build_jsonrpc_error_response(request_id=None, code=-32601, message="nope") == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32601, "message": "nope"},
    }
    assert build_jsonrpc_error_response(request_id=2, code=1, message="m", data={"x": 1}) == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {"code": 1, "message": "m", "data": {"x": 1}},
    }


def test_builders_take_keywords_only() -> None:
    with pytest.raises(TypeError):
        build_jsonrpc_request(1, "m", None)  # type: ignore[misc]


def test_built_messages_parse_back_into_the_typed_messages() -> None:
    text = encode_jsonrpc_message(
        [
            build_jsonrpc_request(request_id=1, method="m", params={"a": 1}),
            build_jsonrpc_notification(method="n", params=None),
            build_jsonrpc_result_response(request_id="r", result=[1]),
            build_jsonrpc_error_response(request_id=None, code=-1, message="e", data=0),
        ]
    )
    assert parse_jsonrpc_line(text) == (
        codec.JsonRpcRequest(id=1, method="m", params={"a": 1}),
        codec.JsonRpcNotification(method="n"),
        codec.JsonRpcResponse(id="r", result=[1]),
        codec.JsonRpcResponse(id=None, error={"code": -1, "message": "e", "data": 0}),
    )


def test_ids_count_up_from_one() -> None:
    ids = JsonRpcIdGenerator()
    assert [ids.next() for _ in range(4)] == [1, 2, 3, 4]


def test_ids_may_start_elsewhere() -> None:
    ids = JsonRpcIdGenerator(start=100)
    assert (ids.next(), ids.next()) == (100, 101)


def test_separate_generators_count_separately() -> None:
    a, b = JsonRpcIdGenerator(), JsonRpcIdGenerator()
    a.next()
    assert b.next() == 1


def test_ids_are_unique_across_threads() -> None:
    ids = JsonRpcIdGenerator()
    seen: list[int] = []
    lock = threading.Lock()

    def take() -> None:
        mine = [ids.next() for _ in range(2000)]
        with lock:
            seen.extend(mine)

    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == list(range(1, 16001))


def test_jsonrpc_reexports_the_active_backends_codec() -> None:
    assert jsonrpc.JsonRpcRequest is codec.JsonRpcRequest
    assert jsonrpc.JsonRpcResponse is codec.JsonRpcResponse
    assert jsonrpc.JsonRpcNotification is codec.JsonRpcNotification
    assert jsonrpc.parse_jsonrpc_line is codec.parse_jsonrpc_line
    assert jsonrpc.encode_jsonrpc_message is codec.encode_jsonrpc_message
